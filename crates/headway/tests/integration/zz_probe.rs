use headway::config::{build_simulation, ExperimentConfig};

#[test]
#[ignore]
fn probe() {
    let dir = std::path::Path::new("/tmp/cm/disksim-4.0/valid");
    let path = dir.join("synthcachemem.parv");
    let mut text = std::fs::read_to_string(&path).unwrap();
    if let Ok(v) = std::env::var("PROBE") {
        for pair in v.split(';') {
            let (a, b) = pair.split_once('|').unwrap();
            assert!(text.contains(a), "{a}");
            text = text.replace(a, b);
        }
    }
    let mut cfg = ExperimentConfig::from_toml_str(&text, Some(&path)).unwrap();
    cfg.output.records = true;
    let r = build_simulation(&cfg, None).unwrap().simulation.run().unwrap();
    let rec = r.records.as_ref().unwrap();
    let (mut rs, mut rn, mut ws, mut wn, mut hits) = (0u64, 0u64, 0u64, 0u64, 0u64);
    let (mut fills, mut flushes, mut flush_sectors) = (0u64, 0u64, 0u64);
    for i in 0..rec.len() {
        if rec.origin[i] >= 0x8000 {
            if rec.is_read[i] { fills += 1 } else { flushes += 1; flush_sectors += rec.sectors[i] as u64 }
            continue;
        }
        let resp = rec.done_ns[i] - rec.arrival_ns[i];
        if rec.device[i] == u16::MAX { hits += 1 }
        if rec.is_read[i] { rs += resp; rn += 1 } else { ws += resp; wn += 1 }
    }
    println!("mean {:.3} reads {:.3} ({rn}) writes {:.3} ({wn}) served-by-cache {hits} fills {fills} writebacks {flushes} ({flush_sectors} sectors) elapsed {:.1}",
        r.summary.response.mean_ms, rs as f64 / rn as f64 / 1e6, ws as f64 / wn as f64 / 1e6, r.summary.elapsed_s);
}
