//! Flash-backed I/O on the core: the `flash-backed` wrapper over a real platter drive model
//! and a flash `[[devices]]` entry; power states attached to a device; keyed errors.

use headway::config::{build_simulation, ExperimentConfig};

fn run(text: &str) -> headway::Result<headway::sim::RunResult> {
    let cfg = ExperimentConfig::from_toml_str(text, None)?;
    build_simulation(&cfg, None)?.simulation.run()
}

fn hybrid(scheduler_block: &str, extra_device: &str) -> String {
    format!(
        r#"
seed = 5
[[devices]]
name = "platter"
drive = "ek1000"
{extra_device}
[[devices]]
name = "nvcache"
drive = "flash"
flash = {{ logical_bytes = 33554432 }}
[[workloads]]
name = "w"
kind = "bursty"
requests = 1500
on_rate_iops = 150.0
on_mean_ms = 300.0
off_mean_ms = 1500.0
size_sectors = 16
read_fraction = 0.4
device = "platter"
{scheduler_block}
"#
    )
}

const FB: &str = r#"
[host]
scheduler = "flash-backed"
[host.options]
fqueue_mib = 4.0
[host.inner]
scheduler = "clook"
"#;

const BASE: &str = r#"
[host]
scheduler = "clook"
"#;

fn origin<'a>(
    s: &'a headway::stats::Summary,
    name: &str,
) -> Option<&'a headway::stats::GroupSummary> {
    s.by_origin.iter().find(|d| d.name == name)
}

#[test]
fn flash_backed_on_the_core_redirects_serves_and_writes_back() {
    let fb = run(&hybrid(FB, "")).unwrap();
    let s = &fb.summary;
    // Every workload request completes, and the host-made work is counted apart.
    assert_eq!(s.requests, 1500);
    let redirect = origin(s, "fb-redirect").expect("writes were redirected");
    assert!(redirect.requests > 50, "{}", redirect.requests);
    let idle = origin(s, "fb-idle").map_or(0, |d| d.requests);
    let flush = origin(s, "fb-flush").map_or(0, |d| d.requests);
    assert!(idle > 0, "idle gaps of seconds give idle-time write-back");
    // Write-backs merge neighbours, so there are at most as many as redirected copies.
    assert!(idle + flush <= redirect.requests);
    // Redirected copies went to the flash device.
    let flash_dev = s.by_device.iter().find(|d| d.name == "nvcache").unwrap();
    assert_eq!(flash_dev.requests, redirect.requests);
    // Determinism.
    let again = run(&hybrid(FB, "")).unwrap();
    assert_eq!(
        serde_json::to_string(&fb.summary).unwrap(),
        serde_json::to_string(&again.summary).unwrap()
    );
    // Against the paired run without redirection, the workload's requests are faster.
    let base = run(&hybrid(BASE, "")).unwrap();
    assert_eq!(base.summary.requests, 1500);
    let (a, b) = (fb.summary.response.mean_ms, base.summary.response.mean_ms);
    eprintln!(
        "redirect {} idle {idle} flush {flush} fb mean {a:.2} ms base {b:.2} ms served {}",
        redirect.requests, s.host_served_requests
    );
    assert!(a < b, "fb {a} base {b}");
}

#[test]
fn a_powered_platter_spins_down_and_delays_the_next_arrival() {
    let power = r#"power = { active_w = 2.0, idle_w = 0.85, standby_w = 0.2, spinup_ms = 3000.0, spinup_j = 13.5, spindown_timeout_ms = 500.0 }"#;
    let slow = run(&hybrid(BASE, power)).unwrap();
    let plain = run(&hybrid(BASE, "")).unwrap();
    // OFF gaps of 1.5 s on average exceed the 0.5 s timeout: some arrivals wait 3 s.
    assert!(
        slow.summary.response.max_ms >= 3000.0,
        "{}",
        slow.summary.response.max_ms
    );
    assert!(plain.summary.response.max_ms < 3000.0);
    // Energy per state in the summary: states add up to the run's time and energy.
    let e = &slow.summary.energy;
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].name, "platter");
    assert!(e[0].spinups > 0 && e[0].spindowns >= e[0].spinups);
    let secs = e[0].active_s + e[0].idle_s + e[0].standby_s + e[0].spinup_s;
    assert!(
        (secs - slow.end_ns as f64 / 1e9).abs() < 1e-6,
        "{secs} {}",
        slow.end_ns
    );
    let joules = e[0].active_j + e[0].idle_j + e[0].standby_j + e[0].spinup_j;
    assert!((joules - e[0].total_j).abs() < 1e-9);
    assert!((e[0].spinup_j - 13.5 * e[0].spinups as f64).abs() < 1e-9);
    let json = slow.summary.to_flat_json();
    assert!(json["energy"]["platter"]["total_j"].as_f64().unwrap() > 0.0);
    // A run without power states has no energy section.
    assert!(plain.summary.energy.is_empty());
    assert!(plain.summary.to_flat_json().get("energy").is_none());
    // Without `power` the device is as before (no key, no change).
    let none = run(&hybrid(BASE, "")).unwrap();
    assert_eq!(
        serde_json::to_string(&plain.summary).unwrap(),
        serde_json::to_string(&none.summary).unwrap()
    );
}

#[test]
fn keyed_errors_for_impossible_hybrids() {
    // F larger than the flash device.
    let big = FB.replace("fqueue_mib = 4.0", "fqueue_mib = 64.0");
    let e = run(&hybrid(&big, "")).unwrap_err().to_string();
    assert!(e.contains("host.options.fqueue_mib"), "{e}");
    // Watermarks out of order.
    let wm = FB.replace(
        "fqueue_mib = 4.0",
        "fqueue_mib = 4.0\nhigh_watermark = 0.5\nlow_watermark = 0.8",
    );
    let e = run(&hybrid(&wm, "")).unwrap_err().to_string();
    assert!(e.contains("host.options.low_watermark"), "{e}");
    // A hybrid without its flash device.
    let text = hybrid(FB, "").replace(
        "[[devices]]\nname = \"nvcache\"\ndrive = \"flash\"\nflash = { logical_bytes = 33554432 }\n",
        "",
    );
    let e = run(&text).unwrap_err().to_string();
    assert!(e.contains("host.options.flash_device"), "{e}");
    // A hybrid without a platter drive: every device flash.
    let text = hybrid(FB, "").replace("drive = \"ek1000\"", "drive = \"flash\"");
    let e = run(&text).unwrap_err().to_string();
    assert!(e.contains("devices") && e.contains("rotating drive"), "{e}");
    // Bad flash geometry names the device's key.
    let text = hybrid(FB, "").replace(
        "logical_bytes = 33554432",
        "logical_bytes = 33554432, erase_block_bytes = 1000",
    );
    let e = run(&text).unwrap_err().to_string();
    assert!(e.contains("devices[1].flash.erase_block_bytes"), "{e}");
}
