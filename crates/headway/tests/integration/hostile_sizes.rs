//! Numbers that would size an allocation are refused with a keyed error first. Each of these
//! once aborted the process ("memory allocation of N bytes failed"): found by the
//! hostile-input CLI tests (tests/test_hostile_inputs.py).

use headway::config::ExperimentConfig;
use headway::device::catalog::{lookup, parse_toml_spec};
use headway::device::hdd::spec::{MAX_CYLINDERS, MAX_SURFACES};
use headway::device::hdd::{HddDevice, MAX_QUEUE_DEPTH};
use headway::HeadwayError;

const ELITE3: &str = include_str!("../../catalog/elite3.toml");

fn key_of(e: &HeadwayError) -> Option<&str> {
    match e {
        HeadwayError::Params { key, .. } | HeadwayError::Config { key, .. } => key.as_deref(),
        _ => None,
    }
}

#[test]
fn a_drive_toml_with_billions_of_cylinders_or_surfaces() {
    for (from, to, key, bound) in [
        (
            "cylinders = 2627",
            "cylinders = 4000000000",
            "cylinders",
            MAX_CYLINDERS,
        ),
        (
            "surfaces = 21",
            "surfaces = 4000000000",
            "surfaces",
            MAX_SURFACES,
        ),
    ] {
        assert!(ELITE3.contains(from));
        let spec = parse_toml_spec(&ELITE3.replacen(from, to, 1), "d.toml").unwrap();
        let e = HddDevice::new(&spec, 4).err().expect(key);
        assert_eq!(key_of(&e), Some(key), "{e}");
        assert!(
            e.to_string()
                .contains(&format!("must be at most {bound}, got 4000000000")),
            "{e}"
        );
    }
}

#[test]
fn a_queue_deeper_than_any_drive_has() {
    let e = ExperimentConfig::from_toml_str("[drive]\nqueue_depth = 1000000000000\n", None)
        .unwrap_err();
    assert_eq!(key_of(&e), Some("drive.queue_depth"), "{e}");
    assert!(e.to_string().contains("must be at most 65536"), "{e}");
    let spec = lookup("elite3").unwrap();
    assert!(HddDevice::new(&spec, MAX_QUEUE_DEPTH).is_ok());
    let e = HddDevice::new(&spec, 1 << 40).err().unwrap();
    assert_eq!(key_of(&e), Some("queue_depth"), "{e}");
}
