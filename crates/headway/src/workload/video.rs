//! Video clients for Cello's evaluation (spec §5.2): server-push playback in rounds. At the
//! start of each 1 s round a client asks for the 64 KiB blocks of its file that hold the
//! round's 30 frames, all due at the round's end. Each client plays a clip (a file laid out
//! contiguously at a random place on the disk) from a random frame, looping at its end, and
//! starts its rounds at a random phase within the first round, or, with
//! `synchronised_rounds`, at the server's round boundaries (every client's round starts at
//! once, as in a server that pushes in rounds).
//!
//! Frame sizes come from a synthetic GOP model (always available) or from MPEG-4 frame-size
//! traces rescaled to the paper's clips' bit rates (`load_frame_trace`).

use rand::Rng;
use rand_distr::{Distribution, LogNormal};
use rand_pcg::Pcg64Mcg;

use super::{Arrivals, Workload};
use crate::engine::RngStreams;
use crate::error::{HeadwayError, Result};
use crate::request::{Op, Request};
use crate::table_keys::key_group;
use crate::time::{SimTime, NS_PER_MS};

/// One of the paper's clips (Table 1b): frames and mean bit rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clip {
    pub name: &'static str,
    pub frames: usize,
    pub mbit_per_s: f64,
}

/// Frasier, Newscast, Flintstones, Olympics; all GOP I(BBP)^3BB at 30 frames/s.
pub const PAPER_CLIPS: [Clip; 4] = [
    Clip {
        name: "frasier",
        frames: 5960,
        mbit_per_s: 1.49,
    },
    Clip {
        name: "newscast",
        frames: 9000,
        mbit_per_s: 2.33,
    },
    Clip {
        name: "flintstones",
        frames: 9000,
        mbit_per_s: 1.67,
    },
    Clip {
        name: "olympics",
        frames: 9000,
        mbit_per_s: 1.49,
    },
];

pub const FRAMES_PER_S: usize = 30;
/// The paper's GOP, I B B P B B P B B P B B.
const GOP: &[u8; 12] = b"IBBPBBPBBPBB";

/// Synthetic frame sizes (spec TEAM CHOICE): I:P:B = 5:3:1 within each GOP, scaled to the
/// clip's mean bit rate, each frame times lognormal noise of σ = 0.2 (mean 1).
pub(crate) fn synthetic_frames(clip: &Clip, rng: &mut Pcg64Mcg) -> Vec<u32> {
    let weight = |c: u8| match c {
        b'I' => 5.0,
        b'P' => 3.0,
        _ => 1.0,
    };
    let gop_weight: f64 = GOP.iter().map(|&c| weight(c)).sum();
    let bytes_per_gop = clip.mbit_per_s * 1e6 / 8.0 / FRAMES_PER_S as f64 * GOP.len() as f64;
    let sigma: f64 = 0.2;
    let noise = LogNormal::new(-sigma * sigma / 2.0, sigma).expect("valid lognormal");
    (0..clip.frames)
        .map(|i| {
            let w = weight(GOP[i % GOP.len()]);
            (bytes_per_gop * w / gop_weight * noise.sample(rng)).max(1.0) as u32
        })
        .collect()
}

/// Frame sizes from an MPEG-4 frame-size trace (`index type time_ms size_bytes` per line,
/// Fitzek and Reisslein's format), rescaled so that at 30 frames/s their mean bit rate is
/// `clip`'s, and cut to the clip's length.
pub fn load_frame_trace(path: &std::path::Path, clip: &Clip) -> Result<Vec<u32>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| HeadwayError::config(path.display().to_string(), e.to_string()))?;
    let mut sizes = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.is_empty() {
            continue;
        }
        let size = f
            .get(3)
            .and_then(|s| s.parse::<f64>().ok())
            .ok_or_else(|| {
                HeadwayError::config(
                    format!("{}:{}", path.display(), n + 1),
                    "expected `index type time_ms size_bytes`",
                )
            })?;
        sizes.push(size);
        if sizes.len() == clip.frames {
            break;
        }
    }
    if sizes.is_empty() {
        return Err(HeadwayError::config(
            path.display().to_string(),
            "no frames in the trace",
        ));
    }
    let mean = sizes.iter().sum::<f64>() / sizes.len() as f64;
    let want = clip.mbit_per_s * 1e6 / 8.0 / FRAMES_PER_S as f64;
    Ok(sizes
        .iter()
        .map(|s| (s * want / mean).max(1.0) as u32)
        .collect())
}

/// How the clients are set up.
#[derive(Clone, Debug)]
pub struct VideoConfig {
    pub clients: u32,
    /// Rounds each client plays.
    pub rounds: u64,
    pub round_ms: f64,
    pub block_bytes: u32,
    /// Frame sizes of each clip a client may pick (chosen uniformly per client).
    pub clips: Vec<Vec<u32>>,
    /// Rounds `[from, to)` (counted from time 0 in whole rounds) in which no client asks
    /// for anything (the paper's video pause, intervals 200-400).
    pub pause_rounds: Option<(u64, u64)>,
    /// Every client's rounds start on the server's round boundaries (phase 0) instead of at
    /// a random phase.
    pub synchronised_rounds: bool,
}

/// `kind = "video"` in an experiment file: `clients`, `rounds` (default 600), `round_ms`
/// (1000), `block_bytes` (65536), `frame_traces` (MPEG-4 frame-size traces standing in for
/// the paper's four clips in order, relative to the experiment file; default: the synthetic
/// GOP model), `pause_rounds = [from, to]`, `synchronised_rounds` (false).
#[derive(Clone, Debug, PartialEq)]
pub struct VideoSpec {
    pub clients: u32,
    pub rounds: u64,
    pub round_ms: f64,
    pub block_bytes: u32,
    pub frame_traces: Vec<std::path::PathBuf>,
    pub pause_rounds: Option<(u64, u64)>,
    pub synchronised_rounds: bool,
}

key_group! {
    /// The keys of a video workload's table (`clients` and `block_bytes` are also text
    /// clients').
    pub(crate) struct VideoKeys {
        clients: u32,
        block_bytes: u32,
        rounds: u64,
        round_ms: f64,
        frame_traces: Vec<std::path::PathBuf>,
        pause_rounds: [u64; 2],
        synchronised_rounds: bool,
    }
}

impl VideoSpec {
    pub(crate) fn from_keys(keys: VideoKeys) -> std::result::Result<Self, String> {
        Ok(VideoSpec {
            clients: keys
                .clients
                .ok_or("missing field `clients` (kind = \"video\" needs it)")?,
            rounds: keys.rounds.unwrap_or(600),
            round_ms: keys.round_ms.unwrap_or(1000.0),
            block_bytes: keys.block_bytes.unwrap_or(65536),
            frame_traces: keys.frame_traces.unwrap_or_default(),
            pause_rounds: keys.pause_rounds.map(|[a, b]| (a, b)),
            synchronised_rounds: keys.synchronised_rounds.unwrap_or(false),
        })
    }

    /// The clients, drawing the synthetic frames from stream `workload.frames`.
    pub fn build(
        &self,
        capacity_sectors: u64,
        rng: &RngStreams,
        base_dir: Option<&std::path::Path>,
    ) -> Result<VideoWorkload> {
        if !(self.round_ms > 0.0 && self.round_ms.is_finite()) {
            return Err(HeadwayError::config(
                "workload.round_ms",
                format!(
                    "must be a positive number of milliseconds, got {}",
                    self.round_ms
                ),
            ));
        }
        let mut fr = rng.stream("workload.frames");
        let clips = PAPER_CLIPS
            .iter()
            .enumerate()
            .map(
                |(i, c)| match self.frame_traces.get(i % self.frame_traces.len().max(1)) {
                    Some(p) => {
                        let p = match base_dir {
                            Some(b) if p.is_relative() => b.join(p),
                            _ => p.clone(),
                        };
                        load_frame_trace(&p, c).map_err(|e| {
                            HeadwayError::config("workload.frame_traces", e.to_string())
                        })
                    }
                    None => Ok(synthetic_frames(c, &mut fr)),
                },
            )
            .collect::<Result<Vec<_>>>()?;
        VideoWorkload::new(
            VideoConfig {
                clients: self.clients,
                rounds: self.rounds,
                round_ms: self.round_ms,
                block_bytes: self.block_bytes,
                clips,
                pause_rounds: self.pause_rounds,
                synchronised_rounds: self.synchronised_rounds,
            },
            capacity_sectors,
            rng,
        )
    }
}

struct Client {
    /// First sector of its file.
    file_lbn: u64,
    clip: usize,
    frame: usize,
    /// Next byte of the (looping) clip not yet requested, as an offset into an
    /// ever-growing play position: block k covers bytes [k B, (k+1) B) of the loop.
    next_block: u64,
    played_bytes: u64,
    phase_ns: SimTime,
    round: u64,
    outstanding_in_round: u32,
}

pub struct VideoWorkload {
    cfg: VideoConfig,
    clients: Vec<Client>,
    clip_bytes: Vec<u64>,
    round_ns: SimTime,
}

impl VideoWorkload {
    /// Random stream `workload.video`: each client's clip, file place, first frame, phase.
    pub fn new(cfg: VideoConfig, capacity_sectors: u64, rng: &RngStreams) -> Result<Self> {
        if cfg.clips.is_empty() || cfg.clips.iter().any(|c| c.is_empty()) {
            return Err(HeadwayError::config("workload.clips", "no frame sizes"));
        }
        if cfg.block_bytes < 512 || cfg.block_bytes % 512 != 0 {
            return Err(HeadwayError::config(
                "workload.block_bytes",
                "must be a positive multiple of 512",
            ));
        }
        let mut r = rng.stream("workload.video");
        let clip_bytes: Vec<u64> = cfg
            .clips
            .iter()
            .map(|c| c.iter().map(|&s| s as u64).sum())
            .collect();
        let round_ns = (cfg.round_ms * NS_PER_MS as f64).round() as SimTime;
        let mut clients = Vec::with_capacity(cfg.clients as usize);
        for _ in 0..cfg.clients {
            let clip = r.random_range(0..cfg.clips.len());
            let file_sectors = clip_bytes[clip].div_ceil(512) + cfg.block_bytes as u64 / 512;
            if file_sectors >= capacity_sectors {
                return Err(HeadwayError::config(
                    "workload.clips",
                    "a clip does not fit the disk",
                ));
            }
            let frame = r.random_range(0..cfg.clips[clip].len());
            let played: u64 = cfg.clips[clip][..frame].iter().map(|&s| s as u64).sum();
            let file_lbn = r.random_range(0..capacity_sectors - file_sectors);
            // Drawn either way, so the clips, places and frames do not depend on the option.
            let phase_ns = r.random_range(0..round_ns.max(1));
            clients.push(Client {
                file_lbn,
                clip,
                frame,
                next_block: played / cfg.block_bytes as u64,
                played_bytes: played,
                phase_ns: if cfg.synchronised_rounds { 0 } else { phase_ns },
                round: 0,
                outstanding_in_round: 0,
            });
        }
        Ok(VideoWorkload {
            cfg,
            clients,
            clip_bytes,
            round_ns,
        })
    }

    /// Issue client `c`'s next round with any requests (skipping paused or empty rounds).
    fn next_round(&mut self, c: usize, out: &mut Arrivals) {
        let block = self.cfg.block_bytes as u64;
        let round_ns = self.round_ns;
        loop {
            let cl = &mut self.clients[c];
            if cl.round >= self.cfg.rounds {
                return;
            }
            let start = cl.phase_ns + cl.round * round_ns;
            let paused = self
                .cfg
                .pause_rounds
                .is_some_and(|(a, b)| (a..b).contains(&(start / round_ns)));
            cl.round += 1;
            if paused {
                continue;
            }
            let frames = &self.cfg.clips[cl.clip];
            for _ in 0..FRAMES_PER_S {
                cl.played_bytes += frames[cl.frame] as u64;
                cl.frame = (cl.frame + 1) % frames.len();
            }
            let last_block = (cl.played_bytes - 1) / block;
            let clip_blocks = self.clip_bytes[cl.clip].div_ceil(block);
            let mut n = 0;
            while cl.next_block <= last_block {
                // The file is read in a loop: block k of the play is block k mod (blocks of
                // the file).
                let k = cl.next_block % clip_blocks;
                let mut r = Request::new(
                    start,
                    cl.file_lbn + k * block / 512,
                    (block / 512) as u32,
                    Op::Read,
                );
                r.process = c as u32;
                r.deadline_ns = start + round_ns;
                out.push(r);
                cl.next_block += 1;
                n += 1;
            }
            if n > 0 {
                cl.outstanding_in_round = n;
                return;
            }
        }
    }
}

impl Workload for VideoWorkload {
    fn name(&self) -> &str {
        "video"
    }
    fn start(&mut self, out: &mut Arrivals) -> Result<()> {
        for c in 0..self.clients.len() {
            self.next_round(c, out);
        }
        Ok(())
    }
    fn on_arrival(&mut self, req: &Request, out: &mut Arrivals) -> Result<()> {
        let c = req.process as usize;
        let cl = &mut self.clients[c];
        cl.outstanding_in_round = cl.outstanding_in_round.saturating_sub(1);
        if cl.outstanding_in_round == 0 {
            self.next_round(c, out);
        }
        Ok(())
    }
    fn on_completion(&mut self, _req: &Request, _now: SimTime, _out: &mut Arrivals) -> Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_frames_have_the_clip_rate_and_gop() {
        let mut r = RngStreams::new(1).stream("t");
        let f = synthetic_frames(&PAPER_CLIPS[1], &mut r);
        assert_eq!(f.len(), 9000);
        let mbps = f.iter().map(|&s| s as f64).sum::<f64>() * 8.0 / (9000.0 / 30.0) / 1e6;
        assert!((mbps - 2.33).abs() < 0.05, "{mbps}");
        // I frames are the largest on average.
        let mean = |k: usize| f.iter().skip(k).step_by(12).map(|&s| s as f64).sum::<f64>();
        assert!(mean(0) > 1.5 * mean(3) && mean(3) > 2.0 * mean(1));
    }

    #[test]
    fn rounds_request_the_blocks_of_their_frames_due_at_round_end() {
        let mut r = RngStreams::new(1).stream("t");
        let clip = synthetic_frames(&PAPER_CLIPS[0], &mut r);
        let mut w = VideoWorkload::new(
            VideoConfig {
                clients: 1,
                rounds: 20,
                round_ms: 1000.0,
                block_bytes: 65536,
                clips: vec![clip],
                pause_rounds: None,
                synchronised_rounds: false,
            },
            10_000_000,
            &RngStreams::new(3),
        )
        .unwrap();
        let mut out = Arrivals::default();
        w.start(&mut out).unwrap();
        let mut all = Vec::new();
        while !out.is_empty() {
            let batch: Vec<Request> = out.drain().collect();
            for q in &batch {
                w.on_arrival(q, &mut out).unwrap();
            }
            all.extend(batch);
        }
        // 1.49 Mbit/s × 20 s ≈ 3.7 MB ≈ 57 blocks of 64 KiB, each asked for once.
        assert!((54..=60).contains(&all.len()), "{}", all.len());
        assert!(all
            .iter()
            .all(|q| q.deadline_ns == q.arrival_ns + 1_000_000_000));
        assert!(all.iter().all(|q| q.sectors == 128));
    }

    /// Every request of `clients` clients over 5 rounds, with or without synchronised rounds.
    fn requests(synchronised_rounds: bool) -> Vec<Request> {
        let mut r = RngStreams::new(1).stream("t");
        let clip = synthetic_frames(&PAPER_CLIPS[0], &mut r);
        let mut w = VideoWorkload::new(
            VideoConfig {
                clients: 4,
                rounds: 5,
                round_ms: 1000.0,
                block_bytes: 65536,
                clips: vec![clip],
                pause_rounds: None,
                synchronised_rounds,
            },
            10_000_000,
            &RngStreams::new(3),
        )
        .unwrap();
        let mut out = Arrivals::default();
        w.start(&mut out).unwrap();
        let mut all = Vec::new();
        while !out.is_empty() {
            let batch: Vec<Request> = out.drain().collect();
            for q in &batch {
                w.on_arrival(q, &mut out).unwrap();
            }
            all.extend(batch);
        }
        all
    }

    #[test]
    fn synchronised_rounds_start_every_client_on_the_servers_boundaries() {
        let round_ns = 1_000_000_000;
        let sync = requests(true);
        assert!(sync.iter().all(|q| q.arrival_ns % round_ns == 0));
        assert!(sync.iter().all(|q| q.deadline_ns % round_ns == 0));
        // Random phases otherwise; the same blocks of the same files either way.
        let free = requests(false);
        assert!(free.iter().any(|q| q.arrival_ns % round_ns != 0));
        let blocks = |v: &[Request]| {
            let mut b: Vec<u64> = v.iter().map(|q| q.lbn).collect();
            b.sort_unstable();
            b
        };
        assert_eq!(blocks(&sync), blocks(&free));
    }
}
