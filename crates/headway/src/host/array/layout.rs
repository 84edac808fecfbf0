//! Where each sector of a volume lives: the address mapping of every RAID level.
//!
//! Every level cuts each member into stripe units of `unit_sectors`; row `s` of the array is
//! unit `s` of every member, at member sectors `s * unit .. (s + 1) * unit`. A member's
//! sectors past its last whole unit are not used.
//!
//! - Mirror-and-stripe levels (RAID 0, 1, 10) group the members into `groups` groups of
//!   `copies` consecutive members; data unit `j` of a row lives on every member of group
//!   `j`. RAID 0 is `copies = 1`, RAID 1 one group of every member.
//! - Parity levels (RAID 4, 5, 6) keep `parity` units per row (P, and Q for RAID 6) and
//!   `members - parity` data units.

use super::settings::{ArrayLevel, ParityRotation};

/// The address mapping of one volume.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Layout {
    pub level: ArrayLevel,
    pub members: usize,
    pub unit_sectors: u64,
    /// Rows: whole stripe units per member.
    pub rows: u64,
    pub rotation: ParityRotation,
    /// Copies of each data unit (mirror levels); 1 for parity levels.
    pub copies: usize,
}

/// A logical extent's pieces: inline for the usual request of a few units, so that planning
/// one allocates nothing.
pub(crate) type Pieces = smallvec::SmallVec<[Piece; 4]>;

/// One data unit's piece of a logical extent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Piece {
    pub row: u64,
    /// Data unit index within the row.
    pub data_unit: usize,
    /// First sector within the unit, and how many.
    pub offset_sectors: u64,
    pub sectors: u64,
}

impl Layout {
    pub(crate) fn new(
        level: ArrayLevel,
        members: usize,
        unit_sectors: u64,
        member_capacity_sectors: u64,
        rotation: ParityRotation,
        copies: usize,
    ) -> Self {
        Layout {
            level,
            members,
            unit_sectors,
            rows: member_capacity_sectors / unit_sectors,
            rotation,
            copies: copies.max(1),
        }
    }

    /// Parity units per row (0, 1 or 2).
    #[inline]
    pub(crate) fn parity_units(&self) -> usize {
        self.level.parity_units()
    }

    /// Data units per row.
    #[inline]
    pub(crate) fn data_units(&self) -> usize {
        match self.parity_units() {
            0 => self.members / self.copies,
            p => self.members - p,
        }
    }

    pub(crate) fn capacity_sectors(&self) -> u64 {
        self.rows * self.data_units() as u64 * self.unit_sectors
    }

    /// The sector of row `row`, `offset` sectors into its unit, on any member.
    #[inline]
    pub(crate) fn member_lbn(&self, row: u64, offset_sectors: u64) -> u64 {
        row * self.unit_sectors + offset_sectors
    }

    /// Split the logical extent `lbn .. lbn + sectors` into the data units it touches, in
    /// address order.
    pub(crate) fn pieces(&self, lbn: u64, sectors: u64) -> Pieces {
        let d = self.data_units() as u64;
        let mut out = Pieces::new();
        let (mut at, end) = (lbn, lbn + sectors);
        while at < end {
            let unit = at / self.unit_sectors;
            let offset = at % self.unit_sectors;
            let n = (self.unit_sectors - offset).min(end - at);
            out.push(Piece {
                row: unit / d,
                data_unit: (unit % d) as usize,
                offset_sectors: offset,
                sectors: n,
            });
            at += n;
        }
        out
    }

    /// The member holding P in `row` (parity levels).
    pub(crate) fn p_member(&self, row: u64) -> usize {
        let n = self.members as u64;
        match self.level {
            ArrayLevel::Raid4 => self.members - 1,
            _ => match self.rotation {
                ParityRotation::LeftSymmetric | ParityRotation::LeftAsymmetric => {
                    (n - 1 - row % n) as usize
                }
                ParityRotation::RightSymmetric | ParityRotation::RightAsymmetric => {
                    (row % n) as usize
                }
            },
        }
    }

    /// The member holding Q in `row` (RAID 6): the member after P, wrapping.
    pub(crate) fn q_member(&self, row: u64) -> usize {
        (self.p_member(row) + 1) % self.members
    }

    /// Parity members of `row`, P first.
    pub(crate) fn parity_members(&self, row: u64) -> smallvec::SmallVec<[usize; 2]> {
        match self.parity_units() {
            0 => smallvec::SmallVec::new(),
            1 => smallvec::smallvec![self.p_member(row)],
            _ => smallvec::smallvec![self.p_member(row), self.q_member(row)],
        }
    }

    /// The member holding data unit `j` of `row`: the first copy for mirror levels.
    pub(crate) fn data_member(&self, row: u64, j: usize) -> usize {
        let p = self.parity_units();
        if p == 0 {
            return j * self.copies;
        }
        if self.level == ArrayLevel::Raid4 {
            return j;
        }
        let n = self.members;
        let first = self.p_member(row);
        match self.rotation {
            // Data starts just after the parity units and wraps round.
            ParityRotation::LeftSymmetric | ParityRotation::RightSymmetric => (first + p + j) % n,
            // Data fills the other members in member order.
            ParityRotation::LeftAsymmetric | ParityRotation::RightAsymmetric => {
                let parity = self.parity_members(row);
                (0..n)
                    .filter(|m| !parity.contains(m))
                    .nth(j)
                    .expect("a row has data_units non-parity members")
            }
        }
    }

    /// Every member holding data unit `j` of `row` (one for parity levels).
    pub(crate) fn copies_of(&self, row: u64, j: usize) -> std::ops::Range<usize> {
        let first = self.data_member(row, j);
        let c = if self.parity_units() == 0 {
            self.copies
        } else {
            1
        };
        first..first + c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raid(level: ArrayLevel, members: usize, rotation: ParityRotation) -> Layout {
        Layout::new(level, members, 8, 8 * 100, rotation, 1)
    }

    /// Row by row, the member of each data unit and of parity: `grid[row][member]` is
    /// `D<k>` (logical unit k), `P` or `Q`.
    fn grid(l: &Layout, rows: u64) -> Vec<Vec<String>> {
        (0..rows)
            .map(|row| {
                let mut g = vec![String::new(); l.members];
                for j in 0..l.data_units() {
                    g[l.data_member(row, j)] =
                        format!("D{}", row * l.data_units() as u64 + j as u64);
                }
                for (i, m) in l.parity_members(row).into_iter().enumerate() {
                    g[m] = ["P", "Q"][i].into();
                }
                g
            })
            .collect()
    }

    fn rows(text: &[&str]) -> Vec<Vec<String>> {
        text.iter()
            .map(|r| r.split_whitespace().map(String::from).collect())
            .collect()
    }

    #[test]
    fn raid5_left_symmetric_4_plus_1_by_hand() {
        let l = raid(ArrayLevel::Raid5, 5, ParityRotation::LeftSymmetric);
        assert_eq!(
            grid(&l, 5),
            rows(&[
                "D0  D1  D2  D3  P",
                "D5  D6  D7  P   D4",
                "D10 D11 P   D8  D9",
                "D15 P   D12 D13 D14",
                "P   D16 D17 D18 D19",
            ])
        );
        // Logical sector 8 * 6 + 3 (unit 6, 3 sectors in) is on member 1, row 1.
        let p = l.pieces(8 * 6 + 3, 1)[0];
        assert_eq!((p.row, p.data_unit, p.offset_sectors), (1, 2, 3));
        assert_eq!(l.data_member(p.row, p.data_unit), 1);
        assert_eq!(l.member_lbn(p.row, p.offset_sectors), 8 + 3);
    }

    #[test]
    fn raid5_other_rotations_by_hand() {
        let la = raid(ArrayLevel::Raid5, 4, ParityRotation::LeftAsymmetric);
        assert_eq!(
            grid(&la, 4),
            rows(&["D0 D1 D2 P", "D3 D4 P D5", "D6 P D7 D8", "P D9 D10 D11"])
        );
        let ra = raid(ArrayLevel::Raid5, 4, ParityRotation::RightAsymmetric);
        assert_eq!(
            grid(&ra, 4),
            rows(&["P D0 D1 D2", "D3 P D4 D5", "D6 D7 P D8", "D9 D10 D11 P"])
        );
        let rs = raid(ArrayLevel::Raid5, 4, ParityRotation::RightSymmetric);
        assert_eq!(
            grid(&rs, 4),
            rows(&["P D0 D1 D2", "D5 P D3 D4", "D7 D8 P D6", "D9 D10 D11 P"])
        );
    }

    #[test]
    fn raid6_p_and_q_by_hand() {
        let l = raid(ArrayLevel::Raid6, 5, ParityRotation::LeftSymmetric);
        assert_eq!(
            grid(&l, 5),
            rows(&[
                "Q  D0 D1 D2 P",
                "D3 D4 D5 P  Q",
                "D7 D8 P  Q  D6",
                "D11 P Q  D9 D10",
                "P  Q  D12 D13 D14",
            ])
        );
    }

    #[test]
    fn raid4_parity_on_last_member_and_raid10_groups() {
        let l = raid(ArrayLevel::Raid4, 4, ParityRotation::LeftSymmetric);
        assert_eq!(grid(&l, 2), rows(&["D0 D1 D2 P", "D3 D4 D5 P"]));
        let m = Layout::new(
            ArrayLevel::Raid10,
            6,
            8,
            800,
            ParityRotation::LeftSymmetric,
            2,
        );
        assert_eq!(m.data_units(), 3);
        assert_eq!(m.copies_of(0, 2), 4..6);
        assert_eq!(m.capacity_sectors(), 100 * 3 * 8);
        let r1 = Layout::new(
            ArrayLevel::Raid1,
            3,
            8,
            800,
            ParityRotation::LeftSymmetric,
            3,
        );
        assert_eq!((r1.data_units(), r1.copies_of(7, 0)), (1, 0..3));
        assert_eq!(r1.capacity_sectors(), 800);
    }

    #[test]
    fn pieces_cover_the_extent_exactly() {
        let l = raid(ArrayLevel::Raid5, 5, ParityRotation::LeftSymmetric);
        let ps = l.pieces(5, 40);
        assert_eq!(ps.iter().map(|p| p.sectors).sum::<u64>(), 40);
        assert_eq!(ps[0].offset_sectors, 5);
        assert_eq!(ps[0].sectors, 3);
        assert_eq!((ps[4].row, ps[4].data_unit), (1, 0));
    }
}
