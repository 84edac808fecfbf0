//! Turning one logical request into member operations, with the order they must keep:
//! a write's parity is written only after the reads it is computed from.
//!
//! The small-write rule (for a write covering part of a row of a parity level):
//! read-modify-write reads the old data of the units written and the old parity, then
//! writes both: `2 t + 2 p` member I/Os for `t` data units touched and `p` parity units.
//! Reconstruct-write reads the row's data units the write does not cover, then writes the
//! new data and parity: `(d - c) + t + p` I/Os for `d` data units of which `c` are written
//! over the whole parity range. `fewest-ios` takes the smaller, a tie going to
//! read-modify-write. A write covering whole rows reads nothing.

use smallvec::SmallVec;

use super::layout::{Layout, Piece};
use super::settings::SmallWrite;
use crate::request::Op;

/// What a member operation is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// Reading or writing the requested data.
    Data,
    /// Read-modify-write: the old contents of a unit about to be written.
    OldData,
    /// Read-modify-write: the old parity.
    OldParity,
    /// Reconstruct-write: a unit the write does not cover.
    Peer,
    /// A degraded read: a surviving unit of the row the lost one is computed from.
    Degraded,
    /// Writing P or Q.
    Parity,
    /// A rebuild's read of a survivor or write onto the spare.
    Rebuild,
    /// A scrub's read.
    Scrub,
    /// Cache device: a missed read's data written onto the cache device.
    Populate,
    /// Cache device: a write-through's write to the disk.
    Flush,
    /// Cache device: a dirty extent's read from the cache device, or its write to the disk.
    Destage,
}

impl Role {
    pub(crate) fn is_parity(self) -> bool {
        matches!(self, Role::OldParity | Role::Parity)
    }

    /// Work the logical request does not wait for: it completes once the rest is done.
    pub(crate) fn is_tail(self) -> bool {
        matches!(self, Role::Populate | Role::Flush)
    }
}

/// What an operation waits for before it is issued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wait {
    Nothing,
    /// Every read of the plan.
    Reads,
    /// The plan's operation at this index.
    Op(u16),
}

/// One operation on one member.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MemberOp {
    pub member: usize,
    pub lbn: u64,
    pub sectors: u32,
    pub op: Op,
    pub role: Role,
    pub wait: Wait,
}

/// How a row's write updated its parity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct WriteKinds {
    pub full_stripe: u32,
    pub rmw: u32,
    pub reconstruct: u32,
}

/// A plan's member operations: inline up to a RAID 6 small write's six, so that planning
/// and tracking a logical request allocate nothing.
pub(crate) type MemberOps = SmallVec<[MemberOp; 6]>;

/// A logical request's member operations.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Plan {
    pub ops: MemberOps,
    pub kinds: WriteKinds,
}

#[cfg(test)]
impl Plan {
    pub(crate) fn reads(&self) -> usize {
        self.ops.iter().filter(|o| o.op == Op::Read).count()
    }
    pub(crate) fn writes(&self) -> usize {
        self.ops.len() - self.reads()
    }
}

/// The parity-update rule in force.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum WriteRule {
    Fixed(SmallWrite),
    /// DiskSim's breakpoint: read-modify-write below this fraction of data units touched.
    Fraction(f64),
    /// DiskSim's breakpoint with DiskSim's planning of the writes it splits and joins
    /// (`disksim_small_writes`).
    DiskSim(f64),
}

/// Everything besides the layout that shapes a plan.
pub(crate) struct Planning<'a> {
    pub layout: &'a Layout,
    pub rule: WriteRule,
    /// Read-modify-write's writes wait for all its reads (else each data write follows
    /// its own old-data read).
    pub sync_writes: bool,
    /// The member whose contents are lost in a row (failed, not yet rebuilt there).
    pub lost: &'a dyn Fn(u64) -> Option<usize>,
}

/// Plan a logical request. `choose` picks which of a mirrored unit's surviving copies
/// serves a read (it is given at least one).
pub(crate) fn plan(
    p: &Planning,
    lbn: u64,
    sectors: u32,
    op: Op,
    choose: &mut dyn FnMut(&[usize], u64, u32) -> usize,
) -> Plan {
    let l = p.layout;
    let pieces = l.pieces(lbn, sectors as u64);
    let mut plan = Plan::default();
    let ops = &mut plan.ops;
    if l.parity_units() == 0 {
        for pc in &pieces {
            let lost = (p.lost)(pc.row);
            let live: SmallVec<[usize; 4]> = l
                .copies_of(pc.row, pc.data_unit)
                .filter(|&m| Some(m) != lost)
                .collect();
            let at = l.member_lbn(pc.row, pc.offset_sectors);
            let n = pc.sectors as u32;
            match op {
                Op::Read if !live.is_empty() => {
                    let m = choose(&live, at, n);
                    push_merged(ops, data(m, at, n, Op::Read));
                }
                Op::Read => {}
                Op::Write => {
                    for &m in &live {
                        push_merged(ops, data(m, at, n, Op::Write));
                    }
                }
            }
        }
        return plan;
    }
    let mut i = 0;
    while i < pieces.len() {
        let row = pieces[i].row;
        let end = pieces[i..]
            .iter()
            .position(|q| q.row != row)
            .map_or(pieces.len(), |k| i + k);
        let lost = (p.lost)(row);
        match op {
            Op::Read => read_row(l, &pieces[i..end], lost, ops),
            Op::Write => {
                let mut row_ops = MemberOps::new();
                write_row(p, &pieces[i..end], lost, &mut row_ops, &mut plan.kinds);
                append_row(ops, row_ops);
            }
        }
        i = end;
    }
    if op == Op::Write && matches!(p.rule, WriteRule::DiskSim(_)) {
        join_nearby(&mut plan.ops);
    }
    plan
}

/// DiskSim's joining of a write's operations: two on one member going the same way, at
/// most `DISKSIM_JOIN_GAP_SECTORS` apart, become one over both and the gap between (the
/// old parity of two rows on a RAID 4's parity member, a RAID 5 member's data in one row
/// and parity in the next). The joined operation waits for what either waited for.
fn join_nearby(ops: &mut MemberOps) {
    let mut i = 0;
    while i < ops.len() {
        let mut j = i + 1;
        while j < ops.len() {
            let (a, b) = (ops[i], ops[j]);
            let end = |o: &MemberOp| o.lbn + o.sectors as u64;
            let gap = if a.lbn <= b.lbn {
                b.lbn.checked_sub(end(&a))
            } else {
                a.lbn.checked_sub(end(&b))
            };
            if a.member != b.member
                || a.op != b.op
                || gap.is_none_or(|g| g > DISKSIM_JOIN_GAP_SECTORS)
            {
                j += 1;
                continue;
            }
            let lbn = a.lbn.min(b.lbn);
            ops[i].sectors = (end(&a).max(end(&b)) - lbn) as u32;
            ops[i].lbn = lbn;
            ops[i].wait = stricter(a.wait, b.wait);
            ops.remove(j);
            for o in ops.iter_mut() {
                if let Wait::Op(x) = o.wait {
                    let x = x as usize;
                    if x == j {
                        o.wait = Wait::Op(i as u16);
                    } else if x > j {
                        o.wait = Wait::Op((x - 1) as u16);
                    }
                }
            }
        }
        i += 1;
    }
}

/// The wait that covers both `a` and `b`.
fn stricter(a: Wait, b: Wait) -> Wait {
    match (a, b) {
        (Wait::Nothing, w) | (w, Wait::Nothing) => w,
        (Wait::Op(x), Wait::Op(y)) if x == y => a,
        _ => Wait::Reads,
    }
}

fn data(member: usize, lbn: u64, sectors: u32, op: Op) -> MemberOp {
    MemberOp {
        member,
        lbn,
        sectors,
        op,
        role: Role::Data,
        wait: Wait::Nothing,
    }
}

/// Add `o`, extending the last operation on its member if `o` continues it (a long
/// transfer over several rows stays one command per member).
fn push_merged(ops: &mut MemberOps, o: MemberOp) {
    if let Some(prev) = ops.iter_mut().rev().find(|q| q.member == o.member) {
        if prev.op == o.op
            && prev.role == o.role
            && prev.wait == Wait::Nothing
            && o.wait == Wait::Nothing
            && prev.lbn + prev.sectors as u64 == o.lbn
        {
            prev.sectors += o.sectors;
            return;
        }
    }
    ops.push(o);
}

/// Append one row's write operations: independent ones merge with earlier rows', the
/// others keep their waits, renumbered.
fn append_row(ops: &mut MemberOps, row_ops: MemberOps) {
    if row_ops
        .iter()
        .all(|o| o.wait == Wait::Nothing && o.op == Op::Write)
    {
        for o in row_ops {
            push_merged(ops, o);
        }
        return;
    }
    let base = ops.len() as u16;
    ops.extend(row_ops.into_iter().map(|mut o| {
        if let Wait::Op(k) = o.wait {
            o.wait = Wait::Op(base + k);
        }
        o
    }));
}

fn read_row(l: &Layout, pieces: &[Piece], lost: Option<usize>, ops: &mut MemberOps) {
    for pc in pieces {
        let m = l.data_member(pc.row, pc.data_unit);
        let at = l.member_lbn(pc.row, pc.offset_sectors);
        let n = pc.sectors as u32;
        if Some(m) != lost {
            push_merged(ops, data(m, at, n, Op::Read));
            continue;
        }
        // The lost unit is computed from the row's other data units and P (Q is not
        // needed while only one member is lost).
        let p = l.p_member(pc.row);
        let peers = (0..l.data_units())
            .map(|j| l.data_member(pc.row, j))
            .chain(std::iter::once(p))
            .filter(|&o| o != m);
        for o in peers {
            ops.push(MemberOp {
                member: o,
                lbn: at,
                sectors: n,
                op: Op::Read,
                role: Role::Degraded,
                wait: Wait::Nothing,
            });
        }
    }
}

/// DiskSim joins two operations of a request on one member when at most this many
/// sectors lie between them (`LOGORG_PARITY_SEQGIVE`).
const DISKSIM_JOIN_GAP_SECTORS: u64 = 32;

/// With DiskSim's planning: a two-unit write that runs from offset `a` of one unit into
/// the next unit's offsets `0..b`, `b < a`, writes each offset of the row in one unit only,
/// and DiskSim updates it as two one-unit rows, each with its own parity range. Returns
/// `(b, a)`.
fn offset_gap(rule: WriteRule, pieces: &[Piece]) -> Option<(u64, u64)> {
    let [first, second] = pieces else {
        return None;
    };
    let b = second.offset_sectors + second.sectors;
    let a = first.offset_sectors;
    (matches!(rule, WriteRule::DiskSim(_)) && second.offset_sectors == 0 && b < a).then_some((b, a))
}

fn write_row(
    p: &Planning,
    pieces: &[Piece],
    lost: Option<usize>,
    ops: &mut MemberOps,
    kinds: &mut WriteKinds,
) {
    let l = p.layout;
    let row = pieces[0].row;
    let unit = l.unit_sectors;
    let d = l.data_units();
    let lo = pieces.iter().map(|q| q.offset_sectors).min().unwrap_or(0);
    let hi = pieces
        .iter()
        .map(|q| q.offset_sectors + q.sectors)
        .max()
        .unwrap_or(0);
    let parity: SmallVec<[usize; 2]> = l
        .parity_members(row)
        .into_iter()
        .filter(|&m| Some(m) != lost)
        .collect();
    let at = |off: u64| l.member_lbn(row, off);
    let span = (hi - lo) as u32;
    let gap = offset_gap(p.rule, pieces);
    // Parity ranges: the row's span, or the two ends of a write that leaves a gap wider
    // than DiskSim joins into one operation.
    let ranges: SmallVec<[(u64, u64); 2]> = match gap {
        Some((b, a)) if a - b > DISKSIM_JOIN_GAP_SECTORS => {
            SmallVec::from_slice(&[(a, unit), (0, b)])
        }
        _ => SmallVec::from_slice(&[(lo, hi)]),
    };
    let write_data = |ops: &mut MemberOps, wait: &dyn Fn(usize) -> Wait| {
        for (k, pc) in pieces.iter().enumerate() {
            let m = l.data_member(row, pc.data_unit);
            if Some(m) == lost {
                continue;
            }
            ops.push(MemberOp {
                wait: wait(k),
                ..data(m, at(pc.offset_sectors), pc.sectors as u32, Op::Write)
            });
        }
    };
    let parity_io = |ops: &mut MemberOps, op: Op, role: Role, wait: Wait| {
        for &m in &parity {
            for &(from, to) in &ranges {
                ops.push(MemberOp {
                    member: m,
                    lbn: at(from),
                    sectors: (to - from) as u32,
                    op,
                    role,
                    wait,
                });
            }
        }
    };
    let write_parity = |ops: &mut MemberOps, wait: Wait| {
        parity_io(ops, Op::Write, Role::Parity, wait);
    };
    let full = pieces.len() == d && pieces.iter().all(|q| q.sectors == unit);
    if full || parity.is_empty() {
        // A whole row: parity comes from the new data alone. With every parity member
        // lost, there is no parity to keep.
        kinds.full_stripe += full as u32;
        write_data(ops, &|_| Wait::Nothing);
        write_parity(ops, Wait::Nothing);
        return;
    }
    let covers = |q: &Piece| q.offset_sectors <= lo && q.offset_sectors + q.sectors >= hi;
    let t = pieces.len();
    // The breakpoint counts the data units written at one offset of the row.
    let t_rule = if gap.is_some() { 1 } else { t };
    let c = pieces.iter().filter(|q| covers(q)).count();
    let lost_data = lost.filter(|m| !l.parity_members(row).contains(m));
    let rmw = lost_data.is_none()
        && match p.rule {
            WriteRule::Fixed(SmallWrite::Rmw) => true,
            WriteRule::Fixed(SmallWrite::Reconstruct) => false,
            WriteRule::Fixed(SmallWrite::FewestIos) => {
                2 * t + 2 * parity.len() <= (d - c) + t + parity.len()
            }
            WriteRule::Fraction(f) | WriteRule::DiskSim(f) => (t_rule as f64) < f * d as f64,
        };
    if rmw {
        kinds.rmw += 1;
        for pc in pieces {
            let m = l.data_member(row, pc.data_unit);
            ops.push(MemberOp {
                role: Role::OldData,
                ..data(m, at(pc.offset_sectors), pc.sectors as u32, Op::Read)
            });
        }
        parity_io(ops, Op::Read, Role::OldParity, Wait::Nothing);
        let sync = p.sync_writes;
        write_data(ops, &|k| {
            if sync {
                Wait::Reads
            } else {
                Wait::Op(k as u16)
            }
        });
        write_parity(ops, Wait::Reads);
        return;
    }
    kinds.reconstruct += 1;
    // Reconstruct-write over the surviving members: every data unit not written over the
    // whole parity range is read there. A lost data unit the write does not cover is
    // computed from the old parity, so it is read too.
    for j in 0..d {
        let m = l.data_member(row, j);
        let written = pieces.iter().find(|q| q.data_unit == j);
        if written.is_some_and(covers) {
            continue;
        }
        if Some(m) == lost {
            for &pm in parity.iter().take(1) {
                ops.push(MemberOp {
                    member: pm,
                    lbn: at(lo),
                    sectors: span,
                    op: Op::Read,
                    role: Role::OldParity,
                    wait: Wait::Nothing,
                });
            }
            continue;
        }
        ops.push(MemberOp {
            member: m,
            lbn: at(lo),
            sectors: span,
            op: Op::Read,
            role: Role::Peer,
            wait: Wait::Nothing,
        });
    }
    let any_reads = ops.iter().any(|o| o.op == Op::Read);
    let wait = if any_reads {
        Wait::Reads
    } else {
        Wait::Nothing
    };
    if p.sync_writes {
        write_data(ops, &|_| wait);
    } else {
        // Unsynchronised, new data needs no old value: a data write waits only for a read
        // of its own member (the rest of its unit within the parity range), as in DiskSim.
        let reads: SmallVec<[(usize, u16); 8]> = ops
            .iter()
            .enumerate()
            .filter(|(_, o)| o.op == Op::Read)
            .map(|(i, o)| (o.member, i as u16))
            .collect();
        write_data(ops, &|k| {
            let m = l.data_member(row, pieces[k].data_unit);
            reads
                .iter()
                .find(|&&(rm, _)| rm == m)
                .map_or(Wait::Nothing, |&(_, i)| Wait::Op(i))
        });
    }
    write_parity(ops, wait);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::array::settings::{ArrayLevel, ParityRotation};

    const U: u64 = 16;

    fn layout(level: ArrayLevel, members: usize, copies: usize) -> Layout {
        Layout::new(
            level,
            members,
            U,
            U * 1000,
            ParityRotation::LeftSymmetric,
            copies,
        )
    }

    fn planned(l: &Layout, lost: Option<usize>, lbn: u64, sectors: u32, op: Op) -> Plan {
        let lost_fn = move |_row: u64| lost;
        let p = Planning {
            layout: l,
            rule: WriteRule::Fixed(SmallWrite::FewestIos),
            sync_writes: true,
            lost: &lost_fn,
        };
        plan(&p, lbn, sectors, op, &mut |live, _, _| live[0])
    }

    #[test]
    fn raid5_small_write_is_two_reads_then_two_writes() {
        let l = layout(ArrayLevel::Raid5, 5, 1);
        // Unit 1 of row 0 (member 1), parity on member 4.
        let p = planned(&l, None, U + 2, 4, Op::Write);
        assert_eq!((p.reads(), p.writes()), (2, 2));
        assert_eq!(p.kinds.rmw, 1);
        let roles: Vec<(usize, Role, Wait)> =
            p.ops.iter().map(|o| (o.member, o.role, o.wait)).collect();
        assert_eq!(
            roles,
            vec![
                (1, Role::OldData, Wait::Nothing),
                (4, Role::OldParity, Wait::Nothing),
                (1, Role::Data, Wait::Reads),
                (4, Role::Parity, Wait::Reads),
            ]
        );
        assert!(p.ops.iter().all(|o| o.lbn == 2 && o.sectors == 4));
    }

    #[test]
    fn full_stripe_write_reads_nothing() {
        let l = layout(ArrayLevel::Raid5, 5, 1);
        let p = planned(&l, None, 4 * U, 4 * U as u32, Op::Write);
        assert_eq!((p.reads(), p.writes()), (0, 5));
        assert_eq!(p.kinds.full_stripe, 1);
        // Two whole rows: members holding data in both rows write both units at once;
        // members 3 and 4 hold data in one row and parity in the other (left-symmetric
        // parity moves from member 4 to 3), so they write each unit apart.
        let p = planned(&l, None, 0, 8 * U as u32, Op::Write);
        assert_eq!((p.reads(), p.writes(), p.kinds.full_stripe), (0, 7, 2));
        for m in 0..3 {
            let ops: Vec<_> = p.ops.iter().filter(|o| o.member == m).collect();
            assert_eq!((ops.len(), ops[0].sectors), (1, 2 * U as u32));
        }
    }

    #[test]
    fn three_of_four_units_reconstruct_and_two_of_four_too() {
        let l = layout(ArrayLevel::Raid5, 5, 1);
        // RMW would be 2*3 + 2 = 8 I/Os, reconstruct 1 + 3 + 1 = 5.
        let p = planned(&l, None, 0, 3 * U as u32, Op::Write);
        assert_eq!((p.reads(), p.writes(), p.kinds.reconstruct), (1, 4, 1));
        assert_eq!(p.ops[0].member, 3);
        // 2*2 + 2 = 6 against 2 + 2 + 1 = 5.
        let p = planned(&l, None, 0, 2 * U as u32, Op::Write);
        assert_eq!((p.reads(), p.writes(), p.kinds.reconstruct), (2, 3, 1));
    }

    /// Reads and writes of a write under `rule` on a RAID 4 of four
    /// members with 128-sector units, and its parity operations' (member LBN, sectors).
    fn raid4_write(
        rule: WriteRule,
        lbn: u64,
        sectors: u32,
    ) -> (usize, usize, WriteKinds, Vec<(u64, u32)>) {
        let l = Layout::new(
            ArrayLevel::Raid4,
            4,
            128,
            128 * 1000,
            ParityRotation::LeftSymmetric,
            1,
        );
        let lost_fn = |_row: u64| None;
        let p = Planning {
            layout: &l,
            rule,
            sync_writes: false,
            lost: &lost_fn,
        };
        let p = plan(&p, lbn, sectors, Op::Write, &mut |live, _, _| live[0]);
        let parity = p
            .ops
            .iter()
            .filter(|o| o.role.is_parity() && o.op == Op::Read)
            .map(|o| (o.lbn, o.sectors))
            .collect();
        (p.reads(), p.writes(), p.kinds, parity)
    }

    fn disksim(lbn: u64, sectors: u32) -> (usize, usize, WriteKinds, Vec<(u64, u32)>) {
        raid4_write(WriteRule::DiskSim(0.5), lbn, sectors)
    }

    #[test]
    fn two_unit_write_leaving_a_gap_of_offsets_is_two_one_unit_updates() {
        // As DiskSim 4.0 plans them (its driver's dispatches, one write at a time): from
        // offset 120 of unit 0 into offsets 0..8 of unit 1, each offset is written in one
        // unit; parity is read and written over both ranges, 112 sectors apart.
        let (r, w, k, parity) = disksim(120, 16);
        assert_eq!((r, w, k.rmw, k.reconstruct), (4, 4, 1, 0));
        assert_eq!(parity, vec![(120, 8), (0, 8)]);
        // 64..128 and 0..32: 32 sectors apart, one parity operation over the row.
        let (r, w, k, parity) = disksim(64, 96);
        assert_eq!((r, w, k.rmw), (3, 3, 1));
        assert_eq!(parity, vec![(0, 128)]);
        // 100..128 and 0..100 leave no gap: two units at the breakpoint, reconstruct-write
        // (read the third unit, and each written unit's unwritten rest).
        let (r, w, k, parity) = disksim(100, 128);
        assert_eq!((r, w, k.rmw, k.reconstruct), (3, 3, 0, 1));
        assert!(parity.is_empty());
        // A one-unit write is unchanged.
        let (r, w, k, parity) = disksim(8, 8);
        assert_eq!((r, w, k.rmw), (2, 2, 1));
        assert_eq!(parity, vec![(8, 8)]);
        // The plain breakpoint counts both units: reconstruct-write, parity over the span.
        let (r, w, k, _) = raid4_write(WriteRule::Fraction(0.5), 120, 16);
        assert_eq!((r, w, k.reconstruct), (3, 3, 1));
    }

    #[test]
    fn a_write_across_two_rows_reads_and_writes_raid4_parity_once() {
        // Offsets 120..128 of row 0's last unit and 0..8 of row 1's first: one read-modify-
        // write per row, whose parity ranges meet on the parity member and are joined.
        let (r, w, k, parity) = disksim(3 * 128 - 8, 16);
        assert_eq!((r, w, k.rmw), (3, 3, 2));
        assert_eq!(parity, vec![(120, 16)]);
        let (r, w, _, parity) = raid4_write(WriteRule::Fraction(0.5), 3 * 128 - 8, 16);
        assert_eq!((r, w), (4, 4));
        assert_eq!(parity, vec![(120, 8), (128, 8)]);
    }

    #[test]
    fn raid6_small_write_ties_to_rmw() {
        // RMW 2 + 4 = 6 I/Os, reconstruct 2 + 1 + 2 = 5 on 5 members: reconstruct;
        // on 6 members (4 data) RMW 6 against 3 + 1 + 2 = 6: a tie, RMW.
        let l = layout(ArrayLevel::Raid6, 6, 1);
        let p = planned(&l, None, 0, 4, Op::Write);
        assert_eq!((p.reads(), p.writes(), p.kinds.rmw), (3, 3, 1));
        let parity: Vec<usize> = p
            .ops
            .iter()
            .filter(|o| o.role == Role::Parity)
            .map(|o| o.member)
            .collect();
        assert_eq!(parity, vec![l.p_member(0), l.q_member(0)]);
    }

    #[test]
    fn degraded_read_reads_the_rest_of_the_row() {
        let l = layout(ArrayLevel::Raid5, 5, 1);
        let p = planned(&l, Some(1), U, 8, Op::Read);
        assert_eq!(p.ops.len(), 4);
        assert!(p
            .ops
            .iter()
            .all(|o| o.role == Role::Degraded && o.member != 1));
        // A unit on a live member reads only itself.
        assert_eq!(planned(&l, Some(1), 0, 8, Op::Read).ops.len(), 1);
    }

    #[test]
    fn degraded_write_to_lost_data_reconstructs_without_it() {
        let l = layout(ArrayLevel::Raid5, 5, 1);
        let p = planned(&l, Some(1), U, U as u32, Op::Write);
        // Reads the three other data units, writes parity only (the lost unit is gone).
        assert_eq!((p.reads(), p.writes()), (3, 1));
        assert!(p.ops.iter().all(|o| o.member != 1));
        // Lost parity: the data is written alone.
        let p = planned(&l, Some(4), U, 4, Op::Write);
        assert_eq!((p.reads(), p.writes()), (0, 1));
    }

    #[test]
    fn mirrors_write_every_copy_and_read_one() {
        let l = layout(ArrayLevel::Raid1, 3, 3);
        assert_eq!(planned(&l, None, 5, 8, Op::Write).writes(), 3);
        assert_eq!(planned(&l, None, 5, 8, Op::Read).ops.len(), 1);
        assert_eq!(planned(&l, Some(0), 5, 8, Op::Read).ops[0].member, 1);
        let l = layout(ArrayLevel::Raid10, 4, 2);
        let p = planned(&l, None, U, 8, Op::Write);
        let members: Vec<usize> = p.ops.iter().map(|o| o.member).collect();
        assert_eq!(members, vec![2, 3]);
    }

    #[test]
    fn a_long_raid0_read_is_one_command_per_member() {
        let l = layout(ArrayLevel::Raid0, 4, 1);
        let p = planned(&l, None, 0, 8 * U as u32, Op::Read);
        assert_eq!(p.ops.len(), 4);
        assert!(p.ops.iter().all(|o| o.sectors == 2 * U as u32));
    }
}
