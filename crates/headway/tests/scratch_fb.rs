use headway::config::{build_simulation, resolve_drive, ExperimentConfig};
use headway::device::hdd::{Mechanics, Overheads};
use headway::experiments::freeblock::{oltp_config, ReproduceOptions};
use headway::predict::{Arrival, OraclePredictor, Predictor, ReadBus};
use headway::request::Op;
use std::sync::Arc;

#[test]
fn scratch() {
    let o = ReproduceOptions::quick();
    let small = oltp_config(&o, "scheduler = \"sptf\"", "plan = false");
    let text = small.replace("mean_sectors = 12.0", "mean_sectors = 124.0");
    let cfg = ExperimentConfig::from_toml_str(&text, None).unwrap();
    let r = build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap();
    let rec = r.records.unwrap();
    let spec = resolve_drive("atlas10k", None).unwrap();
    let mech = Arc::new(Mechanics::new(&spec).unwrap());
    let ovh = Overheads::from_spec(&spec);
    let p = OraclePredictor::new(mech, ovh, 0).with_read_bus(ReadBus::from_spec(&spec, &ovh));
    let mut idx: Vec<usize> = (0..rec.len()).collect();
    idx.sort_by_key(|&i| (rec.start_ns[i], rec.lbn[i]));
    let mut arr: Vec<(u64, bool, u64, u32)> = (0..rec.len())
        .map(|i| {
            (
                rec.dispatch_ns[i],
                rec.is_read[i],
                rec.lbn[i],
                rec.sectors[i],
            )
        })
        .collect();
    arr.sort();
    let mut state: Option<(headway::request::HeadPosition, u64)> = None;
    for w in idx.windows(2) {
        let (a, b) = (w[0], w[1]);
        let (start, done, lbn, n, read, hit) = (
            rec.start_ns[b],
            rec.done_ns[b],
            rec.lbn[b],
            rec.sectors[b],
            rec.is_read[b],
            rec.cache_hit[b],
        );
        if !read || hit || n == 0 {
            state = None;
            continue;
        }
        let (ps, pd, pl, pn) = (rec.start_ns[a], rec.done_ns[a], rec.lbn[a], rec.sectors[a]);
        state = match state {
            Some((from_p, o_p)) => {
                let r_p = p.release(from_p, o_p, pl, pn, Op::Read);
                let d_p = r_p.done_ns.unwrap();
                let rel_p = r_p.next_start_ns(o_p);
                let (from, oo) = if start <= pd {
                    (
                        r_p.head,
                        (pd as i64 + rel_p as i64 - d_p as i64).max(0) as u64,
                    )
                } else {
                    (r_p.estimate.end, start)
                };
                let d = p.release(from, oo, lbn, n, Op::Read).done_ns.unwrap();
                let err = done as f64 - d as f64;
                if err.abs() > 1000.0 {
                    println!("ERR {:.4} ms: prev start {ps} done {pd} (pred {d_p}) lbn {pl} n {pn}; c disp {} start {start} done {done} pred {d} lbn {lbn} n {n}", err/1e6, rec.dispatch_ns[b]);
                    for x in arr.iter().filter(|x| x.0 >= ps && x.0 < done) {
                        println!("   arrival {:?}", x);
                    }
                    let during: Vec<Arrival> = arr
                        .iter()
                        .filter(|x| x.0 >= ps && x.0 < pd)
                        .map(|x| Arrival {
                            at_ns: x.0,
                            op: if x.1 { Op::Read } else { Op::Write },
                        })
                        .collect();
                    let r2 = p.release_among(from_p, o_p, pl, pn, Op::Read, &during);
                    println!(
                        "   prev among: done {:?} asks {:?} qn {:?}",
                        r2.done_ns, r2.bus_asked_ns, r2.queued_next_ns
                    );
                }
                Some((from, oo))
            }
            _ => Some((p.track_of(pl + pn.max(1) as u64 - 1).unwrap(), start)),
        };
    }
}
