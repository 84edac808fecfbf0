//! A complete, file-independent description of a disk drive. DiskSim parameter files and
//! headway's own catalog TOML both parse into [`HddSpec`]; the device model and the oracle
//! predictor are built from it. Units are in the field names.

use serde::{Deserialize, Serialize};

/// Far more cylinders than any real drive has (a 20 TB drive has about 500,000). The seek
/// tables are dense in the cylinder count, so a typo must not become gigabytes of them.
pub const MAX_CYLINDERS: u32 = 10_000_000;

/// Far more recording surfaces than any real drive has (about ten platters, twenty surfaces).
pub const MAX_SURFACES: u32 = 1024;

/// Everything needed to simulate one drive.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HddSpec {
    /// Catalog name (lower case, e.g. `atlas10k`).
    pub name: String,
    /// Human description: make, model, where the numbers come from.
    #[serde(default)]
    pub description: String,
    pub rpm: f64,
    pub surfaces: u32,
    pub cylinders: u32,
    /// Logical blocks (512-byte sectors) exported; checked against the layout.
    pub block_count: u64,
    pub layout: LayoutSpec,
    pub seek: SeekSpec,
    #[serde(default)]
    pub head_switch_ms: f64,
    /// Extra settling before a write may start after a seek or head switch.
    #[serde(default)]
    pub write_settle_ms: f64,
    #[serde(default)]
    pub overheads: OverheadSpec,
    #[serde(default)]
    pub bus: BusSpec,
    /// On-board cache; `None` means no cache (every access is mechanical).
    #[serde(default)]
    pub cache: Option<CacheSpec>,
    #[serde(default)]
    pub queue: QueueSpec,
    /// Independent arms (1 or 2). With 2, each arm carries half the surfaces and serves half
    /// the LBN range, sharing the spindle, the cache's size and the link (`device/hdd/dual.rs`).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub actuators: u32,
    /// Drive-managed shingled recording (`[smr]`): a media cache and bands over these
    /// mechanics; `None` for a conventional (CMR) drive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smr: Option<crate::device::smr::SmrSpec>,
    /// Host-managed (or host-aware) zones (`[zoned]`); `None`: a drive without zones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zoned: Option<crate::device::zoned::ZonedSpec>,
    /// What the reader of the drive's files did differently from what they declare (a
    /// Block count its zones disagree with), each as one line for the run's warnings.
    #[serde(skip)]
    pub reader_warnings: Vec<String>,
}

/// How logical blocks are laid out on the platters. The semantics follow DiskSim 4.0's
/// `dm_layout_g1`; `layout.rs` documents every interpretation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayoutSpec {
    /// DiskSim "LBN-to-PBN mapping scheme": 0 conventional (every cylinder walks surfaces
    /// 0..n), 1 serpentine restarting at each zone (odd cylinders of a zone walk surfaces
    /// n..0), 2 serpentine by absolute cylinder number (odd cylinders walk n..0).
    #[serde(default)]
    pub mapping_scheme: u32,
    pub sparing: Sparing,
    /// DiskSim "Rangesize for sparing": cylinders per sparing range (only
    /// [`Sparing::RangeEnd`] uses it).
    #[serde(default = "one")]
    pub range_size: u32,
    pub zones: Vec<ZoneSpec>,
    /// Sectors the drive exports, when the zone table maps more than that. DIXtrac-extracted
    /// zone tables often cover physical space past the drive's last LBN (DiskSim then silently
    /// exports its own larger count); the layout maps exactly as the zones say and exports
    /// only the first `exported_sectors` LBNs. `None`: export everything the zones map.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exported_sectors: Option<u64>,
}

fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

/// Where spare space sits and what a slipped defect displaces: DiskSim 4.0's "Sparing scheme
/// used", one variant per scheme number ([`Sparing::from_disksim`]). A *unit* is the region
/// whose spares absorb its own slips (track, cylinder, range, zone). "Slip to disk end"
/// schemes do not use the unit's spares for slips: every slip pushes the rest of the zone's
/// LBNs one sector along and the zone exports one LBN fewer (DiskSim counts it that way).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sparing {
    /// 0: no spare space; slips and remaps are not allowed.
    None,
    /// 1: `spares` whole tracks at the end of each zone; slips and defects are zone-relative
    /// *track* numbers (a slipped track is skipped entirely).
    ZoneEndTracks,
    /// 2: `spares` sectors at the end of each cylinder (the ST41601N's 6 per cylinder).
    CylinderEnd,
    /// 3: `spares` sectors at the end of each track.
    TrackEnd,
    /// 4: `spares` sectors at the end of each cylinder, slips pushed to the zone's end.
    CylinderEndSlipToDiskEnd,
    /// 5: `spares` sectors at the front of each cylinder.
    CylinderFront,
    /// 6: `spares` sectors at the front of each cylinder, slips pushed to the zone's end.
    CylinderFrontSlipToDiskEnd,
    /// 7: spares "at the end of the disk": no spare space inside the zone (`spares` must be
    /// 0); every slip pushes the rest of the zone along and costs the zone one LBN.
    DiskEnd,
    /// 8: `spares` sectors at the end of each range of `range_size` cylinders; a final partial
    /// range of a zone has no spares.
    RangeEnd,
    /// 9: `spares` sectors at the end of each zone.
    ZoneEndSectors,
    /// 10: `spares` sectors at the end of each zone, slips pushed past them as well.
    ZoneEndSectorsSlipToDiskEnd,
}

impl Sparing {
    /// The variant for DiskSim's scheme number, if it is one (0..=10).
    pub(crate) fn from_disksim(n: i64) -> Option<Sparing> {
        use Sparing::*;
        Some(match n {
            0 => None,
            1 => ZoneEndTracks,
            2 => CylinderEnd,
            3 => TrackEnd,
            4 => CylinderEndSlipToDiskEnd,
            5 => CylinderFront,
            6 => CylinderFrontSlipToDiskEnd,
            7 => DiskEnd,
            8 => RangeEnd,
            9 => ZoneEndSectors,
            10 => ZoneEndSectorsSlipToDiskEnd,
            _ => return Option::None,
        })
    }
}

/// One recording zone (band).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZoneSpec {
    pub first_cylinder: u32,
    pub last_cylinder: u32,
    /// Physical sectors on every track of the zone (spares included).
    pub sectors_per_track: u32,
    /// Sectors (may be fractional) from the index mark to the start of the zone's first track's
    /// first slot, before any skew (DiskSim "Offset of first block").
    #[serde(default)]
    pub first_block_offset: f64,
    /// Logical positions left unused at the front of the zone (DiskSim "Empty space at zone
    /// front"): the zone's first LBN takes the position after them.
    #[serde(default)]
    pub empty_space_front: u32,
    /// Sectors the first slot of a track is rotated past the previous track's on a head
    /// switch within a cylinder.
    #[serde(default)]
    pub track_skew: f64,
    /// Sectors the first slot of a cylinder's first track is rotated on a cylinder switch.
    #[serde(default)]
    pub cylinder_skew: f64,
    /// Spare sectors per sparing unit (spare *tracks* per zone for
    /// [`Sparing::ZoneEndTracks`]).
    #[serde(default)]
    pub spares: u32,
    /// Slipped defects as DiskSim numbers them: zone-relative physical slots counted in mapping
    /// order (track by track, spares and empty space included); zone-relative track numbers
    /// for [`Sparing::ZoneEndTracks`]. Each pushes the later LBNs of its unit one slot along.
    #[serde(default)]
    pub slips: Vec<u64>,
    /// Remapped defects: (bad slot, spare slot it was remapped to), numbered like `slips`.
    /// A pair whose two numbers are equal is ignored, as DiskSim does.
    #[serde(default)]
    pub defects: Vec<(u64, u64)>,
}

/// Seek time as a function of cylinder distance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SeekSpec {
    /// Measured (distance, ms) points, linearly interpolated between points (DiskSim `.seek`).
    /// Distance 0 costs 0.
    Table { points: Vec<(u32, f64)> },
    /// `c1 + c2*sqrt(d)` for `d <= threshold`, `c3 + c4*d` above (ms); optional exact values
    /// for the first distances (`first`, index 0 is distance 1). DiskSim's `hplplus10` (HPL
    /// equation with `First ten seek times`) is this form with `threshold = v1 - 1`.
    SqrtLinear {
        threshold: u32,
        c1_ms: f64,
        c2_ms: f64,
        c3_ms: f64,
        c4_ms: f64,
        #[serde(default)]
        first_ms: Vec<f64>,
    },
    /// `a + b*sqrt(d) + c*d` ms for d >= 1 (the Elite 3 curve, fitted to the Cello paper's seek figures).
    Poly { a_ms: f64, b_ms: f64, c_ms: f64 },
    /// DiskSim's `hpl` seek (Ruemmler and Wilkes): six values `[v1, v2, v3, v4, v5, v6]`: for
    /// d < v1: v2 + v3*sqrt(d); else v4 + v5*d; a single-cylinder seek takes v6 unless v6 is
    /// -1 (DiskSim's "not given").
    Hpl { values: [f64; 6] },
}

/// Command-processing overheads, as DiskSim names them (ms).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OverheadSpec {
    pub read_hit_after_read_ms: f64,
    pub read_hit_after_write_ms: f64,
    pub read_miss_after_read_ms: f64,
    pub read_miss_after_write_ms: f64,
    pub write_hit_after_read_ms: f64,
    pub write_hit_after_write_ms: f64,
    pub write_miss_after_read_ms: f64,
    pub write_miss_after_write_ms: f64,
    pub read_completion_ms: f64,
    pub write_completion_ms: f64,
    pub data_preparation_ms: f64,
    pub first_reselect_ms: f64,
    pub other_reselect_ms: f64,
    pub read_disconnect_after_read_ms: f64,
    pub read_disconnect_after_write_ms: f64,
    pub write_disconnect_ms: f64,
    pub extra_write_disconnect: bool,
    pub extradisc_command_ms: f64,
    pub extradisc_disconnect_ms: f64,
    pub extradisc_inter_disconnect_ms: f64,
    pub extradisc_second_disconnect_ms: f64,
    pub extradisc_seek_delta_ms: f64,
    pub minimum_seek_delay_ms: f64,
    /// Per-request overhead (DiskSim "Per-request overhead time").
    pub per_request_ms: f64,
    /// Multiplier applied to every overhead (DiskSim "Time scale for overheads").
    pub time_scale: f64,
}

/// The link between drive and host as the drive sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BusSpec {
    /// Time to move one sector over the bus (DiskSim "Bulk sector transfer time").
    pub sector_transfer_ms: f64,
    /// Per-sector time for writes when it differs from reads (a DiskSim bus with different
    /// read and write block transfer times); `None`: same as `sector_transfer_ms`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_sector_transfer_ms: Option<f64>,
    pub hold_bus_entire_read: bool,
    pub hold_bus_entire_write: bool,
    /// Bus overlap: the drive chooses its next queued command and starts positioning for
    /// it as soon as the mechanism is done with the command in service, while that one
    /// still sends its data from the buffer; the next command's own data waits for the bus
    /// (docs/interfaces.md). Off in DiskSim's model, where the next command starts at the
    /// completion.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub overlap: bool,
}

impl Default for BusSpec {
    fn default() -> Self {
        BusSpec {
            sector_transfer_ms: 0.0,
            write_sector_transfer_ms: None,
            hold_bus_entire_read: false,
            hold_bus_entire_write: false,
            overlap: false,
        }
    }
}

/// The on-board cache and its policies, with DiskSim's parameter meanings; what each does in
/// the device is described in `docs/fidelity.md`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CacheSpec {
    pub enabled: bool,
    pub segments: u32,
    pub segment_sectors: u32,
    pub max_write_segments: u32,
    pub separate_write_segment: bool,
    pub low_water_mark: f64,
    pub high_water_mark: f64,
    pub watermark_by_request_size: bool,
    pub calc_sector_by_sector: bool,
    pub buffer_continuous_read: u32,
    pub min_read_ahead_sectors: u32,
    pub max_read_ahead_sectors: u32,
    pub read_ahead_over_requested: i32,
    pub read_ahead_on_idle_hit: bool,
    pub read_any_free_blocks: bool,
    pub fast_write_level: u32,
    pub immediate_buffer_read: bool,
    pub immediate_buffer_write: bool,
    pub combine_sequential_writes: bool,
    pub stop_prefetch_in_sector: bool,
    pub disconnect_write_if_seek: bool,
    pub write_hit_stop_prefetch: bool,
    pub read_directly_to_buffer: bool,
    pub immediate_transfer_partial_hit: bool,
    pub allow_almost_read_hits: bool,
    pub allow_sneaky_full_read_hits: bool,
    pub allow_sneaky_partial_read_hits: bool,
    pub allow_sneaky_intermediate_read_hits: bool,
    pub allow_read_hits_on_write_data: bool,
    pub allow_write_prebuffering: bool,
    pub preseeking_level: u32,
    pub never_disconnect: bool,
}

impl HddSpec {
    /// The description's settings headway reads but does not model (see
    /// [`CacheSpec::unmodelled`]), after what its reader had to decide
    /// ([`HddSpec::reader_warnings`]); a run reports them as warnings.
    pub fn unmodelled_settings(&self) -> Vec<String> {
        let mut out = self.reader_warnings.clone();
        if let Some(c) = self.cache.as_ref().filter(|c| c.enabled) {
            out.extend(c.unmodelled());
        }
        out
    }
}

impl CacheSpec {
    /// Settings read from the drive's description that headway does not model, each as a
    /// line naming the DiskSim parameter, its value and what headway does instead. Every
    /// drive DiskSim validated uses the values headway models, so this is empty for the
    /// catalog; a user's edited file is told rather than silently misread.
    pub(crate) fn unmodelled(&self) -> Vec<String> {
        // (DiskSim name, value in the file, the value headway behaves as)
        let flags = [
            ("Calc sector by sector", self.calc_sector_by_sector, true),
            (
                "Disconnect write if seek",
                self.disconnect_write_if_seek,
                false,
            ),
            (
                "Write hit stop prefetch",
                self.write_hit_stop_prefetch,
                true,
            ),
            (
                "Read directly to buffer",
                self.read_directly_to_buffer,
                true,
            ),
            (
                "Immed transfer partial hit",
                self.immediate_transfer_partial_hit,
                true,
            ),
            (
                "Allow sneaky full read hits",
                self.allow_sneaky_full_read_hits,
                false,
            ),
            (
                "Allow sneaky partial read hits",
                self.allow_sneaky_partial_read_hits,
                false,
            ),
            (
                "Allow sneaky intermediate read hits",
                self.allow_sneaky_intermediate_read_hits,
                false,
            ),
            (
                "Allow write prebuffering",
                self.allow_write_prebuffering,
                false,
            ),
        ];
        let mut out: Vec<String> = flags
            .iter()
            .filter(|(_, v, modelled)| v != modelled)
            .map(|(name, v, modelled)| {
                format!(
                    "drive parameter `{name}` = {} is not modelled: headway behaves as {}",
                    *v as u8, *modelled as u8
                )
            })
            .collect();
        if self.preseeking_level != 0 {
            out.push(format!(
                "drive parameter `Preseeking level` = {} is not modelled: headway behaves as 0",
                self.preseeking_level
            ));
        }
        out
    }
}

/// The drive's own command queue.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct QueueSpec {
    /// Commands the drive accepts at once.
    pub max_queue_length: u32,
    /// DiskSim scheduling policy number as read from the file: 1 FCFS, 5 LOOK, 6 C-LOOK,
    /// 7 SSTF, 8 SPTF are implemented (`firmware_queue::policy_name`).
    pub policy: u32,
}

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec {
            max_queue_length: 1,
            policy: 1,
        }
    }
}
