//! `[[arrays]]`: logical volumes striped, mirrored or parity-protected over several
//! `[[devices]]`. The keys cover DiskSim's logical organisations (`Striped`, `Shadowed`,
//! `Parity_disk`, `Parity_rotated`: stripe unit, parity stripe unit, rotation type, the
//! RMW-versus-reconstruct breakpoint, copies, copy choice on read, synchronised writes), so a
//! DiskSim experiment maps onto them key for key.

use serde::Deserialize;

use crate::error::{HeadwayError, Result};

pub use super::cache_settings::{CacheDeviceConfig, CacheWrite};

/// One logical volume over several devices.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ArrayConfig {
    /// The volume's name: workloads address it with `device = "<name>"`.
    pub name: String,
    pub level: ArrayLevel,
    /// Member device names (`[[devices]]` names), in layout order.
    pub members: Vec<String>,
    /// Sectors of one member's share of a stripe (DiskSim's `Stripe unit`).
    #[serde(default = "default_stripe_unit_sectors")]
    pub stripe_unit_sectors: u64,
    /// Sectors of each member the volume uses, from sector 0 (default: the whole member):
    /// a short-stroked volume, or a quick rebuild study.
    #[serde(default)]
    pub member_sectors: Option<u64>,
    /// Parity unit (DiskSim's `Parity stripe unit`); headway rotates parity per stripe
    /// unit, so when given it must equal `stripe_unit_sectors`.
    #[serde(default)]
    pub parity_stripe_unit_sectors: Option<u64>,
    /// Where parity sits in each stripe (RAID 5 and 6; DiskSim's `Parity rotation type` 1-4).
    #[serde(default)]
    pub parity_rotation: ParityRotation,
    /// How a write that covers part of a stripe updates parity.
    #[serde(default)]
    pub small_write: SmallWrite,
    /// DiskSim's `RMW vs. reconstruct` breakpoint: with it, a partial-stripe write uses
    /// read-modify-write when it updates fewer than this fraction of the stripe's data
    /// units, else reconstruct-write (instead of `small_write`).
    #[serde(default)]
    pub rmw_fraction: Option<f64>,
    /// With `rmw_fraction`, partial-row writes planned as DiskSim 4.0 plans them: a
    /// two-unit write that leaves a gap of offsets between its two ends updates them as two
    /// one-unit rows, each end with its own parity range, and a write's operations on one
    /// member at most 32 sectors apart are joined into one. Default false: parity over the
    /// span of the row the write touches, one operation per row.
    #[serde(default)]
    pub disksim_small_writes: bool,
    /// A read-modify-write issues its writes only once all its reads are done (DiskSim's
    /// `Synch writes for safety`); false: each data write follows its own old-data read.
    #[serde(default = "default_true")]
    pub sync_writes: bool,
    /// Copies of each datum in RAID 10 (members form groups of `copies`); RAID 1 keeps one
    /// copy per member. Default 2.
    #[serde(default)]
    pub copies: Option<u32>,
    /// Which copy serves a mirrored read (RAID 1 and 10).
    #[serde(default)]
    pub mirror_read: MirrorRead,
    /// A device outside the members that a rebuild writes onto.
    #[serde(default)]
    pub spare: Option<String>,
    /// A member failing during the run.
    #[serde(default)]
    pub failure: Option<FailureConfig>,
    /// Rebuilding the failed member onto `spare`.
    #[serde(default)]
    pub rebuild: Option<BackgroundConfig>,
    /// Reading and verifying every stripe.
    #[serde(default)]
    pub scrub: Option<BackgroundConfig>,
    /// `level = "cache-device"`: how the first member caches the second.
    #[serde(default)]
    pub cache: Option<CacheDeviceConfig>,
}

fn default_stripe_unit_sectors() -> u64 {
    128
}

fn default_true() -> bool {
    true
}

/// The RAID level.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ArrayLevel {
    /// Striping, no redundancy.
    Raid0,
    /// Every member holds the whole volume.
    Raid1,
    /// Striping over mirrored groups of `copies` members.
    Raid10,
    /// Striping with parity on the last member.
    Raid4,
    /// Striping with rotated parity.
    Raid5,
    /// Striping with two rotated parity units, P and Q.
    Raid6,
    /// The first member caches the second (DiskSim's `disksim_cachedev`).
    #[serde(rename = "cache-device")]
    CacheDevice,
}

impl ArrayLevel {
    /// The fewest members the level takes.
    pub(crate) fn min_members(self) -> usize {
        match self {
            ArrayLevel::Raid0 => 1,
            ArrayLevel::Raid1 | ArrayLevel::Raid10 | ArrayLevel::CacheDevice => 2,
            ArrayLevel::Raid4 | ArrayLevel::Raid5 => 3,
            ArrayLevel::Raid6 => 4,
        }
    }
    pub(crate) fn parity_units(self) -> usize {
        match self {
            ArrayLevel::Raid4 | ArrayLevel::Raid5 => 1,
            ArrayLevel::Raid6 => 2,
            _ => 0,
        }
    }
    pub(crate) fn name(self) -> &'static str {
        match self {
            ArrayLevel::Raid0 => "raid0",
            ArrayLevel::Raid1 => "raid1",
            ArrayLevel::Raid10 => "raid10",
            ArrayLevel::Raid4 => "raid4",
            ArrayLevel::Raid5 => "raid5",
            ArrayLevel::Raid6 => "raid6",
            ArrayLevel::CacheDevice => "cache-device",
        }
    }
}

/// Parity placement per stripe (Lee and Katz's four rotations; DiskSim types 1-4).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum ParityRotation {
    /// Parity moves left one member per stripe; data starts just right of it, wrapping.
    #[default]
    LeftSymmetric,
    /// Parity moves left one member per stripe; data fills the other members in order.
    LeftAsymmetric,
    /// Parity moves right one member per stripe; data fills the other members in order.
    RightAsymmetric,
    /// Parity moves right one member per stripe; data starts just right of it, wrapping.
    RightSymmetric,
}

/// The parity-update rule for writes that cover part of a stripe.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SmallWrite {
    /// Whichever of read-modify-write and reconstruct-write needs fewer member I/Os;
    /// a tie goes to read-modify-write.
    #[default]
    FewestIos,
    /// Always read old data and old parity, write new data and new parity.
    Rmw,
    /// Always read the stripe's untouched data, write new data and new parity.
    Reconstruct,
}

/// Which copy serves a mirrored read.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum MirrorRead {
    /// The copy whose member's predictor expects to finish it first (queued work
    /// included).
    #[default]
    Fastest,
    /// Always the first copy (DiskSim copy choice 1).
    Primary,
    /// Copies in turn (DiskSim 3).
    RoundRobin,
    /// The copy with the fewest commands queued and outstanding; ties to the first
    /// (DiskSim 5).
    ShortestQueue,
}

/// A member failing at a set time.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FailureConfig {
    /// The failing member's device name.
    pub member: String,
    /// When it fails (milliseconds of simulated time).
    pub at_ms: f64,
}

/// How background work (rebuild or scrub) is paced.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BackgroundConfig {
    pub policy: BackgroundPolicy,
    /// `rate`: megabytes (10^6 bytes) of the volume's stripes per second.
    #[serde(default)]
    pub rate_mb_s: Option<f64>,
    /// `idle`: the members must have been idle this long (milliseconds) before a unit
    /// starts. Default 50.
    #[serde(default)]
    pub idle_ms: Option<f64>,
    /// Sectors per step on each member: a divisor or a multiple of the stripe unit
    /// (several rows a step); default the stripe unit.
    #[serde(default)]
    pub unit_sectors: Option<u64>,
    /// When the work starts (milliseconds); a rebuild defaults to the failure time, a
    /// scrub to 0.
    #[serde(default)]
    pub start_ms: Option<f64>,
    /// `rate`: steps in flight at once (default 8); 1 runs one step at a time.
    #[serde(default)]
    pub rate_window_steps: Option<u32>,
    /// A rebuild's writes onto the spare: as soon as a row's reads are in (default), or
    /// only once the spare has had no foreground for `idle_ms`.
    #[serde(default)]
    pub spare_writes: SpareWrites,
}

/// When a rebuild writes a reconstructed row onto the spare.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SpareWrites {
    /// As soon as the row's reads are in.
    #[default]
    Immediate,
    /// Held until the spare has had no foreground operation for `idle_ms`, one at a time.
    Idle,
}

/// Pacing of rebuild and scrub.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum BackgroundPolicy {
    /// A fixed rate (`rate_mb_s`).
    Rate,
    /// Only after the members have been idle for `idle_ms`.
    Idle,
    /// In the foreground's rotational gaps (the freeblock scheduler's background pool).
    Freeblock,
}

impl ArrayConfig {
    /// Copies of each datum: every member for RAID 1, `copies` (default 2) for RAID 10,
    /// one otherwise.
    pub(crate) fn copies_of_each(&self) -> usize {
        match self.level {
            ArrayLevel::Raid1 => self.members.len(),
            ArrayLevel::Raid10 => self.copies.unwrap_or(2) as usize,
            _ => 1,
        }
    }

    /// Checks that need only the config (member sizes are checked when the drives are
    /// built). `at` is the table's key (`arrays[0]`), `devices` the run's device names.
    pub(crate) fn validate(&self, at: &str, devices: &[&str]) -> Result<()> {
        let key = |k: &str| format!("{at}.{k}");
        if self.name.is_empty() {
            return Err(HeadwayError::config(key("name"), "must not be empty"));
        }
        if devices.contains(&self.name.as_str()) {
            return Err(HeadwayError::config(
                key("name"),
                format!(
                    "`{}` already names a device; a volume needs its own name",
                    self.name
                ),
            ));
        }
        let level = self.level.name();
        let n = self.members.len();
        validate_cache_level(self, at)?;
        if n < self.level.min_members() {
            return Err(HeadwayError::config(
                key("members"),
                format!(
                    "{level} needs at least {} members, got {n}",
                    self.level.min_members()
                ),
            ));
        }
        for (i, m) in self.members.iter().enumerate() {
            if !devices.contains(&m.as_str()) {
                return Err(unknown_device(&key("members"), m, devices));
            }
            if self.members[..i].contains(m) {
                return Err(HeadwayError::config(
                    key("members"),
                    format!("`{m}` is listed twice"),
                ));
            }
        }
        if self.stripe_unit_sectors == 0 {
            return Err(HeadwayError::config(
                key("stripe_unit_sectors"),
                "must be at least 1",
            ));
        }
        if let Some(p) = self.parity_stripe_unit_sectors {
            if p != self.stripe_unit_sectors {
                return Err(HeadwayError::config(
                    key("parity_stripe_unit_sectors"),
                    format!(
                        "parity is rotated per stripe unit: must equal stripe_unit_sectors ({}), \
                         got {p}",
                        self.stripe_unit_sectors
                    ),
                ));
            }
        }
        if let Some(f) = self.rmw_fraction {
            if !(0.0..=1.0).contains(&f) {
                return Err(HeadwayError::config(
                    key("rmw_fraction"),
                    format!("must be from 0 to 1, got {f}"),
                ));
            }
            if self.small_write != SmallWrite::FewestIos {
                return Err(HeadwayError::config(
                    key("rmw_fraction"),
                    "give small_write or rmw_fraction, not both",
                ));
            }
            if self.level.parity_units() == 0 {
                return Err(HeadwayError::config(
                    key("rmw_fraction"),
                    format!("{level} keeps no parity"),
                ));
            }
        }
        if self.disksim_small_writes && self.rmw_fraction.is_none() {
            return Err(HeadwayError::config(
                key("disksim_small_writes"),
                "needs rmw_fraction (DiskSim's breakpoint)",
            ));
        }
        if let Some(c) = self.copies {
            if self.level != ArrayLevel::Raid10 {
                return Err(HeadwayError::config(
                    key("copies"),
                    format!(
                        "only raid10 takes copies (raid1 keeps a copy on every member), not {level}"
                    ),
                ));
            }
            if c < 2 {
                return Err(HeadwayError::config(key("copies"), "must be at least 2"));
            }
        }
        if self.level == ArrayLevel::Raid10 {
            let c = self.copies_of_each();
            if !n.is_multiple_of(c) {
                return Err(HeadwayError::config(
                    key("members"),
                    format!("raid10 with {c} copies needs a multiple of {c} members, got {n}"),
                ));
            }
        }
        if let Some(s) = &self.spare {
            if !devices.contains(&s.as_str()) {
                return Err(unknown_device(&key("spare"), s, devices));
            }
            if self.members.contains(s) {
                return Err(HeadwayError::config(
                    key("spare"),
                    format!("`{s}` is a member; the spare must be another device"),
                ));
            }
        }
        if let Some(f) = &self.failure {
            if !self.members.contains(&f.member) {
                return Err(HeadwayError::config(
                    key("failure.member"),
                    format!(
                        "`{}` is not a member of `{}`; members: {}",
                        f.member,
                        self.name,
                        self.members.join(", ")
                    ),
                ));
            }
            if !(f.at_ms >= 0.0 && f.at_ms.is_finite()) {
                return Err(HeadwayError::config(
                    key("failure.at_ms"),
                    format!("must be a time of 0 ms or more, got {}", f.at_ms),
                ));
            }
            if self.level == ArrayLevel::Raid0 {
                return Err(HeadwayError::config(
                    key("failure"),
                    "raid0 keeps no redundancy: a failed member loses the volume",
                ));
            }
        }
        if let Some(r) = &self.rebuild {
            if self.failure.is_none() {
                return Err(HeadwayError::config(
                    key("rebuild"),
                    "a rebuild needs a failure (failure = { member = ..., at_ms = ... })",
                ));
            }
            if self.spare.is_none() {
                return Err(HeadwayError::config(
                    key("spare"),
                    "a rebuild needs a spare device to write onto (spare = \"<device>\")",
                ));
            }
            r.validate(&key("rebuild"), self.stripe_unit_sectors, true)?;
        }
        if let Some(s) = &self.scrub {
            if self.level == ArrayLevel::Raid0 {
                return Err(HeadwayError::config(
                    key("scrub"),
                    "raid0 keeps no redundancy to verify",
                ));
            }
            s.validate(&key("scrub"), self.stripe_unit_sectors, false)?;
        }
        Ok(())
    }
}

impl BackgroundConfig {
    fn validate(&self, at: &str, stripe_unit_sectors: u64, rebuild: bool) -> Result<()> {
        let key = |k: &str| format!("{at}.{k}");
        let positive = |k: &str, v: Option<f64>| match v {
            Some(x) if !(x > 0.0 && x.is_finite()) => Err(HeadwayError::config(
                key(k),
                format!("must be a positive number, got {x}"),
            )),
            _ => Ok(()),
        };
        positive("rate_mb_s", self.rate_mb_s)?;
        positive("idle_ms", self.idle_ms)?;
        if let Some(t) = self.start_ms {
            if !(t >= 0.0 && t.is_finite()) {
                return Err(HeadwayError::config(
                    key("start_ms"),
                    format!("must be a time of 0 ms or more, got {t}"),
                ));
            }
        }
        if self.policy == BackgroundPolicy::Rate && self.rate_mb_s.is_none() {
            return Err(HeadwayError::config(
                key("rate_mb_s"),
                "policy = \"rate\" needs rate_mb_s",
            ));
        }
        if let Some(w) = self.rate_window_steps {
            if self.policy != BackgroundPolicy::Rate {
                return Err(HeadwayError::config(
                    key("rate_window_steps"),
                    "only policy = \"rate\" keeps several steps in flight",
                ));
            }
            if w == 0 {
                return Err(HeadwayError::config(
                    key("rate_window_steps"),
                    "must be at least 1 (one step in flight at a time)",
                ));
            }
        }
        if !rebuild && self.spare_writes != SpareWrites::Immediate {
            return Err(HeadwayError::config(
                key("spare_writes"),
                "a scrub writes nothing: spare_writes paces a rebuild's writes onto the spare",
            ));
        }
        if let Some(u) = self.unit_sectors {
            let fits = u > 0
                && (stripe_unit_sectors.is_multiple_of(u) || u.is_multiple_of(stripe_unit_sectors));
            if !fits {
                return Err(HeadwayError::config(
                    key("unit_sectors"),
                    format!(
                        "must divide the stripe unit ({stripe_unit_sectors} sectors) or be a \
                         multiple of it, got {u}"
                    ),
                ));
            }
        }
        Ok(())
    }
}

fn unknown_device(key: &str, name: &str, devices: &[&str]) -> HeadwayError {
    HeadwayError::config(
        key,
        format!(
            "no device is named `{name}`; devices: {}",
            devices.join(", ")
        ),
    )
}

/// Check the volumes against each other and against the workloads that address them.
pub(crate) fn validate_arrays(arrays: &[ArrayConfig], devices: &[&str]) -> Result<()> {
    for (i, a) in arrays.iter().enumerate() {
        let at = format!("arrays[{i}]");
        a.validate(&at, devices)?;
        if arrays[..i].iter().any(|b| b.name == a.name) {
            return Err(HeadwayError::config(
                format!("{at}.name"),
                format!("two arrays are named `{}`; names must be unique", a.name),
            ));
        }
        let used = |d: &String| {
            arrays[..i]
                .iter()
                .find(|b| b.members.contains(d) || b.spare.as_ref() == Some(d))
        };
        for d in a.members.iter().chain(a.spare.iter()) {
            if let Some(b) = used(d) {
                return Err(HeadwayError::config(
                    format!("{at}.members"),
                    format!("`{d}` already belongs to array `{}`", b.name),
                ));
            }
        }
    }
    Ok(())
}

/// The checks tying `level`, `members` and `cache` together.
fn validate_cache_level(a: &ArrayConfig, at: &str) -> Result<()> {
    let key = |k: &str| format!("{at}.{k}");
    if a.level != ArrayLevel::CacheDevice {
        if a.cache.is_some() {
            return Err(HeadwayError::config(
                key("cache"),
                format!(
                    "only level = \"cache-device\" takes a cache table, not {}",
                    a.level.name()
                ),
            ));
        }
        return Ok(());
    }
    if a.members.len() != 2 {
        return Err(HeadwayError::config(
            key("members"),
            format!(
                "cache-device takes two members, the cache device then the disk it caches; \
                 got {}",
                a.members.len()
            ),
        ));
    }
    let redundancy = [
        ("spare", a.spare.is_some()),
        ("failure", a.failure.is_some()),
        ("rebuild", a.rebuild.is_some()),
        ("scrub", a.scrub.is_some()),
    ];
    if let Some((k, _)) = redundancy.iter().find(|(_, set)| *set) {
        return Err(HeadwayError::config(
            key(k),
            "a cache-device volume keeps no redundancy to fail, rebuild or scrub",
        ));
    }
    if let Some(c) = &a.cache {
        if c.size_sectors == Some(0) {
            return Err(HeadwayError::config(
                key("cache.size_sectors"),
                "must be at least 1",
            ));
        }
        if c.max_outstanding == Some(0) {
            return Err(HeadwayError::config(
                key("cache.max_outstanding"),
                "must be at least 1",
            ));
        }
        if !(c.destage_idle_ms >= 0.0 && c.destage_idle_ms.is_finite()) {
            return Err(HeadwayError::config(
                key("cache.destage_idle_ms"),
                format!("must be 0 ms or more, got {}", c.destage_idle_ms),
            ));
        }
    }
    Ok(())
}
