//! `cargo run --release -p headway --example reproduce_rotational [-- quick]`: the
//! rotational-scheduling paper's evaluation, printed as tables.

use headway::experiments::rotational::{reproduce, ReproduceOptions};

fn main() -> headway::Result<()> {
    let quick = std::env::args().any(|a| a == "quick");
    let o = if quick {
        ReproduceOptions::quick()
    } else {
        ReproduceOptions::full()
    };
    let t = std::time::Instant::now();
    let r = reproduce(&o, &mut |what| {
        eprintln!("{:7.1}s {what}", t.elapsed().as_secs_f64());
        Ok(())
    })?;
    println!("scheduler  Q     util    busy  iops    mean_ms     max_ms  mispred");
    for u in &r.utilisation {
        println!(
            "{:8} {:5} {:.4} {:.3} {:6.1} {:10.1} {:10.1} {:.3}",
            u.scheduler,
            u.queue_length,
            u.utilisation,
            u.busy_fraction,
            u.throughput_iops,
            u.mean_response_ms,
            u.max_response_ms,
            u.mispredicted_fraction
        );
    }
    for p in &r.prediction {
        println!(
            "{:10} {:9} Q={} n={} mispred {:.4} over {:.4} |err| {:.3} ms util {:.4}",
            p.predictor,
            p.drive,
            p.queue_length,
            p.requests,
            p.mispredicted_fraction,
            p.overestimated_fraction,
            p.mean_abs_error_ms,
            p.utilisation
        );
    }
    for t in &r.traces {
        println!(
            "{:6} {:6} n={} util {:.4} mean {:8.1} max {:9.1} queue {:.1}",
            t.workload,
            t.scheduler,
            t.requests,
            t.utilisation,
            t.mean_response_ms,
            t.max_response_ms,
            t.mean_queue_at_arrival
        );
    }
    for st in &r.stability {
        println!(
            "stability wait {:5.1} s: {}/{} right, {:.2} ms",
            st.wait_s, st.correct, st.trials, st.mean_overhead_ms
        );
    }
    println!("{:#?}", r.headline);
    Ok(())
}
