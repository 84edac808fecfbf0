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
    let mut idx: Vec<usize> = (0..rec.len()).filter(|&i| !rec.cache_hit[i]).collect();
    idx.sort_by_key(|&i| rec.start_ns[i]);
    let (mut gaps, mut seek_off, mut both, mut tot) = (0, 0, 0, 0);
    let mut shown2 = 0;
    let (mut gmax, mut gmin, mut within_sector) = (0i64, 0i64, 0);
    for w in idx.windows(2) {
        let (p, i) = (w[0], w[1]);
        if rec.start_ns[i] > rec.done_ns[p] + 1000 { continue; } // drive was idle
        tot += 1;
        let mstart = rec.start_ns[i] + rec.overhead_ns[i];
        let gap = mstart as i64 - rec.done_ns[p] as i64;
        let last = rec.lbn[p] + rec.sectors[p].max(1) as u64 - 1;
        let (pc, ps) = mech.layout.track_of(last);
        let loc = mech.layout.locate(rec.lbn[i]);
        let mv = mech.move_ns(HeadPosition { cylinder: pc, surface: ps }, loc.cylinder, loc.surface, Op::Read) as i64;
        let se = rec.seek_ns[i] as i64 - mv;
        if gap.abs() > 1000 { gaps += 1; gmax = gmax.max(gap); gmin = gmin.min(gap); let spt = mech.layout.locate(last).spt; if gap as f64 <= mech.sector_ns(spt) + 1.0 { within_sector += 1; } }
        if se.abs() > 1000 { seek_off += 1; }
        if gap.abs() > 1000 && se.abs() > 1000 { both += 1; }
        if (gap.abs() > 1000 || se.abs() > 1000) && shown2 < 6 { shown2 += 1; println!("  arrival: gap {gap} seek_err {se} prev_free {} this_free {} prev_rot {} prev_xfer {}", rec.origin[p] >= HOST_ORIGIN_BASE, rec.origin[i] >= HOST_ORIGIN_BASE, rec.rotate_ns[p], rec.transfer_ns[p]); }
    }
    println!("gap min {gmin} max {gmax}, within one sector time of the previous read's last track {within_sector}");
    println!("back-to-back commands {tot}: mech start not at previous completion {gaps}, seek != move from previous last sector's track {seek_off}, both {both}");
    println!(
        "slots {slots}: read misses {n_miss}, tail exact {exact}, within 1us {within_1us}, worst err {worst} ns"
    );
}
