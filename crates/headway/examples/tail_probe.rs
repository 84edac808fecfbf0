//! Scratch probe (not committed): is a read miss's bus tail a pure function of the
//! request and the head's arrival on its first track, given the drive's bus spec?
use std::sync::Arc;

use headway::config::{build_simulation, ExperimentConfig};
use headway::device::catalog;
use headway::device::hdd::bus::{self, Bus, Stream};
use headway::device::hdd::media::{self, Avail, MediaPlan};
use headway::device::hdd::{Mechanics, Overheads};
use headway::request::{HeadPosition, Op, HOST_ORIGIN_BASE};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let slots = args.get(1).map_or(false, |a| a == "slots");
    let opts = args.get(2).cloned().unwrap_or("c_fb_ms = 0.0".into());
    let mut text = format!(
        "seed = 3\n[drive]\nname = \"atlas10k\"\nqueue_depth = 2\n[host]\nscheduler = \"freeblock\"\nmax_outstanding = 2\n[host.options]\n{opts}\n[host.inner]\nscheduler = \"sptf\"\n[workload]\nkind = \"closed\"\nprocesses = 10\nthink_ms = 30.0\nrequests = 2000\nread_fraction = 1.0\nalign_sectors = 8\nsize = {{ kind = \"exponential\", mean_sectors = 12.0 }}\n[output]\nrecords = true\n"
    );
    let _unused = format!(
        "seed = 3\n[drive]\nname = \"atlas10k\"\nqueue_depth = 2\n\
         [host]\nscheduler = \"freeblock\"\nmax_outstanding = 2\n\
         [host.options]\nc_fb_ms = 0.0\n[host.inner]\nscheduler = \"sptf\"\n\
         [workload]\nkind = \"closed\"\nprocesses = 10\nthink_ms = 30.0\nrequests = 2000\n\
         read_fraction = 1.0\nalign_sectors = 8\n\
         size = {{ kind = \"exponential\", mean_sectors = 12.0 }}\n\
         [output]\nrecords = true\n"
    );
    if slots {
        text = text
            .replace(
                "queue_depth = 2\n",
                "queue_depth = 4\nfirmware_scheduler = \"fcfs\"\n",
            )
            .replace("max_outstanding = 2\n", "max_outstanding = 4\n")
            .replace("[host.options]\n", "[host.options]\nfree_slots = true\n");
    }
    let cfg = ExperimentConfig::from_toml_str(&text, None).unwrap();
    let res = build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap();
    let rec = res.records.as_ref().unwrap();
    let spec = catalog::lookup("atlas10k").unwrap();
    let mech = Arc::new(Mechanics::new(&spec).unwrap());
    let o = Overheads::from_spec(&spec);
    let c = spec.cache.as_ref().unwrap();
    let b = Bus::from_spec(&spec.bus, c.never_disconnect);
    let zl = c.immediate_buffer_read || c.read_any_free_blocks;
    println!(
        "bus blk {} hold {} nd {} zl {} water {} by_req {} seg {}",
        b.read_block_ns,
        b.hold_read,
        b.never_disconnect,
        zl,
        c.high_water_mark,
        c.watermark_by_request_size,
        c.segment_sectors
    );
    let (mut n_miss, mut exact, mut within_1us, mut worst) = (0, 0, 0, 0i64);
    let mut shown = 0;
    let mut via_bad = 0;
    let (mut big_me, mut big_me_zero_rot) = (0, 0);
    let (mut vmin, mut vmax) = (0i64, 0i64);
    let orc = headway::predict::OraclePredictor::new(mech.clone(), o, 0)
        .with_read_bus(headway::predict::ReadBus::from_spec(&spec, &o));
    use headway::predict::Predictor;
    for i in 0..rec.len() {
        if rec.cache_hit[i] || !rec.is_read[i] || rec.sectors[i] == 0 {
            continue;
        }
        n_miss += 1;
        let (lbn, n) = (rec.lbn[i], rec.sectors[i]);
        let loc = mech.layout.locate(lbn);
        let here = HeadPosition {
            cylinder: loc.cylinder,
            surface: loc.surface,
        };
        // The head arrives on the first track after overhead and seek.
        let arrive = (rec.start_ns[i] + rec.overhead_ns[i] + rec.seek_ns[i]) as f64;
        let mut plan = MediaPlan::default();
        media::plan_into(
            &mut plan,
            &mech,
            here,
            arrive,
            lbn,
            n,
            Op::Read,
            zl,
            0,
            None,
            None,
        );
        let avail = Avail::from_plan(&plan, arrive);
        let water = if c.watermark_by_request_size {
            ((c.segment_sectors.min(n) as f64 * c.high_water_mark) as u32).max(1)
        } else {
            ((c.segment_sectors as f64 * c.high_water_mark + 0.9999999999) as u32).max(1)
        };
        let reconnect = (o.reselect_first_ns + o.data_prep_ns) as f64;
        let s = Stream {
            block_ns: b.read_block_ns,
            hold: b.hold_read || b.never_disconnect,
            disconnect_ns: o.read_disconnect_ns[0] as f64,
            reconnect_ns: reconnect,
            watermark: water,
        };
        // The command's own overhead is done by the time the media starts (disconnect too).
        let disconnected = (rec.start_ns[i] + rec.overhead_ns[i]) as f64;
        let e = if b.never_disconnect {
            bus::transfer_end(&avail, lbn, n, disconnected + o.data_prep_ns as f64, &s)
        } else {
            let w = water.min(n).max(1);
            let ready = avail.time_of(lbn + w as u64 - 1).unwrap_or(arrive);
            bus::transfer_end(&avail, lbn, n, ready.max(disconnected) + reconnect, &s)
        };
        let media_end = rec.start_ns[i]
            + rec.overhead_ns[i]
            + rec.seek_ns[i]
            + rec.rotate_ns[i]
            + rec.transfer_ns[i];
        let pred_tail = (e - plan.end).max(0.0) as i64 + o.completion_ns[0] as i64;
        let real_tail = rec.done_ns[i] as i64 - media_end as i64;
        let media_err = plan.end as i64 - media_end as i64;
        let mo = o.mechanical_start_ns(Op::Read, Op::Read);
        let s0 = arrive as u64 - mo;
        let via = orc.tail_at(here, s0, lbn, n, Op::Read) as i64;
        let est = orc.estimate(here, s0, lbn, n, Op::Read);
        let me_err = (s0 + est.service_ns()) as i64 - (media_end as i64 - mo as i64);
        if me_err.abs() > 1000 {
            big_me += 1;
            if rec.rotate_ns[i] == 0 {
                big_me_zero_rot += 1;
            }
        }
        let via_err = (s0 + est.service_ns()) as i64 + via - (rec.done_ns[i] as i64 - mo as i64);
        if media_err.abs() < 10 {
            vmin = vmin.min(via_err);
            vmax = vmax.max(via_err);
        }
        if via_err != 0 {
            via_bad += 1;
            if via_bad < 5 {
                println!("  via err {via_err} lbn {lbn} n {n}");
            }
        }
        let err = pred_tail - real_tail;
        if err == 0 {
            exact += 1;
        }
        if err.abs() <= 1000 {
            within_1us += 1;
        }
        if err.abs() > worst.abs() {
            worst = err;
        }
        if err.abs() > 1000 && shown < 8 {
            shown += 1;
            println!(
                "  i {i} lbn {lbn} n {n} origin {} media_err {media_err} pred {pred_tail} real {real_tail} bus {}",
                rec.origin[i] >= HOST_ORIGIN_BASE, rec.bus_ns[i]
            );
        }
    }
    println!("via_bad {via_bad} min {vmin} max {vmax}; oracle media end off by >1us: {big_me} (of which drive rotate 0: {big_me_zero_rot})");
    println!(
        "slots {slots}: read misses {n_miss}, tail exact {exact}, within 1us {within_1us}, worst err {worst} ns"
    );
}
