//! Debug helper: `trace_drive DRIVE TRACE FROM TO` replays a validate trace on the drive model
//! alone and prints each request's outcome in the range.
use headway::device::catalog;
use headway::device::hdd::{Drive, Mechanics};
use headway::validate::read_validate_trace;
use std::sync::Arc;
fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let spec = catalog::lookup(&a[0]).unwrap();
    let recs = read_validate_trace(std::path::Path::new(&a[1])).unwrap();
    let from: usize = a[2].parse().unwrap();
    let to: usize = a[3].parse().unwrap();
    let mut d = Drive::new(&spec, Arc::new(Mechanics::new(&spec).unwrap()));
    let mut t = 0u64;
    for (i, r) in recs.iter().enumerate().take(to.min(recs.len())) {
        let s = d.serve(t, r.lbn, r.sectors, r.op);
        if i >= from && i < from + 50 {
            println!("{i} t={:.3} {:?} {} {} meas {:.3} sim {:.3} hit {} ph {:?} head {:?} cached(lbn) {} cached(end) {}",
                t as f64 / 1e6, r.op, r.lbn, r.sectors, r.measured_ms, (s.done - t) as f64 / 1e6, s.cache_hit, s.phases, s.head,
                d.cached(s.done, r.lbn), d.cached(s.done, r.lbn + r.sectors as u64));
        }
        t = s.done + (r.delay_ms * 1e6) as u64;
        if i >= from && i < from + 50 {
            println!("   state at next arrival: {}", d.describe(t));
        }
    }
    println!("{:?}", d.stats);
}
