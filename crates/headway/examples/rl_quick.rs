use headway::config::{build_simulation, ExperimentConfig};
fn main() -> headway::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let q: u32 = args.get(1).map(|s| s.parse().unwrap()).unwrap_or(20);
    let runs: Vec<(String, String, String, String)> = args[2..]
        .chunks(4)
        .map(|c| {
            (
                c[0].clone(),
                c[1].clone(),
                c[2].replace(';', "\n"),
                c[3].replace(';', "\n"),
            )
        })
        .collect();
    for (sched, pred, opts, popts) in runs {
        let text = format!("seed = 3\n[drive]\nname = \"st41601n\"\n[host]\nscheduler = \"{sched}\"\npredictor = \"{pred}\"\n[host.options]\n{opts}\n[host.predictor_options]\n{popts}\n[workload]\nkind = \"closed\"\nprocesses = {q}\nrequests = {}\nsize_sectors = 8\nread_fraction = 0.25\n", 100 * q.max(20));
        let cfg = ExperimentConfig::from_toml_str(&text, None)?;
        let r = build_simulation(&cfg, None)?.simulation.run()?;
        let s = &r.summary;
        println!("{sched:6} {pred:10} {opts:30} {popts:20} media {:.4} mean {:7.1} max {:8.1} mispred {:.3} over {:.3}", s.media_utilisation, s.response.mean_ms, s.response.max_ms, s.prediction.mispredicted_fraction, s.prediction.overestimated_fraction);
    }
    Ok(())
}
