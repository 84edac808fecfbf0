use headway::config::{build_simulation, ExperimentConfig};
use headway::request::HOST_ORIGIN_BASE;
use headway::sim::RunResult;
fn cfg(opts: &str) -> String {
    format!(
        "seed = 3\n[drive]\nname = \"atlas10k\"\nqueue_depth = 4\nfirmware_scheduler = \"fcfs\"\n\
         [host]\nscheduler = \"freeblock\"\nmax_outstanding = 4\n\
         [host.options]\nfree_slots = true\n{opts}\n[host.inner]\nscheduler = \"sptf\"\n\
         [workload]\nkind = \"closed\"\nprocesses = 10\nthink_ms = 30.0\nrequests = 2000\n\
         read_fraction = 1.0\nalign_sectors = 8\n\
         size = {{ kind = \"exponential\", mean_sectors = 12.0 }}\n\
         [output]\nrecords = true\n"
    )
}
fn run(t: &str) -> RunResult {
    let c = ExperimentConfig::from_toml_str(t, None).unwrap();
    build_simulation(&c, None)
        .unwrap()
        .simulation
        .run()
        .unwrap()
}
fn main() {
    let with = run(&cfg("c_fb_ms = 0.0"));
    let without = run(&cfg("plan = false"));
    let (r, w) = (
        with.records.as_ref().unwrap(),
        without.records.as_ref().unwrap(),
    );
    let fg = |rec: &headway::stats::RequestRecords| {
        let mut v: Vec<(u64, u64, u64, u64, u64)> = (0..rec.len())
            .filter(|&i| rec.origin[i] < HOST_ORIGIN_BASE)
            .map(|i| {
                (
                    rec.start_ns[i],
                    rec.lbn[i],
                    rec.done_ns[i],
                    rec.predicted_ns[i],
                    rec.dispatch_ns[i],
                )
            })
            .collect();
        v.sort();
        v
    };
    let (a, b) = (fg(r), fg(w));
    let late = (0..r.len())
        .filter(|&i| {
            r.origin[i] >= HOST_ORIGIN_BASE && r.rotate_ns[i] + r.transfer_ns[i] > 3_000_000
        })
        .count();
    let free = (0..r.len())
        .filter(|&i| r.origin[i] >= HOST_ORIGIN_BASE)
        .count();
    let mean = |v: &Vec<(u64, u64, u64, u64, u64)>| {
        v.iter().map(|x| x.2 as f64).sum::<f64>() / v.len() as f64
    };
    println!(
        "free {free} late {late} fg {} {} mean done {:.0} {:.0}",
        a.len(),
        b.len(),
        mean(&a),
        mean(&b)
    );
    for k in 0..a.len().min(b.len()) {
        if a[k] != b[k] {
            println!("first diff at {k}: with {:?} without {:?}", a[k], b[k]);
            break;
        }
    }
    // Free reads before that moment.
    let mut n = 0;
    for i in 0..r.len() {
        if r.origin[i] >= HOST_ORIGIN_BASE && n < 5 {
            n += 1;
            println!(
                "free i {i} start {} ovh {} seek {} rot {} xfer {} bus {} done {}",
                r.start_ns[i],
                r.overhead_ns[i],
                r.seek_ns[i],
                r.rotate_ns[i],
                r.transfer_ns[i],
                r.bus_ns[i],
                r.done_ns[i]
            );
        }
    }
}
