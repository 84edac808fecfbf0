// Private probe (not committed): DRIVE then lines "arrival_ms lbn n r|w" on stdin.
use headway::device::catalog;
use headway::device::hdd::{Drive, Mechanics};
use headway::request::Op;
use std::io::BufRead;
use std::sync::Arc;
fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let spec = catalog::lookup(&a[0]).unwrap();
    let mut d = Drive::new(&spec, Arc::new(Mechanics::new(&spec).unwrap()));
    let mut free = 0u64;
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let f: Vec<&str> = line.split_whitespace().collect();
        let arr = (f[0].parse::<f64>().unwrap() * 1e6) as u64;
        let op = if f[3] == "r" { Op::Read } else { Op::Write };
        let t = arr.max(free);
        if std::env::var("RAH_DESC").is_ok() { println!("  state {}", d.describe(t)); }
        let s = d.serve(t, f[1].parse().unwrap(), f[2].parse().unwrap(), op);
        free = s.done;
        println!("{} resp {:.6} hit {} ph {:?}", line, (s.done - arr) as f64 / 1e6, s.cache_hit, s.phases);
    }
}
