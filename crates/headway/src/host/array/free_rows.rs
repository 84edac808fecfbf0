//! A `freeblock` rebuild's or scrub's reads: the rows each member still has to read, and
//! which rows every member has read. The members' freeblock schedulers read the rows in
//! their foreground's rotational gaps, in whatever order the gaps allow; a row is read
//! once every member it needs has delivered all of its sectors.

use crate::order::freeblock::wanted::WantedBlocks;
use crate::request::DeviceId;

pub(crate) struct FreeRows {
    /// The devices read (members whose rows the work needs).
    pub readers: Vec<DeviceId>,
    /// Per reader, the sectors it has not yet delivered.
    unread: Vec<WantedBlocks>,
    /// Per row, the sectors still to deliver over all readers.
    left: Vec<u32>,
    unit_sectors: u64,
    total_sectors: u64,
}

impl FreeRows {
    /// Every reader reads member sectors `0..total_sectors`, rows of `unit_sectors`.
    pub(crate) fn new(readers: Vec<DeviceId>, unit_sectors: u64, total_sectors: u64) -> Self {
        let rows = total_sectors / unit_sectors;
        let unread = readers
            .iter()
            .map(|_| {
                let mut w = WantedBlocks::new(total_sectors);
                w.want(0, total_sectors);
                w
            })
            .collect();
        FreeRows {
            left: vec![(readers.len() as u64 * unit_sectors) as u32; rows as usize],
            readers,
            unread,
            unit_sectors,
            total_sectors,
        }
    }

    /// A free read of `sectors` from `lbn` on `device` completed: push the rows it
    /// finished onto `finished` (each row once, when its last wanted sector arrives);
    /// whether it delivered any sector the work still wanted.
    pub(crate) fn delivered(
        &mut self,
        device: DeviceId,
        lbn: u64,
        sectors: u32,
        finished: &mut Vec<u64>,
    ) -> bool {
        let Some(k) = self.readers.iter().position(|&d| d == device) else {
            return false;
        };
        let mut any = false;
        let end = (lbn + sectors as u64).min(self.total_sectors);
        let mut at = lbn;
        while at < end {
            let row = at / self.unit_sectors;
            let row_end = ((row + 1) * self.unit_sectors).min(end);
            let got = self.unread[k].take(at, row_end - at) as u32;
            if got > 0 {
                any = true;
                let left = &mut self.left[row as usize];
                *left -= got;
                if *left == 0 {
                    finished.push(row);
                }
            }
            at = row_end;
        }
        any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_finishes_once_when_every_reader_has_delivered_it() {
        let mut f = FreeRows::new(vec![3, 5], 8, 32);
        let mut done = Vec::new();
        f.delivered(3, 0, 16, &mut done);
        assert!(done.is_empty());
        // Overlapping and repeated deliveries count each sector once.
        f.delivered(5, 4, 8, &mut done);
        f.delivered(5, 0, 8, &mut done);
        assert_eq!(done, vec![0]);
        f.delivered(5, 0, 16, &mut done);
        assert_eq!(done, vec![0, 1]);
        // A device that is not a reader, and sectors past the rows, change nothing.
        f.delivered(4, 16, 16, &mut done);
        f.delivered(3, 30, 40, &mut done);
        assert_eq!(done, vec![0, 1]);
        f.delivered(3, 16, 14, &mut done);
        f.delivered(5, 16, 16, &mut done);
        assert_eq!(done, vec![0, 1, 2, 3]);
    }
}
