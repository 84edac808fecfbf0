//! Text clients for Cello's evaluation (spec §5.1): each client picks a random file and
//! reads it sequentially, one request at a time on its own exponential clock (mean 900 ms),
//! request sizes Normal(32 KiB, σ 8 KiB) rounded up to whole 8 KiB blocks (at least one),
//! files of uniform 256 KiB-4 MiB at uniform places on the disk. Clients are open: the next
//! request does not wait for the previous one (the paper gives inter-arrival times, not
//! think times). Interactive and throughput-intensive clients differ only in their class.

use rand::Rng;
use rand_distr::{Distribution, Exp, Normal};
use rand_pcg::Pcg64Mcg;

use super::{Arrivals, Workload};
use crate::engine::RngStreams;
use crate::error::{HeadwayError, Result};
use crate::request::{Op, Request};
use crate::table_keys::key_group;
use crate::time::{SimTime, NS_PER_MS};

/// `kind = "text"` in an experiment file: `clients`, `duration_s`, `interarrival_ms` (900),
/// `size_mean_bytes` (32 KiB), `size_sd_bytes` (8 KiB), `block_bytes` (8 KiB),
/// `file_min_bytes` (256 KiB), `file_max_bytes` (4 MiB).
#[derive(Clone, Debug, PartialEq)]
pub struct TextConfig {
    pub clients: u32,
    /// Each client issues requests until this time.
    pub duration_ms: f64,
    pub interarrival_ms: f64,
    pub size_mean_bytes: f64,
    pub size_sd_bytes: f64,
    pub block_bytes: u32,
    pub file_min_bytes: u64,
    pub file_max_bytes: u64,
}

key_group! {
    /// The keys of a text workload's table besides `clients`, `block_bytes` and
    /// `interarrival_ms`.
    pub(crate) struct TextKeys {
        duration_s: f64,
        size_mean_bytes: f64,
        size_sd_bytes: f64,
        file_min_bytes: u64,
        file_max_bytes: u64,
    }
}

impl TextConfig {
    pub(crate) fn from_keys(
        keys: TextKeys,
        clients: Option<u32>,
        block_bytes: Option<u32>,
        interarrival_ms: Option<f64>,
    ) -> std::result::Result<Self, String> {
        let d = TextConfig::paper(0, 0.0);
        Ok(TextConfig {
            clients: clients.ok_or("missing field `clients` (kind = \"text\" needs it)")?,
            duration_ms: keys
                .duration_s
                .ok_or("missing field `duration_s` (kind = \"text\" needs it)")?
                * 1000.0,
            interarrival_ms: interarrival_ms.unwrap_or(d.interarrival_ms),
            size_mean_bytes: keys.size_mean_bytes.unwrap_or(d.size_mean_bytes),
            size_sd_bytes: keys.size_sd_bytes.unwrap_or(d.size_sd_bytes),
            block_bytes: block_bytes.unwrap_or(d.block_bytes),
            file_min_bytes: keys.file_min_bytes.unwrap_or(d.file_min_bytes),
            file_max_bytes: keys.file_max_bytes.unwrap_or(d.file_max_bytes),
        })
    }

    /// The paper's text clients (spec §5.1 with its team choices).
    pub(crate) fn paper(clients: u32, duration_ms: f64) -> Self {
        TextConfig {
            clients,
            duration_ms,
            interarrival_ms: 900.0,
            size_mean_bytes: 32.0 * 1024.0,
            size_sd_bytes: 8.0 * 1024.0,
            block_bytes: 8192,
            file_min_bytes: 256 * 1024,
            file_max_bytes: 4 << 20,
        }
    }
}

struct Client {
    file_lbn: u64,
    file_sectors: u64,
    offset_sectors: u64,
    t_ns: f64,
}

pub struct TextWorkload {
    cfg: TextConfig,
    clients: Vec<Client>,
    capacity: u64,
    gap: Exp<f64>,
    size: Normal<f64>,
    rng: Pcg64Mcg,
    end_ns: f64,
}

impl TextWorkload {
    /// Random stream `workload.text`.
    pub fn new(cfg: TextConfig, capacity_sectors: u64, rng: &RngStreams) -> Result<Self> {
        if !(cfg.duration_ms >= 0.0 && cfg.duration_ms.is_finite()) {
            return Err(HeadwayError::config(
                "workload.duration_s",
                "must be a non-negative number of seconds",
            ));
        }
        if !(cfg.size_mean_bytes > 0.0 && cfg.size_mean_bytes.is_finite()) {
            return Err(HeadwayError::config(
                "workload.size_mean_bytes",
                "must be positive",
            ));
        }
        if !(cfg.interarrival_ms > 0.0 && cfg.interarrival_ms.is_finite()) {
            return Err(HeadwayError::config(
                "workload.interarrival_ms",
                "must be positive",
            ));
        }
        if cfg.block_bytes < 512 || cfg.block_bytes % 512 != 0 {
            return Err(HeadwayError::config(
                "workload.block_bytes",
                "must be a positive multiple of 512",
            ));
        }
        if cfg.file_max_bytes / 512 >= capacity_sectors || cfg.file_min_bytes > cfg.file_max_bytes {
            return Err(HeadwayError::config(
                "workload.file_max_bytes",
                "files must fit the disk and min <= max",
            ));
        }
        let mean_gap_ns = cfg.interarrival_ms * NS_PER_MS as f64;
        let mut w = TextWorkload {
            gap: Exp::new(1.0 / mean_gap_ns).expect("positive rate"),
            size: Normal::new(cfg.size_mean_bytes, cfg.size_sd_bytes.max(0.0))
                .map_err(|e| HeadwayError::config("workload.size_sd_bytes", e.to_string()))?,
            rng: rng.stream("workload.text"),
            end_ns: cfg.duration_ms * NS_PER_MS as f64,
            clients: Vec::new(),
            capacity: capacity_sectors,
            cfg,
        };
        for _ in 0..w.cfg.clients {
            let mut c = Client {
                file_lbn: 0,
                file_sectors: 0,
                offset_sectors: 0,
                t_ns: 0.0,
            };
            w.new_file(&mut c);
            // A random phase: the first request after one exponential gap.
            c.t_ns = w.gap.sample(&mut w.rng);
            w.clients.push(c);
        }
        Ok(w)
    }

    fn new_file(&mut self, c: &mut Client) {
        let bytes = self
            .rng
            .random_range(self.cfg.file_min_bytes..=self.cfg.file_max_bytes);
        c.file_sectors = bytes.div_ceil(512).max(1);
        c.file_lbn = self.rng.random_range(0..self.capacity - c.file_sectors);
        c.offset_sectors = 0;
    }

    fn issue(&mut self, i: usize, out: &mut Arrivals) {
        let mut c = std::mem::replace(
            &mut self.clients[i],
            Client {
                file_lbn: 0,
                file_sectors: 0,
                offset_sectors: 0,
                t_ns: 0.0,
            },
        );
        if c.t_ns < self.end_ns {
            if c.offset_sectors >= c.file_sectors {
                self.new_file(&mut c);
            }
            let block = self.cfg.block_bytes as f64;
            let blocks = (self.size.sample(&mut self.rng) / block).ceil().max(1.0) as u64;
            let sectors = (blocks * self.cfg.block_bytes as u64 / 512)
                .min(c.file_sectors - c.offset_sectors)
                .max(1);
            let mut r = Request::new(
                c.t_ns.round() as SimTime,
                c.file_lbn + c.offset_sectors,
                sectors as u32,
                Op::Read,
            );
            r.process = i as u32;
            out.push(r);
            c.offset_sectors += sectors;
            c.t_ns += self.gap.sample(&mut self.rng);
        }
        self.clients[i] = c;
    }
}

impl Workload for TextWorkload {
    fn name(&self) -> &str {
        "text"
    }
    fn start(&mut self, out: &mut Arrivals) -> Result<()> {
        for i in 0..self.clients.len() {
            self.issue(i, out);
        }
        Ok(())
    }
    fn on_arrival(&mut self, req: &Request, out: &mut Arrivals) -> Result<()> {
        self.issue(req.process as usize, out);
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
    fn clients_read_files_sequentially_at_the_paper_rate() {
        let mut w = TextWorkload::new(
            TextConfig::paper(3, 600_000.0),
            5_000_000,
            &RngStreams::new(2),
        )
        .unwrap();
        let mut out = Arrivals::default();
        w.start(&mut out).unwrap();
        let mut all: Vec<Request> = Vec::new();
        while !out.is_empty() {
            let batch: Vec<Request> = out.drain().collect();
            for q in &batch {
                w.on_arrival(q, &mut out).unwrap();
            }
            all.extend(batch);
        }
        // 3 clients × 600 s / 0.9 s ≈ 2000 requests.
        assert!((1800..=2200).contains(&all.len()), "{}", all.len());
        let mean_kib = all.iter().map(|q| q.sectors as f64 / 2.0).sum::<f64>() / all.len() as f64;
        assert!((30.0..=42.0).contains(&mean_kib), "{mean_kib}");
        // Most consecutive requests of a client continue where the last one ended.
        let c0: Vec<&Request> = all.iter().filter(|q| q.process == 0).collect();
        let seq = c0.windows(2).filter(|w| w[1].lbn == w[0].end_lbn()).count();
        assert!(seq as f64 > 0.8 * c0.len() as f64, "{seq} of {}", c0.len());
    }
}
