//! Reading a workload table: each key's value is read in place into the key group of the
//! kind that takes it (so type errors keep their line), then `kind` picks the groups that
//! count, keys of other kinds are refused naming their kinds, and the kind's config is built
//! from its groups. Serde's tagged enums are not used: they buffer the table before parsing
//! it, which loses the line numbers of type errors, and they cannot make the tag optional.

use std::sync::OnceLock;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

use super::{Region, WorkloadCommon, WorkloadConfig, WorkloadEntry, WorkloadKind};
use crate::table_keys::{key_group, KnownKey};
use crate::workload::app::{AppConfig, AppKeys};
use crate::workload::bursty::{BurstyConfig, BurstyKeys};
use crate::workload::closed::{ClosedConfig, ClosedKeys};
use crate::workload::open::{OpenConfig, OpenKeys};
use crate::workload::shape::ShapeKeys;
use crate::workload::sync_reader::{SyncConfig, SyncKeys};
use crate::workload::text::{TextConfig, TextKeys};
use crate::workload::trace::{TraceConfig, TraceKeys};
use crate::workload::video::{VideoKeys, VideoSpec};
use crate::workload::zoned_writers::{ZonedKeys, ZonedWritersConfig};

/// `device = 5` (a trace's device number, to replay only its records) or `device = "disk1"`
/// (in a `[[workloads]]` entry: the simulated device the workload addresses).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
enum DeviceKey {
    Number(u16),
    Name(String),
}

impl TryFrom<WorkloadTable> for WorkloadEntry {
    type Error = String;

    fn try_from(t: WorkloadTable) -> std::result::Result<Self, String> {
        let (config, common) = t.into_config()?;
        if let Some(s) = common.share {
            if !(s > 0.0 && s.is_finite()) {
                return Err(format!("field `share` must be a positive number, got {s}"));
            }
        }
        if let Some(d) = common.deadline_ms {
            if !(d > 0.0 && d.is_finite()) {
                return Err(format!(
                    "field `deadline_ms` must be a positive number of milliseconds, got {d}"
                ));
            }
        }
        Ok(WorkloadEntry { config, common })
    }
}

impl TryFrom<WorkloadTable> for WorkloadConfig {
    type Error = String;

    fn try_from(t: WorkloadTable) -> std::result::Result<Self, String> {
        let (config, common) = t.into_config()?;
        if !common.is_default() {
            let key = [
                ("name", common.name.is_some()),
                ("class", common.class.is_some()),
                ("device", common.device.is_some()),
                ("region", common.region.is_some()),
                ("share", common.share.is_some()),
                ("deadline_ms", common.deadline_ms.is_some()),
            ]
            .into_iter()
            .find(|k| k.1)
            .map_or("class", |k| k.0);
            return Err(format!(
                "field `{key}` belongs to `[[workloads]]` entries (several workloads, classes, \
                 devices); write this workload as [[workloads]] to use it"
            ));
        }
        Ok(config)
    }
}

key_group! {
    /// The keys a `[[workloads]]` entry adds (see [`WorkloadCommon`]); `device` is read with
    /// the trace's, as a name.
    struct CommonKeys {
        name: String,
        class: String,
        region: Region,
        share: f64,
        deadline_ms: f64,
    }
}

/// A workload table read into the key groups of every kind; which of them count is decided
/// by `kind` once the whole table is read.
#[derive(Default)]
struct WorkloadTable {
    kind: Option<WorkloadKind>,
    /// Open, closed, bursty, sync and app workloads.
    requests: Option<u64>,
    device: Option<DeviceKey>,
    open: OpenKeys,
    shape: ShapeKeys,
    closed: ClosedKeys,
    trace: TraceKeys,
    bursty: BurstyKeys,
    sync: SyncKeys,
    app: AppKeys,
    video: VideoKeys,
    text: TextKeys,
    zoned: ZonedKeys,
    common: CommonKeys,
    /// The kind-specific keys given, for the ownership check.
    written: Vec<&'static str>,
}

/// Every key a workload table takes, in the order an unknown key's error lists them.
fn all_keys() -> &'static [&'static str] {
    static KEYS: OnceLock<Vec<&'static str>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let (trace_head, trace_tail) = TraceKeys::KEYS.split_at(4);
        let groups: [&[&str]; 14] = [
            &["kind", "requests"],
            OpenKeys::KEYS,
            ShapeKeys::KEYS,
            ClosedKeys::KEYS,
            trace_head,
            &["device"],
            trace_tail,
            BurstyKeys::KEYS,
            SyncKeys::KEYS,
            AppKeys::KEYS,
            VideoKeys::KEYS,
            TextKeys::KEYS,
            ZonedKeys::KEYS,
            CommonKeys::KEYS,
        ];
        groups.concat()
    })
}

impl WorkloadTable {
    /// Read the value of `key` into the group that takes it.
    fn read<'de, A: MapAccess<'de>>(
        &mut self,
        key: &'static str,
        map: &mut A,
    ) -> std::result::Result<(), A::Error> {
        match key {
            "kind" => self.kind = Some(map.next_value()?),
            "requests" => self.requests = Some(map.next_value()?),
            "device" => self.device = Some(map.next_value()?),
            _ => {
                let taken = self.open.read(key, map)?
                    || self.shape.read(key, map)?
                    || self.closed.read(key, map)?
                    || self.trace.read(key, map)?
                    || self.bursty.read(key, map)?
                    || self.sync.read(key, map)?
                    || self.app.read(key, map)?
                    || self.video.read(key, map)?
                    || self.text.read(key, map)?
                    || self.zoned.read(key, map)?
                    || self.common.read(key, map)?;
                if !taken {
                    return Err(de::Error::unknown_field(key, all_keys()));
                }
            }
        }
        // A device given by name is a `[[workloads]]` key, by number a trace's.
        let common = key == "device" && matches!(self.device, Some(DeviceKey::Name(_)));
        if key != "kind" && !common && !CommonKeys::KEYS.contains(&key) {
            self.written.push(key);
        }
        Ok(())
    }

    /// The typed config of its kind and the `[[workloads]]` keys.
    fn into_config(self) -> std::result::Result<(WorkloadConfig, WorkloadCommon), String> {
        let kind = self.kind.unwrap_or_default();
        check_owner(kind, self.kind.is_some(), &self.written)?;
        let (trace_device, device_name) = match self.device {
            Some(DeviceKey::Number(n)) => (Some(n), None),
            Some(DeviceKey::Name(s)) => (None, Some(s)),
            None => (None, None),
        };
        let common = WorkloadCommon {
            name: self.common.name,
            class: self.common.class,
            device: device_name,
            region: self.common.region,
            share: self.common.share,
            deadline_ms: self.common.deadline_ms,
        };
        let requests = self.requests;
        let config = match kind {
            WorkloadKind::Open => WorkloadConfig::Open(OpenConfig::from_keys(
                self.open,
                requests,
                self.shape.into_config(),
            )),
            WorkloadKind::Closed => WorkloadConfig::Closed(ClosedConfig::from_keys(
                self.closed,
                requests,
                self.shape.into_config(),
            )),
            WorkloadKind::Bursty => WorkloadConfig::Bursty(BurstyConfig::from_keys(
                self.bursty,
                requests,
                self.shape.into_config(),
            )?),
            WorkloadKind::Sync => WorkloadConfig::Sync(SyncConfig::from_keys(
                self.sync,
                self.closed,
                requests,
                self.shape.size_sectors,
            )),
            WorkloadKind::App => {
                WorkloadConfig::App(AppConfig::from_keys(self.app, requests, self.sync.fs)?)
            }
            WorkloadKind::Video => WorkloadConfig::Video(VideoSpec::from_keys(self.video)?),
            WorkloadKind::Text => WorkloadConfig::Text(TextConfig::from_keys(
                self.text,
                self.video.clients,
                self.video.block_bytes,
                self.open.interarrival_ms,
            )?),
            WorkloadKind::Trace => {
                WorkloadConfig::Trace(TraceConfig::from_keys(self.trace, trace_device)?)
            }
            WorkloadKind::Zoned => {
                WorkloadConfig::Zoned(ZonedWritersConfig::from_keys(self.zoned)?)
            }
            WorkloadKind::Synthgen => {
                return Err(
                    "DiskSim's synthetic generator (`kind = \"synthgen\"`) is read from \
                            a DiskSim experiment (.parv), not written in TOML"
                        .to_string(),
                )
            }
        };
        Ok((config, common))
    }
}

/// Keys that only some kinds take, each group with the kinds named in the error for a key
/// given to another kind.
const OWNED: [(&[&[&str]], &str); 12] = [
    (&[OpenKeys::KEYS], "kind = \"open\""),
    (&[ClosedKeys::KEYS], "kind = \"closed\""),
    (
        &[&["requests"], ShapeKeys::KEYS],
        "kind = \"open\", \"closed\" and \"bursty\"",
    ),
    (
        &[
            TraceKeys::KEYS.split_at(4).0,
            &["device"],
            TraceKeys::KEYS.split_at(4).1,
        ],
        "kind = \"trace\"",
    ),
    (&[BurstyKeys::KEYS], "kind = \"bursty\""),
    (&[SyncKeys::KEYS], "kind = \"sync\""),
    (
        &[&["processes"], ShapeKeys::KEYS.split_at(1).1],
        "kind = \"open\", \"closed\" and \"bursty\" (not \"sync\")",
    ),
    (&[AppKeys::KEYS], "kind = \"app\""),
    (
        &[VideoKeys::KEYS.split_at(2).0],
        "kind = \"video\" and \"text\"",
    ),
    (&[VideoKeys::KEYS.split_at(2).1], "kind = \"video\""),
    (&[TextKeys::KEYS], "kind = \"text\""),
    (&[ZonedKeys::KEYS], "kind = \"zoned\""),
];

/// Refuse a key of another kind than `kind` (`given`: whether the table named it),
/// naming the kinds the key belongs to.
fn check_owner(
    kind: WorkloadKind,
    given: bool,
    written: &[&str],
) -> std::result::Result<(), String> {
    let has = |key: &str| written.contains(&key);
    if kind == WorkloadKind::Text {
        if let Some(key) = ["arrival", "rate_iops"].into_iter().find(|k| has(k)) {
            return Err(format!(
                "field `{key}` belongs to kind = \"open\" workloads; text clients take \
                 interarrival_ms (exponential, per client)"
            ));
        }
    }
    // Indices into `OWNED` of the groups each kind takes.
    let allowed: &[usize] = match kind {
        WorkloadKind::Open => &[0, 2, 6],
        WorkloadKind::Closed => &[1, 2, 6],
        WorkloadKind::Trace => &[3],
        WorkloadKind::Bursty => &[2, 4, 6],
        WorkloadKind::Sync => &[1, 2, 5],
        WorkloadKind::App => &[7],
        WorkloadKind::Video => &[8, 9],
        // Text clients take `interarrival_ms` (not the other open keys: checked above).
        WorkloadKind::Text => &[0, 8, 10],
        WorkloadKind::Zoned => &[11],
        WorkloadKind::Synthgen => &[],
    };
    // An app takes `requests` and `fs` from groups it otherwise refuses.
    let takes = |i: usize, key: &str| {
        allowed.contains(&i) || (kind == WorkloadKind::App && (key == "requests" || key == "fs"))
    };
    for (i, (groups, owner)) in OWNED.iter().enumerate() {
        if let Some(key) = groups
            .iter()
            .flat_map(|g| g.iter())
            .find(|key| has(key) && !takes(i, key))
        {
            // "field `x`" lets the experiment parser report the key.
            return Err(format!(
                "field `{key}` belongs to {owner} workloads, but this one is kind = \"{}\"{}",
                kind.name(),
                if given {
                    ""
                } else {
                    " (the default when kind is absent)"
                }
            ));
        }
    }
    Ok(())
}

/// Reads a workload table key by key (see the module doc) and converts it to `T`.
struct TableVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: TryFrom<WorkloadTable, Error = String>> Visitor<'de> for TableVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a workload table")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<T, A::Error> {
        let mut table = WorkloadTable::default();
        while let Some(key) = map.next_key_seed(KnownKey(all_keys()))? {
            table.read(key, &mut map)?;
        }
        T::try_from(table).map_err(de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for WorkloadConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_map(TableVisitor(std::marker::PhantomData))
    }
}

impl<'de> Deserialize<'de> for WorkloadEntry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_map(TableVisitor(std::marker::PhantomData))
    }
}
