//! Debug helper: `where_lbn DRIVE LBN...` prints each block's location.
use headway::device::catalog;
use headway::device::hdd::readahead::track_end;
use headway::device::hdd::Mechanics;
fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let spec = catalog::lookup(&a[0]).unwrap();
    let m = Mechanics::new(&spec).unwrap();
    for l in &a[1..] {
        let l: u64 = l.parse().unwrap();
        let loc = m.layout.locate(l);
        println!(
            "{l}: cyl {} surf {} sector {} spt {} run {} angle {:.4} track_end {}",
            loc.cylinder,
            loc.surface,
            loc.sector,
            loc.spt,
            loc.run_sectors,
            loc.angle,
            track_end(&m, l)
        );
    }
}
