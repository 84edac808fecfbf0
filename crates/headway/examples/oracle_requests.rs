//! Debug helper: `oracle_requests DRIVE TRACE QUEUE_DEPTH POLICY [SPTF_ANGLE]` replays a
//! DiskSim ASCII trace on the catalog drive with that drive queue and firmware policy (and
//! `firmware_sptf_angle`, `decision` by default), and prints one line
//! per request in the trace's order (times in ms): arrival, dispatch, start, the phases and
//! the completion, to compare request by request with a DiskSim that prints its own.
use headway::config::{build_simulation, ExperimentConfig};

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let toml = format!(
        "[drive]\nname = \"{}\"\nqueue_depth = {}\nfirmware_scheduler = \"{}\"\n\
         firmware_sptf_angle = \"{}\"\n\
         [host]\nscheduler = \"fcfs\"\n\
         [workload]\nkind = \"trace\"\npath = \"{}\"\nformat = \"disksim-ascii\"\n\
         [output]\nrecords = true\n",
        a[0],
        a[2],
        a[3],
        a.get(4).map_or("decision", String::as_str),
        a[1]
    );
    let cfg = ExperimentConfig::from_toml_str(&toml, None).unwrap();
    let r = build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap();
    let rec = r.records.unwrap();
    let mut idx: Vec<usize> = (0..rec.len()).collect();
    idx.sort_unstable_by_key(|&i| rec.id[i]);
    let ms = |ns: u64| ns as f64 / 1e6;
    for i in idx {
        println!(
            "{} arr {:.6} disp {:.6} start {:.6} ovh {:.6} seek {:.6} rot {:.6} xfer {:.6} bus {:.6} done {:.6} resp {:.6} blk {} n {} r {} hit {}",
            rec.id[i],
            ms(rec.arrival_ns[i]),
            ms(rec.dispatch_ns[i]),
            ms(rec.start_ns[i]),
            ms(rec.overhead_ns[i]),
            ms(rec.seek_ns[i]),
            ms(rec.rotate_ns[i]),
            ms(rec.transfer_ns[i]),
            ms(rec.bus_ns[i]),
            ms(rec.done_ns[i]),
            ms(rec.done_ns[i] - rec.arrival_ns[i]),
            rec.lbn[i],
            rec.sectors[i],
            u8::from(rec.is_read[i]),
            u8::from(rec.cache_hit[i]),
        );
    }
}
