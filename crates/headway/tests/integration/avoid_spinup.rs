//! `avoid_spinup` on the core `flash-backed` wrapper: while the platter is spun down, writes
//! go to flash instead of waking it, so a write-mostly desktop load with long idle gaps
//! spins the platter up less often and uses less energy.

use headway::config::{build_simulation, ExperimentConfig};
use headway::stats::Summary;

fn run(options: &str, read_fraction: f64) -> Summary {
    run_f(options, read_fraction, 8.0)
}

fn run_f(options: &str, read_fraction: f64, fqueue_mib: f64) -> Summary {
    let text = format!(
        r#"seed = 4
[[devices]]
name = "platter"
drive = "ek1000"
power = {{ active_w = 2.0, idle_w = 0.85, standby_w = 0.2, spinup_ms = 3000.0, spinup_j = 13.5, spindown_timeout_ms = 1000.0 }}
[[devices]]
name = "nvcache"
drive = "flash"
flash = {{ logical_bytes = 134217728 }}
[[workloads]]
name = "desktop"
kind = "bursty"
requests = 600
on_rate_iops = 50.0
on_mean_ms = 200.0
off_mean_ms = 4000.0
size_sectors = 16
read_fraction = {read_fraction:?}
device = "platter"
[host]
scheduler = "flash-backed"
[host.options]
fqueue_mib = {fqueue_mib:?}
{options}
[host.inner]
scheduler = "clook"
"#
    );
    let cfg = ExperimentConfig::from_toml_str(&text, None).unwrap();
    build_simulation(&cfg, None)
        .unwrap()
        .simulation
        .run()
        .unwrap()
        .summary
}

fn platter(s: &Summary) -> &headway::device::power::EnergySummary {
    s.energy
        .iter()
        .find(|e| e.name == "platter")
        .expect("energy")
}

fn origin(s: &Summary, name: &str) -> u64 {
    s.by_origin
        .iter()
        .find(|g| g.name == name)
        .map_or(0, |g| g.requests)
}

#[test]
fn writes_to_a_spun_down_platter_go_to_flash_and_save_spinups() {
    let plain = run("", 0.0);
    let avoid = run("avoid_spinup = true\nspindown_timeout_ms = 1000.0", 0.0);
    for s in [&plain, &avoid] {
        assert_eq!(s.requests, 600);
        let e = platter(s);
        let parts = e.active_j + e.idle_j + e.standby_j + e.spinup_j;
        assert!((e.total_j - parts).abs() < 1e-6 * e.total_j.max(1.0));
    }
    let (ep, ea) = (platter(&plain), platter(&avoid));
    // Writes only: with the FQueue large enough, the platter wakes only to flush it.
    assert!(
        ea.spinups * 2 <= ep.spinups && ep.spinups >= 4,
        "spin-ups: {} with avoid_spinup, {} without",
        ea.spinups,
        ep.spinups
    );
    assert!(
        ea.total_j < ep.total_j,
        "{} J against {} J",
        ea.total_j,
        ep.total_j
    );
    assert!(origin(&avoid, "fb-redirect") > origin(&plain, "fb-redirect"));
    eprintln!(
        "spin-ups {} -> {}, energy {:.1} J -> {:.1} J, redirects {} -> {}, write-backs {} -> {}, mean response {:.2} ms -> {:.2} ms",
        ep.spinups,
        ea.spinups,
        ep.total_j,
        ea.total_j,
        origin(&plain, "fb-redirect"),
        origin(&avoid, "fb-redirect"),
        origin(&plain, "fb-idle") + origin(&plain, "fb-flush"),
        origin(&avoid, "fb-idle") + origin(&avoid, "fb-flush"),
        plain.response.mean_ms,
        avoid.response.mean_ms
    );
}

#[test]
fn a_full_fqueue_still_flushes_to_the_platter() {
    // 0.5 MiB holds 64 of the 16-sector writes: flushes at the high watermark wake the
    // platter, write the data back (nothing is lost), and there are still fewer spin-ups.
    let plain = run_f("", 0.0, 0.5);
    let avoid = run_f(
        "avoid_spinup = true\nspindown_timeout_ms = 1000.0",
        0.0,
        0.5,
    );
    assert_eq!(avoid.requests, 600);
    let (ep, ea) = (platter(&plain), platter(&avoid));
    assert!(
        ea.spinups > 0 && ea.spinups < ep.spinups,
        "{} {}",
        ea.spinups,
        ep.spinups
    );
    let written_back = origin(&avoid, "fb-flush") + origin(&avoid, "fb-idle");
    assert!(written_back > 0);
    // The FQueue holds at most 1024 sectors: what was redirected and is not in it any more
    // went back to the platter, in write-backs of at most the FQueue's size each.
    assert!(origin(&avoid, "fb-redirect") * 16 <= 1024 + written_back * 1024);
}

#[test]
fn reads_still_wake_the_platter() {
    // All reads: nothing to redirect, the same spin-ups either way.
    let plain = run("", 1.0);
    let avoid = run("avoid_spinup = true\nspindown_timeout_ms = 1000.0", 1.0);
    assert_eq!(platter(&plain).spinups, platter(&avoid).spinups);
    assert_eq!(origin(&avoid, "fb-redirect"), 0);
}

#[test]
fn avoid_spinup_without_the_standby_timer_is_a_keyed_error() {
    let text = "[[devices]]\nname = \"p\"\ndrive = \"ek1000\"\n[[devices]]\nname = \"f\"\n\
                drive = \"flash\"\n[[workloads]]\nrequests = 3\ndevice = \"p\"\n[host]\n\
                scheduler = \"flash-backed\"\n[host.options]\nfqueue_mib = 4.0\navoid_spinup = true\n\
                [host.inner]\nscheduler = \"clook\"\n";
    let e = match ExperimentConfig::from_toml_str(text, None) {
        Err(e) => e.to_string(),
        Ok(cfg) => build_simulation(&cfg, None)
            .err()
            .expect("refused")
            .to_string(),
    };
    assert!(e.contains("host.options.spindown_timeout_ms"), "{e}");
}
