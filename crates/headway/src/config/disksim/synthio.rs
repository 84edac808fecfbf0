//! `disksim_synthio` and its `disksim_synthgen` generators -> [`SynthgenConfig`].

use super::values::{names, num_or, num_param, number};
use super::Notes;
use crate::device::disksim::parse::{Block, Value};
use crate::error::Result;
use crate::request::DeviceId;
use crate::workload::{SynthDist, SynthGenerator, SynthgenConfig};

/// The generator block's distribution `key` (`[ name, numbers... ]`).
fn dist(g: &Block, key: &str) -> Result<SynthDist> {
    let Some(p) = g.get(key) else {
        return Err(g.loc.error(
            Some(key),
            "missing (a distribution: `[ exponential, 0.0, 25.0 ]`)",
        ));
    };
    let Value::List(items) = &p.value else {
        return Err(p.loc.error(
            Some(key),
            format!("expected `[ name, numbers ]`, got {}", p.value.kind()),
        ));
    };
    let Some(Value::Word(name)) = items.first().map(|i| &i.value) else {
        return Err(p
            .loc
            .error(Some(key), "a distribution starts with its name"));
    };
    let nums = items[1..]
        .iter()
        .map(|i| {
            number(&i.value).ok_or_else(|| {
                i.loc.error(
                    Some(key),
                    format!("expected a number, got {}", i.value.kind()),
                )
            })
        })
        .collect::<Result<Vec<f64>>>()?;
    SynthDist::new(name, &nums).map_err(|e| p.loc.error(Some(key), e))
}

fn probability(g: &Block, key: &str) -> Result<f64> {
    let v = num_or(g, key, 0.0)?;
    if !(0.0..=1.0).contains(&v) {
        let p = g.get(key).expect("present: not the default");
        return Err(p.loc.error(
            Some(key),
            format!("must be a probability in [0, 1], got {v}"),
        ));
    }
    Ok(v)
}

/// The workload of `synthio`; `device_of` turns a component name (a disk or a logical
/// organisation) into the device or volume the requests address.
pub(super) fn synthgen(
    synthio: &Block,
    processors: u32,
    device_of: &dyn Fn(&str) -> Option<DeviceId>,
    notes: &mut Notes,
) -> Result<SynthgenConfig> {
    let Some(list) = synthio.get("Generators") else {
        return Err(synthio.loc.error(
            Some("Generators"),
            "missing (a list of `disksim_synthgen` blocks)",
        ));
    };
    let Value::List(items) = &list.value else {
        return Err(list.loc.error(
            Some("Generators"),
            format!("expected a list of generators, got {}", list.value.kind()),
        ));
    };
    let mut generators = Vec::with_capacity(items.len());
    for item in items {
        let Value::Block(g) = &item.value else {
            return Err(item.loc.error(
                Some("Generators"),
                format!(
                    "expected a `disksim_synthgen` block, got {}",
                    item.value.kind()
                ),
            ));
        };
        let mut devices = Vec::new();
        for n in names(g, "devices")? {
            let d = device_of(&n).ok_or_else(|| {
                g.get("devices").expect("read above").loc.error(
                    Some("devices"),
                    format!("`{n}` is neither a disk of the topology nor a logical organisation"),
                )
            })?;
            devices.push(d);
        }
        let capacity = num_param(g.get("Storage capacity per device").ok_or_else(|| {
            g.loc.error(
                Some("Storage capacity per device"),
                "missing (sectors per device)",
            )
        })?)?;
        let blocking = num_or(g, "Blocking factor", 1.0)?;
        if !(1.0..=1e6).contains(&blocking) || capacity < 0.0 {
            return Err(g.loc.error(
                Some("Blocking factor"),
                format!("must be a whole number of sectors from 1, got {blocking}"),
            ));
        }
        let prob_time_limited = probability(g, "Probability of time-limited request")?;
        let time_limited_think_ms = if prob_time_limited > 0.0 {
            dist(g, "Time-limited think times")?
        } else {
            SynthDist::Uniform { min: 0.0, max: 0.0 }
        };
        generators.push(SynthGenerator {
            devices,
            capacity_sectors: capacity as u64,
            blocking_sectors: blocking as u32,
            prob_sequential: probability(g, "Probability of sequential access")?,
            prob_local: probability(g, "Probability of local access")?,
            prob_read: probability(g, "Probability of read access")?,
            prob_time_critical: probability(g, "Probability of time-critical request")?,
            prob_time_limited,
            time_limited_think_ms,
            general_interarrival_ms: dist(g, "General inter-arrival times")?,
            sequential_interarrival_ms: dist(g, "Sequential inter-arrival times")?,
            local_interarrival_ms: dist(g, "Local inter-arrival times")?,
            local_distance_sectors: dist(g, "Local distances")?,
            size_sectors: dist(g, "Sizes")?,
        });
    }
    for key in [
        "Think time from call to request",
        "Think time from request to return",
    ] {
        if num_or(synthio, key, 0.0)? != 0.0 {
            notes.warn(
                synthio,
                key,
                "system-call think times are not modelled; ignored",
            );
        }
    }
    let total = num_or(synthio, "Number of I/O requests to generate", 0.0)?;
    let end_s = num_or(synthio, "Maximum time of trace generated", 0.0)?;
    if !(1.0..=1e12).contains(&total) {
        let key = "Number of I/O requests to generate";
        return Err(synthio.loc.error(
            Some(key),
            format!("must be a request count from 1, got {total}"),
        ));
    }
    if !(end_s > 0.0 && end_s.is_finite()) {
        let key = "Maximum time of trace generated";
        return Err(synthio.loc.error(
            Some(key),
            format!("must be a positive time in seconds, got {end_s}"),
        ));
    }
    Ok(SynthgenConfig {
        generators,
        total_requests: total as u64,
        end_ms: end_s * 1000.0,
        processors,
    })
}
