//! Robustness sweep: every catalog drive under FCFS and SPTF at the host, and with a 16-deep
//! firmware SPTF queue; prints mean response and the drive's buffer counts.
use headway::config::{build_simulation, ExperimentConfig};
use headway::device::catalog;
fn main() {
    for d in catalog::names() {
        for (sched, depth, fw) in [
            ("fcfs", 1, "fcfs"),
            ("sptf", 1, "fcfs"),
            ("fcfs", 16, "sptf"),
        ] {
            let toml = format!("[drive]\nname=\"{d}\"\nqueue_depth={depth}\nfirmware_scheduler=\"{fw}\"\n[host]\nscheduler=\"{sched}\"\n[workload]\nrequests=20000\ninterarrival_ms=9.0\n");
            let cfg = ExperimentConfig::from_toml_str(&toml, None).unwrap();
            let r = build_simulation(&cfg, None)
                .unwrap()
                .simulation
                .run()
                .unwrap();
            println!(
                "{d:12} host {sched} depth {depth:2} fw {fw}: mean resp {:8.2} ms util {:.3}",
                r.summary.response.mean_ms, r.summary.utilisation
            );
        }
    }
}
