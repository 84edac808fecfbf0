//! Calibration: measure a drive the way the rotational-scheduling paper measured its
//! ST41601N, with nothing but timed reads and writes (see [`probe::Probe`]), and build the
//! host's model of it ([`ExtractedDrive`]) that the `calibrated` and `lbn-curve` predictors
//! use. [`compare::compare`] then sets the extraction beside the truth.
//!
//! Steps, each in its own file: rotation period (`rotation.rs`), GeoExtraction with
//! MINDISTANCE (`geometry.rs`), the boundaries that left no mark or were no boundary
//! (`unmarked.rs`) and the track and zone table they imply (`zones.rs`), track
//! phases (`phases.rs`), which boundaries are cylinder switches and the empty cylinders
//! between zones (`cylinders.rs`), MinOffset lags (`min_offset.rs`), delta (`delta.rs`), the
//! LBN-distance curve (`lbn_curve.rs`), and the Stability experiment (`stability.rs`).

pub mod block_target;
pub mod compare;
pub(crate) mod cylinders;
pub mod delta;
pub mod drive_file;
pub mod emulated_block;
pub mod fit;
pub mod geometry;
pub mod jittered_block;
pub mod lbn_curve;
pub mod min_offset;
pub(crate) mod phase_scan;
pub(crate) mod phases;
pub mod probe;
pub mod rotation;
pub(crate) mod round_trip;
pub(crate) mod simulated_target;
pub mod stability;
pub mod tail;
pub mod target;
pub(crate) mod unmarked;
pub(crate) mod zones;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use rand_pcg::Pcg64Mcg;
use serde::Serialize;

use crate::device::hdd::{HddDevice, HddSpec};
use crate::device::imperfect::{with_imperfections, Imperfections};
use crate::device::Device;
use crate::engine::RngStreams;
use crate::error::Result;
use crate::link::Link;

pub use block_target::{BlockIo, BlockTarget, DirectFile};
pub use compare::{compare, Comparison};
pub use emulated_block::EmulatedBlock;
pub use jittered_block::{JitteredBlock, RoundTripJitter};
pub use probe::Probe;
pub use target::ProbeTarget;
pub use zones::{ExtractedZone, Loc, TrackEntry, ZoneTable};

/// What calibration learned about a drive.
#[derive(Clone, Debug, Serialize)]
pub struct ExtractedDrive {
    pub name: String,
    pub period_ns: f64,
    pub rotation: rotation::RotationMeasurement,
    pub min_distance_sectors: u32,
    pub table: ZoneTable,
    /// Boundaries and gaps GeoExtraction found (kept for the comparison with the truth).
    #[serde(skip)]
    pub scan: geometry::GeoScan,
    pub delta_sectors: f64,
    pub delta: delta::DeltaSearch,
    pub lags: min_offset::Lags,
    pub lbn_curve: lbn_curve::LbnCurve,
    /// The paper-form MinOffset per zone, when asked for (`ExtractOptions::paper_min_offset`).
    pub offset_fits: Vec<min_offset::ZoneOffsetFit>,
    /// The round trip's jitter calibration allowed for (ns; 0 when timed exactly).
    pub round_trip_jitter_ns: f64,
    /// The spread (10th to 90th percentile) of the round trip measured before calibrating a
    /// device whose jitter was not given (ns), which set `round_trip_jitter_ns`.
    pub measured_round_trip_spread_ns: Option<f64>,
    /// Commands issued and simulated time spent.
    pub commands: u64,
    pub simulated_s: f64,
}

#[derive(Clone, Copy, Debug)]
pub struct ExtractOptions {
    /// Also run the paper's sector-resolution MinOffset in every zone and fit one line per
    /// zone (for the report; the predictor does not need it).
    pub paper_min_offset: bool,
    /// How much the command round trip jitters (ns): 0 on a drive timed without jitter (a
    /// simulated one, a disk on its own bus). A disk behind FUSE and NBD is heard late by a
    /// varying amount, and calibration adapts: GeoExtraction reads the writes' completions
    /// as angles and writes again every LBN out of place (`phase_scan.rs`), track phases are
    /// measured until three agree, every lag probe must be heard where the platter puts it
    /// (`min_offset::heard_on_time`), the rotation period is fitted to every completion's turn
    /// number, MinOffset bisects lags to this resolution (at most
    /// [`COARSEST_LAG_RESOLUTION_NS`]) rather than a nanosecond, GeoExtraction's stride
    /// leaves twice this to spare, and the delta search lets a tenth of its trials miss.
    /// [`extract_device`] measures it when it is 0.
    pub round_trip_jitter_ns: f64,
}

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions {
            paper_min_offset: false,
            round_trip_jitter_ns: 0.0,
        }
    }
}

impl ExtractOptions {
    /// The settings for a device whose round trip jitters by about `jitter_ns`; an error
    /// message when that is not a positive number.
    pub fn for_jitter_ns(jitter_ns: f64) -> std::result::Result<Self, String> {
        if !(jitter_ns.is_finite() && jitter_ns > 0.0) {
            return Err(format!(
                "must be a positive number of microseconds, got {}",
                jitter_ns / 1e3
            ));
        }
        Ok(ExtractOptions {
            round_trip_jitter_ns: jitter_ns,
            ..ExtractOptions::default()
        })
    }

    fn jittery(&self) -> bool {
        self.round_trip_jitter_ns > 0.0
    }

    /// Where MinOffset's bisection stops (ns): the jitter, up to [`COARSEST_LAG_RESOLUTION_NS`].
    fn lag_resolution_ns(&self) -> f64 {
        self.round_trip_jitter_ns
            .min(COARSEST_LAG_RESOLUTION_NS)
            .max(min_offset::FINEST_LAG_RESOLUTION_NS)
    }

    /// Trials per delta the delta search lets miss: one, which the drive's own activity may
    /// spoil, or a tenth where round trips jitter.
    fn delta_misses(&self) -> usize {
        if self.jittery() {
            DELTA_TRIALS / 10
        } else {
            1
        }
    }
}

/// The coarsest resolution lags are bisected to, however much the round trip jitters
/// (ns) [TEAM CHOICE]: each step of the bisection is decided by two of three trials, so
/// bisecting below the jitter still narrows the lag (to the jitter's typical delay, the
/// same for every lag), and a round trip whose spread is a large part of a turn would
/// otherwise leave the seek curve as coarse as that.
pub const COARSEST_LAG_RESOLUTION_NS: f64 = 50_000.0;

/// Writes timed for each delta the delta search tries.
pub const DELTA_TRIALS: usize = 40;

/// Calibration draws its sample places from this fixed stream: it is a procedure, not part
/// of an experiment's randomness, and the same drive always calibrates the same way.
const CALIBRATION_SEED: u64 = 0x5EED_CA1B;

/// Measure `device` (fresh, idle) through `link`.
pub fn extract(
    device: Box<dyn Device>,
    link: Link,
    name: &str,
    opts: ExtractOptions,
) -> Result<ExtractedDrive> {
    extract_with(Probe::new(device, link), name, opts)
}

/// Measure the block device or file at `path` (idle, nothing else using it) with O_DIRECT
/// reads, and writes too when `writable` (they put zeros on it). See [`block_target`].
pub fn extract_device(
    path: &std::path::Path,
    writable: bool,
    name: &str,
    opts: ExtractOptions,
) -> Result<ExtractedDrive> {
    let io = DirectFile::open(path, writable)?;
    let target = BlockTarget::new(io, path, writable)?;
    extract_measuring_jitter(Probe::of(Box::new(target)), name, opts)
}

/// [`extract_with`], having first measured the round trip's jitter when `opts` gives none
/// (`round_trip.rs`): a device whose round trip spreads by a nanosecond or more is
/// calibrated with that spread as its jitter ([`ExtractOptions::round_trip_jitter_ns`]).
pub fn extract_measuring_jitter(
    mut probe: Probe,
    name: &str,
    mut opts: ExtractOptions,
) -> Result<ExtractedDrive> {
    let mut measured = None;
    if !opts.jittery() {
        let middle = probe.capacity_sectors() / 2;
        let spread = round_trip::measure_spread_ns(&mut probe, middle)?;
        opts.round_trip_jitter_ns = round_trip::jitter_from_spread(spread)?;
        measured = Some(spread);
    }
    let mut drive = extract_with(probe, name, opts)?;
    drive.measured_round_trip_spread_ns = measured;
    Ok(drive)
}

/// Measure whatever `probe` reaches.
pub fn extract_with(mut probe: Probe, name: &str, opts: ExtractOptions) -> Result<ExtractedDrive> {
    let mut rng: Pcg64Mcg = RngStreams::new(CALIBRATION_SEED).stream("calibrate");
    let cap = probe.capacity_sectors();
    let rotation = rotation::measure_rotation(&mut probe, cap / 2, 1000, opts.jittery())?;
    let period = rotation.period_ns;
    let places = [0, cap / 3, 2 * cap / 3, cap.saturating_sub(4096)];
    let md =
        geometry::find_min_distance(&mut probe, period, &places, 2.0 * opts.round_trip_jitter_ns)?;
    let mut scan = if opts.jittery() {
        phase_scan::scan_by_phase(&mut probe, 0, cap, md, period)?
    } else {
        geometry::scan(&mut probe, 0, cap, md)?
    };
    unmarked::merge_slip_runs(&mut scan, period);
    unmarked::split_long_runs(&mut scan, period);
    let kinds = zones::classify(&scan, period);
    let guess: Vec<zones::Crossing> = kinds.iter().map(|k| k.guess()).collect();
    let mut table = zones::build_table(&scan, &guess, period, cap, None)?;
    phases::measure_phases(&mut probe, &mut table, period, opts.jittery())?;
    let table = cylinders::resolve(&mut probe, &scan, &kinds, &table, period, &opts, &mut rng)?;
    let lags = min_offset::measure_lags(&mut probe, &table, period, &opts, &mut rng)?;
    let delta = delta::search_delta(
        &mut probe,
        &table,
        period,
        DELTA_TRIALS,
        opts.delta_misses(),
        &mut rng,
    )?;
    let sector_ns = table
        .zones
        .iter()
        .map(|z| (z.end_lbn - z.first_lbn) as f64 * period / z.sectors_per_track as f64)
        .sum::<f64>()
        / cap as f64;
    let lbn_curve = lbn_curve::measure_lbn_curve(&mut probe, 24, sector_ns, &mut rng)?;
    let offset_fits = if opts.paper_min_offset {
        min_offset::paper_min_offset(&mut probe, &table, &lags, period, 24)?
    } else {
        vec![]
    };
    Ok(ExtractedDrive {
        name: name.to_string(),
        period_ns: period,
        rotation,
        min_distance_sectors: md,
        table,
        scan,
        delta_sectors: delta.delta_sectors,
        delta,
        lags,
        lbn_curve,
        offset_fits,
        round_trip_jitter_ns: opts.round_trip_jitter_ns,
        measured_round_trip_spread_ns: None,
        commands: probe.commands,
        simulated_s: probe.now() as f64 / 1e9,
    })
}

/// The settings of the drive's caching mode page (SCSI mode page 08h) that calibration asks
/// for with MODE SELECT before it starts, as `sdparm --set WCE=0 --set DRA=1` would on real
/// hardware. Calibration times the media: a write acknowledged from the buffer ("fast
/// write") completes before it reaches the platter, and a read served from read-ahead data
/// never moves the head, so neither timing says anything about the disk's geometry. The
/// host restores its own settings afterwards; the drive it then runs against is the one the
/// description specifies. A drive with no cache ignores the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CachingPage {
    /// WCE: writes complete only once on the media when false.
    pub write_cache: bool,
    /// Not DRA: the drive reads ahead after a read into its buffer when true.
    pub read_ahead: bool,
}

impl CachingPage {
    /// What calibration needs: every command goes to the media.
    pub const CALIBRATION: CachingPage = CachingPage {
        write_cache: false,
        read_ahead: false,
    };

    /// The drive description with this page selected. Only the mode-page bits change;
    /// everything the drive does on its own (zero-latency access, its overheads) stays.
    pub(crate) fn select(&self, spec: &HddSpec) -> HddSpec {
        let mut spec = spec.clone();
        if let Some(c) = spec.cache.as_mut() {
            if !self.write_cache {
                c.fast_write_level = 0;
            }
            if !self.read_ahead {
                c.buffer_continuous_read = 0;
                c.min_read_ahead_sectors = 0;
                c.max_read_ahead_sectors = 0;
                c.read_ahead_on_idle_hit = false;
            }
        }
        spec
    }
}

/// A fresh copy of the drive `spec` describes, with its imperfections, to calibrate (the
/// imperfections draw from calibration's own random stream: the same drive, another day),
/// with the caching mode page calibration selects ([`CachingPage::CALIBRATION`]).
pub fn device_for(spec: &HddSpec, imperfections: &Imperfections) -> Result<Box<dyn Device>> {
    let device = HddDevice::new(&CachingPage::CALIBRATION.select(spec), 1)?;
    let mech = device.mechanics().clone();
    Ok(with_imperfections(
        Box::new(device),
        mech,
        imperfections,
        &RngStreams::new(CALIBRATION_SEED),
    ))
}

type Cache = Mutex<HashMap<String, Arc<ExtractedDrive>>>;

/// [`extract`] once per drive description and link per process: every run of an experiment
/// sweep shares one calibration, as a host calibrates a drive once.
pub fn extract_cached(
    spec: &HddSpec,
    link: Link,
    imperfections: &Imperfections,
) -> Result<Arc<ExtractedDrive>> {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let key = format!(
        "{}|{}|{}|{}",
        serde_json::to_string(spec).unwrap_or_else(|_| spec.name.clone()),
        link.command_ns,
        link.completion_ns,
        serde_json::to_string(imperfections).unwrap_or_default()
    );
    let cache = CACHE.get_or_init(Default::default);
    if let Some(d) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(d.clone());
    }
    // Calibrate outside the lock: two threads may both calibrate once, never wrongly.
    let d = Arc::new(extract(
        device_for(spec, imperfections)?,
        link,
        &spec.name,
        ExtractOptions::default(),
    )?);
    cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, d.clone());
    Ok(d)
}
