//! A trace replayed on a DiskSim experiment's whole system, as DiskSim runs
//! `disksim F.parv F.outv ascii TRACE 0`: the experiment's devices, arrays and host scheduler,
//! with the trace in place of its synthetic generator. The experiment's `disksim_iosim` block
//! maps each trace device number to a component (`disksim_iomap`: `tracedev` to `simdev`);
//! without one, a trace device number is the component's number, as in DiskSim. Each mapped
//! trace device becomes one `[[workloads]]` entry replaying that device's records onto its
//! component.

use std::path::Path;

use super::values::{num_or, number, word};
use super::Notes;
use crate::config::ExperimentConfig;
use crate::device::disksim::parse::{Block, Value};
use crate::error::Result;
use crate::workload::trace::TraceConfig;
use crate::workload::{WorkloadCommon, WorkloadConfig, WorkloadEntry};

/// One `disksim_iomap`: the trace's device number and the component it stands for.
struct IoMap {
    trace_device: u16,
    component: String,
}

impl ExperimentConfig {
    /// The DiskSim experiment `text` (read from `origin`) replaying `trace` on its whole
    /// system. The trace's own `device`/`devices` filters are replaced by the mapping.
    pub fn from_disksim_replay(text: &str, origin: &Path, trace: TraceConfig) -> Result<Self> {
        let mut cfg = super::experiment(text, origin)?;
        let doc = crate::device::disksim::parse_experiment(text, origin)?;
        let mut notes = Notes::default();
        let mut trace = trace;
        let mut maps = Vec::new();
        if let Some(iosim) = doc.blocks.iter().find(|b| b.type_name == "disksim_iosim") {
            let scale = num_or(iosim, "I/O Trace Time Scale", 1.0)?;
            if !(scale.is_finite() && scale > 0.0) {
                let p = iosim.get("I/O Trace Time Scale").expect("read");
                return Err(p.loc.error(
                    Some("I/O Trace Time Scale"),
                    format!("expected a scale > 0, got {scale}"),
                ));
            }
            trace.speed /= scale;
            if let Some(p) = iosim.get("I/O Mappings") {
                let Value::List(items) = &p.value else {
                    return Err(p.loc.error(
                        Some("I/O Mappings"),
                        format!(
                            "expected a list of disksim_iomap blocks, got {}",
                            p.value.kind()
                        ),
                    ));
                };
                for item in items {
                    let Value::Block(b) = &item.value else {
                        return Err(item.loc.error(
                            Some("I/O Mappings"),
                            format!("expected a disksim_iomap block, got {}", item.value.kind()),
                        ));
                    };
                    maps.push(io_map(b, &mut notes)?);
                }
            }
        }
        let names: Vec<String> = if cfg.arrays.is_empty() {
            cfg.devices.iter().map(|d| d.name.clone()).collect()
        } else {
            cfg.arrays.iter().map(|a| a.name.clone()).collect()
        };
        if maps.is_empty() {
            // No mapping: trace device N is the experiment's component number N.
            maps = names
                .iter()
                .enumerate()
                .map(|(n, name)| IoMap {
                    trace_device: n as u16,
                    component: name.clone(),
                })
                .collect();
        }
        let top = doc
            .instantiations
            .first()
            .map(|i| i.loc.clone())
            .unwrap_or_else(|| crate::device::disksim::parse::Loc {
                file: std::sync::Arc::new(origin.to_path_buf()),
                line: 1,
            });
        let mut workloads = Vec::with_capacity(maps.len());
        for m in maps {
            // A disk inside a volume stands for the volume; a plain organisation's disk is
            // addressed as it is.
            let known = cfg.devices.iter().any(|d| d.name == m.component)
                || cfg.arrays.iter().any(|a| a.name == m.component);
            if !known {
                return Err(top.error(
                    Some("simdev"),
                    format!("`{}` is no device of the experiment", m.component),
                ));
            }
            let target = volume_holding(&cfg, &m.component).unwrap_or(m.component);
            workloads.push(WorkloadEntry {
                config: WorkloadConfig::Trace(TraceConfig {
                    device: Some(m.trace_device),
                    devices: None,
                    merge_devices: false,
                    ..trace.clone()
                }),
                common: WorkloadCommon {
                    name: Some(format!("trace device {}", m.trace_device)),
                    device: Some(target),
                    ..WorkloadCommon::default()
                },
            });
        }
        // The `[[workloads]]` are the run's; the single workload slot only has to be valid
        // (the experiment's generator, if any, is replaced).
        if let Some(first) = workloads.first() {
            cfg.workload = first.config.clone();
        }
        cfg.workloads = workloads;
        cfg.reader_warnings.extend(notes.lines);
        cfg.validate()?;
        Ok(cfg)
    }
}

/// The array volume `device` is a member of, if any.
fn volume_holding(cfg: &ExperimentConfig, device: &str) -> Option<String> {
    cfg.arrays
        .iter()
        .find(|a| a.members.iter().any(|m| m == device))
        .map(|a| a.name.clone())
}

fn io_map(b: &Block, notes: &mut Notes) -> Result<IoMap> {
    let trace_device = match b.get("tracedev") {
        None => {
            return Err(b
                .loc
                .error(Some("tracedev"), "missing (the trace's device number)"))
        }
        Some(p) => {
            let n = match &p.value {
                Value::Word(w) => w
                    .strip_prefix("0x")
                    .or_else(|| w.strip_prefix("0X"))
                    .and_then(|h| i64::from_str_radix(h, 16).ok()),
                v => number(v).filter(|f| f.fract() == 0.0).map(|f| f as i64),
            };
            match n.and_then(|n| u16::try_from(n).ok()) {
                Some(n) => n,
                None => {
                    return Err(p.loc.error(
                        Some("tracedev"),
                        format!("expected a device number, got {}", p.value.kind()),
                    ))
                }
            }
        }
    };
    let Some(component) = word(b, "simdev") else {
        return Err(b
            .loc
            .error(Some("simdev"), "missing (the component the device maps to)"));
    };
    for (key, neutral) in [("locScale", 512.0), ("sizeScale", 1.0), ("offset", 0.0)] {
        let v = num_or(b, key, neutral)?;
        if v != neutral {
            notes.warn(
                b,
                key,
                format!("{v}: trace device {trace_device} is replayed unscaled and unshifted"),
            );
        }
    }
    Ok(IoMap {
        trace_device,
        component: component.to_string(),
    })
}

impl ExperimentConfig {
    /// The DiskSim experiment in the file `parv` replaying the trace that `workload_toml`
    /// describes: a headway experiment whose `[workload]` is `kind = "trace"` (its `path`,
    /// `format`, `mode`, filters and the rest, as in any trace replay).
    pub fn from_disksim_replay_toml(parv: &Path, workload_toml: &str) -> Result<Self> {
        let text = std::fs::read_to_string(parv).map_err(|e| {
            crate::error::HeadwayError::config(
                "parv",
                format!("cannot read {}: {e}", parv.display()),
            )
        })?;
        let replay = ExperimentConfig::from_toml_str(workload_toml, None)?;
        let WorkloadConfig::Trace(trace) = replay.workload else {
            return Err(crate::error::HeadwayError::config(
                "workload.kind",
                "a replay on a DiskSim experiment takes a trace (`kind = \"trace\"`)",
            ));
        };
        Self::from_disksim_replay(&text, parv, trace)
    }
}
