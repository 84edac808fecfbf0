//! Host zone write plugging and zone-append emulation (`[host] zone_write_plugging`,
//! `zone_append`) over the `kind = "zoned"` writers: every scheduler keeps each zone's
//! writes in order, and emulated appends land where the drive would have put them.

use std::collections::HashSet;

use headway::config::{build_simulation, ExperimentConfig};

use crate::zoned_host::{in_zone_order, writers};

/// Each of the 404 requests (400 writes, 4 resets) completed exactly once.
fn conserved(r: &headway::sim::RunResult) {
    let rec = r.records.as_ref().unwrap();
    assert_eq!((r.summary.requests, rec.len()), (404, 404));
    let ids: HashSet<u64> = rec.id.iter().copied().collect();
    assert_eq!(ids.len(), 404, "a request completed twice");
}

#[test]
fn plugging_keeps_every_zone_in_order_under_any_scheduler() {
    // Four writes in flight per zone: SPTF alone takes a zone's later write first when the
    // head reaches it sooner, and the drive refuses it.
    let bare = writers(false, 4, "[host]\nscheduler = \"sptf\"");
    assert!(bare.zoned[0].unaligned_writes > 0, "{:?}", bare.zoned[0]);
    for sched in ["sptf", "clook", "fcfs", "mq-deadline"] {
        let host = format!("[host]\nscheduler = \"{sched}\"\nzone_write_plugging = true");
        let r = writers(false, 4, &host);
        let z = &r.zoned[0];
        assert_eq!((z.errors(), z.resets), (0, 4), "{sched}: {z:?}");
        conserved(&r);
        in_zone_order(r.records.as_ref().unwrap());
    }
}

#[test]
fn emulated_appends_land_at_consecutive_lbns_and_a_reset_rewinds_the_pointer() {
    for sched in ["sptf", "fcfs"] {
        let host = format!("[host]\nscheduler = \"{sched}\"\nzone_append = \"emulated\"");
        let r = writers(true, 4, &host);
        let z = &r.zoned[0];
        // The drive received plain writes, every one at its write pointer.
        assert_eq!(
            (z.errors(), z.appends, z.resets),
            (0, 0, 4),
            "{sched}: {z:?}"
        );
        conserved(&r);
        let rec = r.records.as_ref().unwrap();
        let ops: HashSet<&str> = rec.zone_op.iter().copied().collect();
        assert_eq!(ops, HashSet::from(["append", "reset"]));
        // Writer p's appends sit at zone p + 1's start plus 120 per earlier append of the
        // fill: the second fill starts at the zone's start again, after the reset.
        in_zone_order(rec);
    }
}

fn error(host: &str, drive_zoned: bool) -> String {
    let zoned = if drive_zoned {
        "[drive.zoned]\nzone_size_sectors = 260400\nconventional_zones = 1\n"
    } else {
        ""
    };
    let text = format!(
        "[drive]\nname = \"ek1000\"\n{zoned}[workload]\nkind = \"zoned\"\n\
         zone_size_sectors = 260400\nfirst_zone = 1\n{host}"
    );
    match ExperimentConfig::from_toml_str(&text, None) {
        Err(e) => e.to_string(),
        Ok(c) => build_simulation(&c, None)
            .err()
            .expect("refused")
            .to_string(),
    }
}

#[test]
fn plugging_keys_are_checked() {
    let e = error(
        "[host]\nzone_append = \"emulated\"\nzone_write_plugging = false",
        true,
    );
    assert!(
        e.contains("host.zone_append") && e.contains("plugging"),
        "{e}"
    );
    let e = error("[host]\nzone_write_plugging = true", false);
    assert!(
        e.contains("host.zone_write_plugging") && e.contains("no device is a zoned drive"),
        "{e}"
    );
    let e = error("[host]\nzone_append = \"emulated\"", false);
    assert!(e.contains("host.zone_append"), "{e}");
    let e = error("[host]\nzone_append = \"host\"", true);
    assert!(e.contains("zone_append") && e.contains("emulated"), "{e}");
    // mq-deadline's own zone locking beside the plug would lock each zone twice.
    let e = error(
        "[host]\nscheduler = \"mq-deadline\"\nzone_write_plugging = true\n[host.options]\n\
         zone_size_sectors = 260400\nconventional_zones = 1",
        true,
    );
    assert!(
        e.contains("host.options.zone_size_sectors") && e.contains("twice"),
        "{e}"
    );
    // Merging: a limit of 0 sectors, and merge keys where nothing is plugged or merged.
    let e = error(
        "[host]\nzone_write_plugging = true\nzone_plug_max_merge_sectors = 0",
        true,
    );
    assert!(
        e.contains("host.zone_plug_max_merge_sectors") && e.contains("at least 1"),
        "{e}"
    );
    let e = error("[host]\nzone_plug_merge = true", true);
    assert!(
        e.contains("host.zone_plug_merge") && e.contains("zone_write_plugging = true"),
        "{e}"
    );
    let e = error(
        "[host]\nzone_write_plugging = true\nzone_plug_merge = false\n\
         zone_plug_max_merge_sectors = 64",
        true,
    );
    assert!(
        e.contains("host.zone_plug_max_merge_sectors") && e.contains("no merging"),
        "{e}"
    );
}

#[test]
fn the_zoned_plugging_example_serves_every_write_under_sptf() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/zoned_plugging.toml");
    let cfg = ExperimentConfig::from_toml_file(&path).unwrap();
    let r = build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap();
    let z = &r.zoned[0];
    // Four writers, two fills of 100 writes each, a reset after each fill but the last.
    assert_eq!(
        (r.summary.requests, z.errors(), z.resets),
        (804, 0, 4),
        "{z:?}"
    );
}
