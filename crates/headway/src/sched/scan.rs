use super::elevator::{edges, Elevator, Pick, Policy};
use super::SchedCtx;
use crate::order::sweep::{CylQueue, Dir};
use crate::request::DeviceId;

/// SCAN (the textbook elevator): sweep in one direction serving requests in cylinder order,
/// and travel on to the last cylinder before reversing, even when nothing lies ahead. The
/// travel is a real zero-length seek command, so it costs device time as it would on a disk.
pub type Scan = Elevator<ScanPolicy>;

#[derive(Default, Clone)]
pub struct ScanPolicy {
    dir: Dir,
}

impl Policy for ScanPolicy {
    const NAME: &'static str = "scan";
    fn pick(&mut self, q: &CylQueue, pos: u32, ctx: &SchedCtx, dev: DeviceId) -> Pick {
        if let Some(key) = q.ahead(pos, self.dir) {
            return Pick::Request(key);
        }
        let (low, high) = edges(ctx, dev);
        let edge = if self.dir == Dir::Up { high } else { low };
        self.dir = self.dir.reversed();
        if pos != edge.0 {
            return Pick::Seek {
                cylinder: edge.0,
                lbn: edge.1,
            };
        }
        // Already at the edge: the new sweep starts here.
        Pick::Request(
            q.ahead(pos, self.dir)
                .expect("from an edge every request lies ahead"),
        )
    }
}
