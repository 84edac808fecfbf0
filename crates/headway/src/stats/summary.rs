use hdrhistogram::Histogram;
use serde::Serialize;

/// A latency distribution in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Distribution {
    pub count: u64,
    pub mean_ms: f64,
    pub stdev_ms: f64,
    pub min_ms: f64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub p999_ms: f64,
    pub max_ms: f64,
}

impl Distribution {
    pub(crate) fn from_hist(h: &Histogram<u64>) -> Self {
        if h.is_empty() {
            return Distribution::default();
        }
        let ms = |ns: u64| ns as f64 / 1e6;
        Distribution {
            count: h.len(),
            mean_ms: h.mean() / 1e6,
            stdev_ms: h.stdev() / 1e6,
            min_ms: ms(h.min()),
            p50_ms: ms(h.value_at_quantile(0.5)),
            p90_ms: ms(h.value_at_quantile(0.9)),
            p99_ms: ms(h.value_at_quantile(0.99)),
            p999_ms: ms(h.value_at_quantile(0.999)),
            max_ms: ms(h.max()),
        }
    }
}

/// The per-run summary every front end prints.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Foreground requests completed.
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    /// Host-made requests completed (freeblock reads, flush write-backs, ...): not in
    /// `requests`, nor in the response-time figures.
    pub background_requests: u64,
    /// Host-made requests created (equal to `background_requests` unless the run was cut).
    pub host_made_requests: u64,
    /// Workload requests the host completed from its own memory, without a device.
    pub host_served_requests: u64,
    /// Workload requests that completed after their deadline.
    pub deadline_misses: u64,
    /// Requests that arrived (foreground and background).
    pub arrived: u64,
    pub cache_hits: u64,
    pub sectors: u64,
    /// From the first arrival to the last completion.
    pub elapsed_s: f64,
    pub throughput_iops: f64,
    pub throughput_mb_s: f64,
    /// Fraction of the elapsed time the device(s) had at least one command (mean over devices).
    pub utilisation: f64,
    /// Fraction of the elapsed time the media spent transferring data (mean over devices):
    /// the rotational-scheduling paper's "disk utilisation". Cache hits do not count.
    pub media_utilisation: f64,
    /// Media transfer time over the time the drive(s) had work: how much of its working time
    /// a drive spends transferring data, which, unlike `media_utilisation`, differs between
    /// schedulers when the load is open and the drive often idle.
    pub media_efficiency: f64,
    /// Predicted against observed service times (see [`super::PredictionSummary`]).
    pub prediction: super::PredictionSummary,
    /// Arrival at the host to completion.
    pub response: Distribution,
    /// Start of service at the device to completion, per command.
    pub service: Distribution,
    pub mean_seek_ms: f64,
    pub mean_rotate_ms: f64,
    pub mean_transfer_ms: f64,
    /// Requests waiting at the host, time-averaged.
    pub mean_queue_length: f64,
    pub max_queue_length: u64,
    /// Requests arrived and not yet completed, time-averaged.
    pub mean_in_system: f64,
    /// Requests in the system as each arriving request found it, averaged over arrivals.
    pub mean_seen_at_arrival: f64,
    /// Arrivals that found the system empty.
    pub idle_arrival_fraction: f64,
    /// Workload requests by class; their counts add up to `requests`.
    pub by_class: Vec<super::GroupSummary>,
    /// Workload requests by process (one entry `all` when the run has a single process, more
    /// than 1,024, or does not know its processes in advance); counts add up to `requests`.
    pub by_process: Vec<super::GroupSummary>,
    /// Every request a device served, workload and host-made; counts add up to
    /// `requests + background_requests - host_served_requests`.
    pub by_device: Vec<super::GroupSummary>,
    /// Every request by who made it: each workload, and each host component; counts add up
    /// to `requests + background_requests`.
    pub by_origin: Vec<super::GroupSummary>,
    /// Energy per device with power states (empty, and absent from `--json`, otherwise).
    pub energy: Vec<crate::device::power::EnergySummary>,
    /// What each drive with `firmware_freeblock` read for free (empty otherwise).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub firmware_free: Vec<crate::device::hdd::FirmwareFreeReport>,
}

impl Summary {
    /// The flat key/value form written by `--json` (the interface other tools rely on).
    pub fn to_flat_json(&self) -> serde_json::Value {
        let r = &self.response;
        let s = &self.service;
        let flat = serde_json::json!({
            "requests": self.requests,
            "reads": self.reads,
            "writes": self.writes,
            "background_requests": self.background_requests,
            "cache_hits": self.cache_hits,
            "elapsed_s": self.elapsed_s,
            "throughput_iops": self.throughput_iops,
            "throughput_mb_s": self.throughput_mb_s,
            "utilisation": self.utilisation,
            "media_utilisation": self.media_utilisation,
            "media_efficiency": self.media_efficiency,
            "predicted_commands": self.prediction.commands,
            "mispredicted_fraction": self.prediction.mispredicted_fraction,
            "overestimated_fraction": self.prediction.overestimated_fraction,
            "mean_prediction_error_ms": self.prediction.mean_error_ms,
            "mean_abs_prediction_error_ms": self.prediction.mean_abs_error_ms,
            "mean_response_ms": r.mean_ms,
            "stdev_response_ms": r.stdev_ms,
            "min_response_ms": r.min_ms,
            "p50_response_ms": r.p50_ms,
            "p90_response_ms": r.p90_ms,
            "p99_response_ms": r.p99_ms,
            "p999_response_ms": r.p999_ms,
            "max_response_ms": r.max_ms,
            "mean_service_ms": s.mean_ms,
            "stdev_service_ms": s.stdev_ms,
            "p50_service_ms": s.p50_ms,
            "p90_service_ms": s.p90_ms,
            "p99_service_ms": s.p99_ms,
            "p999_service_ms": s.p999_ms,
            "max_service_ms": s.max_ms,
            "mean_seek_ms": self.mean_seek_ms,
            "mean_rotate_ms": self.mean_rotate_ms,
            "mean_transfer_ms": self.mean_transfer_ms,
            "mean_queue_length": self.mean_queue_length,
            "max_queue_length": self.max_queue_length,
            "mean_in_system": self.mean_in_system,
            "mean_seen_at_arrival": self.mean_seen_at_arrival,
            "idle_arrival_fraction": self.idle_arrival_fraction,
        });
        // A second object: one `json!` of every key exceeds the macro's recursion limit.
        let more = serde_json::json!({
            "host_made_requests": self.host_made_requests,
            "host_served_requests": self.host_served_requests,
            "deadline_misses": self.deadline_misses,
            "by_class": section(&self.by_class),
            "by_process": section(&self.by_process),
            "by_device": section(&self.by_device),
            "by_origin": section(&self.by_origin),
        });
        let mut out = flat;
        if let (Some(o), serde_json::Value::Object(m)) = (out.as_object_mut(), more) {
            o.extend(m);
        }
        if !self.energy.is_empty() {
            let mut m = serde_json::Map::new();
            for e in &self.energy {
                let mut v = serde_json::to_value(e).expect("plain numbers serialise");
                if let Some(o) = v.as_object_mut() {
                    o.remove("name");
                }
                m.insert(e.name.clone(), v);
            }
            if let Some(o) = out.as_object_mut() {
                o.insert("energy".into(), serde_json::Value::Object(m));
            }
        }
        if !self.firmware_free.is_empty() {
            if let Some(o) = out.as_object_mut() {
                o.insert(
                    "firmware_free".into(),
                    serde_json::to_value(&self.firmware_free).expect("plain numbers serialise"),
                );
            }
        }
        out
    }
}

/// A section as a JSON object keyed by entry name.
fn section(groups: &[super::GroupSummary]) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    for g in groups {
        let mut v = serde_json::to_value(g).expect("plain numbers serialise");
        if let Some(o) = v.as_object_mut() {
            o.remove("name");
        }
        m.insert(g.name.clone(), v);
    }
    serde_json::Value::Object(m)
}
