//! `[drive]` and `[[devices]]`: which device, and the settings of a rotating drive that both
//! forms take ([`DriveSettings`], written once and read into either table).
//!
//! Both tables are read key by key (see `table_keys`), not with serde's `flatten`: a
//! flattened struct is parsed from a buffered copy of the table, so its type errors lose
//! their line and `deny_unknown_fields` stops working.

use std::sync::OnceLock;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

use crate::device::flash::FlashSpec;
use crate::device::hdd::interface::InterfaceChoice;
use crate::device::hdd::{FirmwareFreeblockConfig, SptfAngle};
use crate::device::imperfect::Imperfections;
use crate::device::power::PowerSpec;
use crate::device::smr::SmrSpec;
use crate::device::zoned::ZonedSpec;
use crate::host::ctlr_cache::settings::CtlrCacheConfig;
use crate::predict::PredictorOptions;
use crate::table_keys::{key_group, KnownKey};

/// The settings of one rotating drive, the same under `[drive]` and in a `[[devices]]`
/// entry.
#[derive(Clone, Debug, PartialEq)]
pub struct DriveSettings {
    /// Commands the drive accepts at once. Default: 1 (the host does all scheduling).
    pub queue_depth: usize,
    /// How the drive orders its own queue (`fcfs`, `sstf`, `look`, `clook`, `sptf`); default:
    /// the policy its parameter file names (DiskSim's "Scheduling policy").
    pub firmware_scheduler: Option<String>,
    /// Where the firmware's SPTF ranks its queue from: `decision` (default: where the head
    /// is when it decides) or `last-media-event` (DiskSim 4.0's: the head's track and angle
    /// at the end of the last sector the mechanism moved, to reproduce DiskSim's results).
    pub firmware_sptf_angle: Option<SptfAngle>,
    /// `[drive.firmware_freeblock]`: the firmware fills the rotational latency of the reads
    /// it starts with free reads of a background scan (the freeblock paper's simulated upper
    /// bound; `docs/freeblock.md`). Default: off.
    pub firmware_freeblock: Option<FirmwareFreeblockConfig>,
    /// The drive's bus time per sector, reads and writes (ms), in place of its parameters'
    /// (e.g. a catalog drive behind a faster interface: Ultra2 Wide SCSI, 80 MB/s, is
    /// 0.0064 ms). Default: the parameters'.
    pub bus_sector_transfer_ms: Option<f64>,
    /// A named host interface whose payload rate sets the bus time per sector
    /// (`device::hdd::interface`: `ultra2`, `ultra160`, `ata100`, `sata6g`, ...); not with
    /// `bus_sector_transfer_ms`. Default: the parameters' bus (`validated`).
    pub interface: Option<InterfaceChoice>,
    /// Bus overlap: the drive positions for its next queued command while it still sends
    /// the previous one's data (`device::hdd::overlap`). Default: off, as DiskSim.
    pub bus_overlap: bool,
    /// `[drive.imperfections]`: seek jitter, spindle drift and the drive's own head
    /// movements, added to the model (default: none).
    pub imperfections: Imperfections,
    /// `[drive.smr]`: drive-managed shingled recording over this drive's mechanics (a
    /// media cache and bands, `docs/smr.md`), in place of any `[smr]` its drive file has.
    /// Default: the drive file's (none for a conventional drive).
    pub smr: Option<SmrSpec>,
    /// `[drive.zoned]`: host-managed (or host-aware) zones over this drive, in place of any
    /// `[zoned]` its drive file has (`docs/smr.md`). Default: the drive file's (none).
    pub zoned: Option<ZonedSpec>,
    /// `actuator = 0` or `1` (a `[[devices]]` entry naming a dual-actuator drive): this
    /// device is that arm alone, addressing its half of the LBNs from 0; two entries of the
    /// same drive, one per arm, share its spindle, cache and link
    /// (docs/dual-actuator.md). Default: the drive is one device.
    pub actuator: Option<u8>,
}

impl Default for DriveSettings {
    fn default() -> Self {
        DriveKeys::default().into_settings()
    }
}

key_group! {
    /// The keys of [`DriveSettings`].
    struct DriveKeys {
        queue_depth: usize,
        firmware_scheduler: String,
        firmware_sptf_angle: SptfAngle,
        firmware_freeblock: FirmwareFreeblockConfig,
        bus_sector_transfer_ms: f64,
        interface: InterfaceChoice,
        bus_overlap: bool,
        imperfections: Imperfections,
        smr: SmrSpec,
        zoned: ZonedSpec,
        actuator: u8,
    }
}

impl DriveKeys {
    fn into_settings(self) -> DriveSettings {
        DriveSettings {
            queue_depth: self.queue_depth.unwrap_or(1),
            firmware_scheduler: self.firmware_scheduler,
            firmware_sptf_angle: self.firmware_sptf_angle,
            firmware_freeblock: self.firmware_freeblock,
            bus_sector_transfer_ms: self.bus_sector_transfer_ms,
            interface: self.interface,
            bus_overlap: self.bus_overlap.unwrap_or(false),
            imperfections: self.imperfections.unwrap_or_default(),
            smr: self.smr,
            zoned: self.zoned,
            actuator: self.actuator,
        }
    }
}

/// `[drive]`: which drive, and its settings.
#[derive(Clone, Debug, PartialEq)]
pub struct DriveConfig {
    /// A catalog name (`headway disks`), or a path to a drive file: headway TOML, or a
    /// DiskSim `.parv` / `.diskspecs`.
    pub name: String,
    pub settings: DriveSettings,
}

impl Default for DriveConfig {
    fn default() -> Self {
        DriveConfig {
            name: default_drive(),
            settings: DriveSettings::default(),
        }
    }
}

/// One `[[devices]]` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceConfig {
    /// How workloads (`device = "..."`) and the results name it.
    pub name: String,
    /// A catalog name or a drive file, as `[drive] name`.
    pub drive: String,
    /// As under `[drive]`.
    pub settings: DriveSettings,
    /// The host's model of this device (`oracle`, `calibrated`, `lbn-curve`).
    pub predictor: String,
    pub predictor_options: PredictorOptions,
    /// Commands the host keeps outstanding here; default the queue depth.
    pub max_outstanding: Option<usize>,
    /// `drive = "flash"`: the flash device's geometry and timing (default: the Ultra II CF
    /// stand-in, 128 MiB).
    pub flash: Option<FlashSpec>,
    /// Power states of a rotating drive (off when absent: the drive is as before).
    pub power: Option<PowerSpec>,
    /// `drive = "hybrid"`: the platter drive in the enclosure (a catalog drive or drive
    /// file); `flash` is then its NVCache (default: the Ultra II CF stand-in, 128 MiB).
    pub platter: Option<String>,
    /// `drive = "hybrid"`: platter and flash serve at the same time (default: one command
    /// at a time through one channel, the spec's serialised assumption).
    pub concurrent: bool,
    /// `drive = "hybrid"`: ATA-8 NVCache pins made before the run.
    pub pins: Vec<PinConfig>,
    /// A memory cache in the device's controller, between the host's scheduler and the
    /// device (none: requests go to the device).
    pub cache: Option<CtlrCacheConfig>,
    /// The bus this device shares with every other device naming the same one (one
    /// device's command phase at a time, `link/shared_bus.rs`); `None`: a bus of its own.
    pub shared_bus: Option<String>,
}

key_group! {
    /// The keys of a `[[devices]]` entry besides the drive settings'.
    struct DeviceKeys {
        name: String,
        drive: String,
        predictor: String,
        predictor_options: PredictorOptions,
        max_outstanding: usize,
        flash: FlashSpec,
        power: PowerSpec,
        platter: String,
        concurrent: bool,
        pins: Vec<PinConfig>,
        cache: CtlrCacheConfig,
        shared_bus: String,
    }
}

/// One ATA-8 NVCache pin of a hybrid drive: `sectors` LBAs from `lbn`; `populate`: Populate
/// Immediate (the flash is filled from the platter, so reads of the range are served by
/// flash at once; without it the next host write of the range lands in flash).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PinConfig {
    pub lbn: u64,
    pub sectors: u64,
    #[serde(default)]
    pub populate: bool,
}

pub(super) fn default_drive() -> String {
    "atlas10k".into()
}

pub(super) fn default_predictor() -> String {
    "oracle".into()
}

/// `[drive]`'s keys, in the order errors list them.
fn drive_keys() -> &'static [&'static str] {
    static KEYS: OnceLock<Vec<&'static str>> = OnceLock::new();
    KEYS.get_or_init(|| [&["name"], DriveKeys::KEYS].concat())
}

/// A `[[devices]]` entry's keys, in the order errors list them.
fn device_keys() -> &'static [&'static str] {
    static KEYS: OnceLock<Vec<&'static str>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let (names, rest) = DeviceKeys::KEYS.split_at(2);
        [names, DriveKeys::KEYS, rest].concat()
    })
}

impl<'de> Deserialize<'de> for DriveConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = DriveConfig;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a drive table")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<DriveConfig, A::Error> {
                let mut name = None;
                let mut settings = DriveKeys::default();
                while let Some(key) = map.next_key_seed(KnownKey(drive_keys()))? {
                    if key == "name" {
                        name = Some(map.next_value()?);
                    } else {
                        settings.read(key, &mut map)?;
                    }
                }
                Ok(DriveConfig {
                    name: name.unwrap_or_else(default_drive),
                    settings: settings.into_settings(),
                })
            }
        }
        d.deserialize_map(V)
    }
}

impl<'de> Deserialize<'de> for DeviceConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = DeviceConfig;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a device table")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<DeviceConfig, A::Error> {
                let mut own = DeviceKeys::default();
                let mut settings = DriveKeys::default();
                while let Some(key) = map.next_key_seed(KnownKey(device_keys()))? {
                    if !settings.read(key, &mut map)? {
                        own.read(key, &mut map)?;
                    }
                }
                Ok(DeviceConfig {
                    name: own.name.ok_or_else(|| de::Error::missing_field("name"))?,
                    drive: own.drive.unwrap_or_else(default_drive),
                    settings: settings.into_settings(),
                    predictor: own.predictor.unwrap_or_else(default_predictor),
                    predictor_options: own.predictor_options.unwrap_or_default(),
                    max_outstanding: own.max_outstanding,
                    flash: own.flash,
                    power: own.power,
                    platter: own.platter,
                    concurrent: own.concurrent.unwrap_or(false),
                    pins: own.pins.unwrap_or_default(),
                    cache: own.cache,
                    shared_bus: own.shared_bus,
                })
            }
        }
        d.deserialize_map(V)
    }
}
