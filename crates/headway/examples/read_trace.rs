//! Read a DiskSim ASCII trace and do nothing with its records but count them: the trace
//! reader's own cost, for instruction counts of the parser apart from the simulation.
//!
//! ```text
//! cargo build --release -p headway --example read_trace
//! valgrind --tool=callgrind --separate-threads=yes target/release/examples/read_trace TRACE [--here]
//! ```
//!
//! By default the records come the replay's way (the reader of the same type on its own
//! thread behind `Prefetch`); `--here` reads them on the calling thread.

use std::path::{Path, PathBuf};

use headway::workload::trace::{DisksimAsciiReader, Prefetch, TraceInput};
use headway::workload::TraceReader;

fn drain(mut r: impl TraceReader) -> (u64, u64) {
    let (mut n, mut sectors) = (0u64, 0u64);
    loop {
        match r.next_record() {
            Ok(Some(rec)) => {
                n += 1;
                sectors += rec.sectors as u64;
            }
            Ok(None) => return (n, sectors),
            Err(e) => {
                eprintln!("error: {e}");
                if !r.can_continue() {
                    std::process::exit(1);
                }
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = Path::new(args.first().expect("read_trace TRACE [--here]"));
    let input = TraceInput::open(path).unwrap_or_else(|e| panic!("{e}"));
    let reader = DisksimAsciiReader::new(input, Some(PathBuf::from(path)));
    let (n, sectors) = if args.iter().any(|a| a == "--here") {
        drain(reader)
    } else {
        drain(Prefetch::spawn(reader).unwrap_or_else(|e| panic!("{e}")))
    };
    println!("{n} records, {sectors} sectors");
}
