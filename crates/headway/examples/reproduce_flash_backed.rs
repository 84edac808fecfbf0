//! Run the flash-backed paper's evaluation and print the headline and the C-LOOK sweep:
//! `cargo run --release -p headway --example reproduce_flash_backed -- [--quick] [HP.srt]`.

use headway::experiments::flash_backed::{reproduce, ReproduceOptions};

fn main() -> headway::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut o = if args.iter().any(|a| a == "--quick") {
        ReproduceOptions::quick()
    } else {
        ReproduceOptions::full()
    };
    o.hp_trace = args.iter().find(|a| !a.starts_with("--")).map(Into::into);
    let t = std::time::Instant::now();
    let r = reproduce(&o, &mut |w| {
        eprintln!("{w}");
        Ok(())
    })?;
    for s in r.sweep.iter().filter(|s| s.scheduler == "clook") {
        println!(
            "{:6} {:7.2} MiB base {:7.2} ms fb {:7.2} ms norm {:.3} total {:.3} idle {:.3} flush {:.3} ovw {:.3} redir {:.3} years {:.1} disk {:.3}/{:.3}",
            s.trace, s.fqueue_mib, s.base_write_ms, s.write_ms, s.write_latency_norm,
            s.total_latency_norm, s.idle_share, s.flush_share, s.overwrite_fraction,
            s.redirected_fraction, s.years_to_wear_out, s.disk_time_norm, s.disk_writes_norm
        );
    }
    for d in &r.delay {
        println!(
            "delay {:6} {:7.2} MiB {:7.0} ms norm {:.3} total {:.3} idle {:.3} flush {:.3} ovw {:.4} ovw/writes {:.4} redir {:.3}",
            d.trace, d.fqueue_mib, d.idle_delay_ms, d.write_latency_norm, d.total_latency_norm,
            d.idle_share, d.flush_share, d.overwrite_fraction, d.overwrites_of_writes,
            d.redirected_fraction
        );
    }
    for c in &r.core {
        println!("core {:6} {:7.2} MiB base {:7.2} ms fb {:7.2} ms norm {:.3} redirected {} idle {} flush {} served {}",
            c.inner, c.fqueue_mib, c.base_mean_ms, c.mean_ms, c.response_norm, c.redirected,
            c.idle_writebacks, c.flush_writebacks, c.served_from_memory);
    }
    println!("{}", serde_json::to_string_pretty(&r.headline).unwrap());
    println!("{}", serde_json::to_string(&r.traces).unwrap());
    eprintln!("{:.1} s", t.elapsed().as_secs_f64());
    Ok(())
}
