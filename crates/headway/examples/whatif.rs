//! Debug helper: `whatif DRIVE FIELD=VALUE...` validates the drive with spec fields changed
//! (for locating mechanisms, not for tuning the catalog).
use headway::device::catalog;
use headway::validate::{builtin_trace, validate};
fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let mut spec = catalog::lookup(&a[0]).unwrap();
    for kv in &a[1..] {
        let (k, v) = kv.split_once('=').unwrap();
        let f: f64 = v.parse().unwrap();
        match k {
            "settle" => spec.write_settle_ms = f,
            "head_switch" => spec.head_switch_ms = f,
            "rpm" => spec.rpm = f,
            "read_miss" => {
                spec.overheads.read_miss_after_read_ms = f;
                spec.overheads.read_miss_after_write_ms = f;
            }
            "write_miss" => {
                spec.overheads.write_miss_after_read_ms = f;
                spec.overheads.write_miss_after_write_ms = f;
            }
            "read_miss_aw" => spec.overheads.read_miss_after_write_ms = f,
            "reselect" => spec.overheads.first_reselect_ms = f,
            "write_completion" => spec.overheads.write_completion_ms = f,
            "bus" => spec.bus.sector_transfer_ms = f,
            "immed_read" => spec.cache.as_mut().unwrap().immediate_buffer_read = f != 0.0,
            "free_blocks" => spec.cache.as_mut().unwrap().read_any_free_blocks = f != 0.0,
            "immed_write" => spec.cache.as_mut().unwrap().immediate_buffer_write = f != 0.0,
            _ => panic!("unknown {k}"),
        }
    }
    let recs = builtin_trace(&a[0]).unwrap();
    let r = validate(&spec, &recs).unwrap();
    let mean = |op: headway::Op| {
        let v: Vec<f64> = r
            .pairs
            .iter()
            .zip(&recs)
            .filter(|(_, x)| x.op == op)
            .map(|(p, _)| p.1)
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    if let Ok(path) = std::env::var("PAIRS_OUT") {
        let mut out = String::from("index,op,lbn,sectors,measured_ms,simulated_ms\n");
        for (i, (p, x)) in r.pairs.iter().zip(&recs).enumerate() {
            out += &format!(
                "{i},{},{},{},{},{}\n",
                if x.op.is_read() { "R" } else { "W" },
                x.lbn,
                x.sectors,
                p.0,
                p.1
            );
        }
        std::fs::write(path, out).unwrap();
    }
    println!(
        "{} meas {:.3} sim {:.3} (R {:.3} W {:.3}) demerit {:.4}",
        a.join(" "),
        r.measured_mean_ms,
        r.simulated_mean_ms,
        mean(headway::Op::Read),
        mean(headway::Op::Write),
        r.demerit_ms
    );
}
