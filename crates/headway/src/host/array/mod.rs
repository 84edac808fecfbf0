//! Disk arrays: logical volumes over several devices (RAID 0, 1, 10, 4, 5, 6), built from
//! `[[arrays]]`. The layer sits in front of the members' schedulers; the devices never
//! know they are members.

mod background;
mod cache_dev;
mod cache_map;
pub mod cache_settings;
mod cache_volume;
mod free_rows;
mod front;
mod front_hints;
mod held_writes;
mod ids;
mod layout;
mod plan;
pub mod settings;
mod volume;

pub use front::{ArrayLinks, ArrayReport};

use std::sync::{Arc, Mutex};

use crate::error::{HeadwayError, Result};
use crate::request::DeviceId;
use crate::sched::Scheduler;
use crate::stats::{ArraySummary, MemberSummary};
use crate::time::SimTime;
use background::Background;
use layout::Layout;
use plan::WriteRule;
use settings::{ArrayConfig, BackgroundPolicy};
use volume::Volume;

/// The array layer in front of the host's scheduler, and where it reports.
pub type Fronted = (Box<dyn Scheduler>, Arc<Mutex<ArrayReport>>);

/// The volumes of a run, ready to put in front of the host's scheduler.
pub struct Arrays {
    volumes: Vec<Volume>,
    /// Each volume's capacity (sectors), in `[[arrays]]` order.
    pub capacities: Vec<u64>,
    pub names: Vec<String>,
    report: Arc<Mutex<ArrayReport>>,
}

fn ms_to_ns(ms: f64) -> SimTime {
    (ms * 1e6).round() as SimTime
}

impl Arrays {
    /// Build the volumes over devices named `device_names` of `capacities` sectors. Sizes
    /// are checked here: members of one volume must be the same size, the spare at least
    /// as large, the stripe unit no larger than a member.
    pub fn build(
        arrays: &[ArrayConfig],
        device_names: &[String],
        capacities: &[u64],
    ) -> Result<Self> {
        let dev = |n: &String| {
            device_names
                .iter()
                .position(|d| d == n)
                .expect("validated: members name devices") as DeviceId
        };
        let mut volumes = Vec::with_capacity(arrays.len());
        let mut report = ArrayReport::default();
        for (i, a) in arrays.iter().enumerate() {
            let key = |k: &str| format!("arrays[{i}].{k}");
            let devices: Vec<DeviceId> = a.members.iter().map(dev).collect();
            if a.level == settings::ArrayLevel::CacheDevice {
                let (volume, summary) = cache_volume::build(a, i, devices, capacities)?;
                report.volumes.push(summary);
                volumes.push(volume);
                continue;
            }
            let cap = capacities[devices[0] as usize];
            if let Some(k) = devices.iter().position(|&d| capacities[d as usize] != cap) {
                return Err(HeadwayError::config(
                    key("members"),
                    format!(
                        "members must be the same size: `{}` has {cap} sectors, `{}` has {}",
                        a.members[0], a.members[k], capacities[devices[k] as usize]
                    ),
                ));
            }
            let full = cap;
            let cap = a.member_sectors.unwrap_or(full);
            if cap == 0 || cap > full {
                return Err(HeadwayError::config(
                    key("member_sectors"),
                    format!("must be from 1 to a member's {full} sectors, got {cap}"),
                ));
            }
            let unit = a.stripe_unit_sectors;
            if unit > cap {
                return Err(HeadwayError::config(
                    key("stripe_unit_sectors"),
                    format!("{unit} sectors is larger than a member ({cap} sectors)"),
                ));
            }
            let spare = a.spare.as_ref().map(dev);
            if let Some(s) = spare {
                if capacities[s as usize] < full {
                    return Err(HeadwayError::config(
                        key("spare"),
                        format!(
                            "the spare has {} sectors, fewer than a member ({full})",
                            capacities[s as usize]
                        ),
                    ));
                }
            }
            let layout = Layout::new(
                a.level,
                devices.len(),
                unit,
                cap,
                a.parity_rotation,
                a.copies_of_each(),
            );
            let used = layout.rows * unit;
            let failure = a.failure.as_ref().map(|f| {
                let m = a
                    .members
                    .iter()
                    .position(|n| n == &f.member)
                    .expect("validated");
                (m, ms_to_ns(f.at_ms))
            });
            let step = |b: &settings::BackgroundConfig| b.unit_sectors.unwrap_or(unit);
            let rebuild = a.rebuild.as_ref().map(|b| {
                let start = b
                    .start_ms
                    .map(ms_to_ns)
                    .unwrap_or(failure.map_or(0, |f| f.1))
                    .max(failure.map_or(0, |f| f.1));
                Background::new(b, step(b), used, start)
            });
            let scrub = a
                .scrub
                .as_ref()
                .map(|b| Background::new(b, step(b), used, b.start_ms.map_or(0, ms_to_ns)));
            let rule = match a.rmw_fraction {
                Some(f) if a.disksim_small_writes => WriteRule::DiskSim(f),
                Some(f) => WriteRule::Fraction(f),
                None => WriteRule::Fixed(a.small_write),
            };
            let members: Vec<MemberSummary> = a
                .members
                .iter()
                .chain(a.spare.iter())
                .map(|d| MemberSummary {
                    device: d.clone(),
                    ..Default::default()
                })
                .collect();
            let unit_sectors = layout.unit_sectors;
            report.volumes.push(ArraySummary {
                name: a.name.clone(),
                level: a.level.name().into(),
                failed_member: a.failure.as_ref().map(|f| f.member.clone()),
                failed_at_ms: a.failure.as_ref().map(|f| f.at_ms),
                rebuild: rebuild.as_ref().map(|b| b.summary(unit_sectors)),
                scrub: scrub.as_ref().map(|b| b.summary(unit_sectors)),
                members,
                ..Default::default()
            });
            volumes.push(Volume {
                spare,
                failure,
                rebuild,
                scrub,
                ..Volume::new(
                    a.name.clone(),
                    layout,
                    rule,
                    a.sync_writes,
                    a.mirror_read,
                    devices,
                )
            });
        }
        Ok(Arrays {
            capacities: volumes
                .iter()
                .map(|v| v.layout.capacity_sectors())
                .collect(),
            names: volumes.iter().map(|v| v.name.clone()).collect(),
            volumes,
            report: Arc::new(Mutex::new(report)),
        })
    }

    /// The array layer in front of `inner`; volumes take device ids from `first_volume`.
    /// `keep_links` keeps which logical request each member operation served. A volume
    /// whose rebuild or scrub is `freeblock` takes over its members' background reads:
    /// each member's scheduler must be able to read in the foreground's gaps.
    pub fn front(
        self,
        mut inner: Box<dyn Scheduler>,
        first_volume: DeviceId,
        keep_links: bool,
    ) -> Result<Fronted> {
        for (i, v) in self.volumes.iter().enumerate() {
            let free = |b: &Option<Background>| {
                b.as_ref()
                    .is_some_and(|b| b.policy == BackgroundPolicy::Freeblock)
            };
            let which = match (free(&v.rebuild), free(&v.scrub)) {
                (true, _) => "rebuild",
                (_, true) => "scrub",
                _ => continue,
            };
            for (k, &d) in v.devices.iter().chain(v.spare.iter()).enumerate() {
                let name = inner.name().to_string();
                let Some(f) = inner.free_reads(d) else {
                    let member = self
                        .report
                        .lock()
                        .ok()
                        .and_then(|r| r.volumes[i].members.get(k).map(|m| m.device.clone()));
                    return Err(HeadwayError::config(
                        format!("arrays[{i}].{which}.policy"),
                        format!(
                            "array `{}`: policy = \"freeblock\" reads in the gaps of each \
                             member's freeblock scheduler, but member `{}` is scheduled by \
                             `{name}` (set [host] scheduler = \"freeblock\", with the \
                             foreground scheduler as its inner)",
                            v.name,
                            member.unwrap_or_default()
                        ),
                    ));
                };
                f.clear_wanted();
            }
        }
        let report = self.report.clone();
        let front = front::ArrayFront::new(inner, self.volumes, first_volume, report, keep_links);
        Ok((Box::new(front), self.report))
    }
}
