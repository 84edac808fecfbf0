//! What a run is made of: its devices, classes, workloads and processes, by the indices a
//! request carries. The configuration fills it in; the host and its schedulers consult it,
//! and the statistics name their sections by it.

/// One process of a workload, as configured: what anticipation and proportional-share
/// schedulers need to know about the issuer of a request.
#[derive(Clone, Debug, PartialEq)]
pub struct ProcessInfo {
    /// Index of the workload that runs it (`[[workloads]]` order).
    pub workload: u16,
    pub class: u16,
    /// Proportional-share weight (`share` of its workload; 1 by default).
    pub share: f64,
    /// Issues one request at a time and waits for it (closed workloads): the process can
    /// only issue a dependent request after a completion.
    pub synchronous: bool,
}

/// The static make-up of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunInfo {
    /// Device names, indexed by [`DeviceId`](crate::request::DeviceId).
    pub devices: Vec<String>,
    /// Class names, indexed by `Request::class`.
    pub classes: Vec<String>,
    /// Workload names, indexed by `Request::origin` below [`HOST_ORIGIN_BASE`](crate::request::HOST_ORIGIN_BASE).
    pub workloads: Vec<String>,
    /// Processes by `Request::process`, where the workloads know them (a trace's processes
    /// are not known in advance and are absent).
    pub processes: Vec<ProcessInfo>,
}

impl RunInfo {
    /// One device, one workload, one class: the single-`[drive]` form.
    pub(crate) fn single() -> Self {
        RunInfo {
            devices: vec!["disk".into()],
            classes: vec!["default".into()],
            workloads: vec!["workload".into()],
            processes: Vec::new(),
        }
    }
}
