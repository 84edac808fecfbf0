//! The on-board buffer: a fixed array of segments, each caching one contiguous LBN range, with
//! DiskSim's segment choice (hits first, then empty, then clean, then the one being read
//! ahead; least recently used first among equals). At most 16 or so segments: every lookup is
//! a walk over a small fixed array, never an allocation.

use super::spec::CacheSpec;

/// The discriminants are what a read miss makes of a segment in that state (see
/// [`read_victim_value`]), so the choice costs no branch per segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum SegState {
    Empty = 3,
    /// Holds data that is also on the media.
    Clean = 2,
    /// Holds write data not yet on the media (written back in the background).
    Dirty = 0,
}

/// Where a segment's free blocks ("read any free blocks") begin: on the landing track
/// (`cylinder`, `surface`, of `spt` slots), at the landing slot, which
/// [`FreeFrom::landing_slot`] works out from the slot of the segment's start (`at`) and how
/// far past it the head landed. Every read miss sets it and few reads use it, so the slot
/// (a float chain and a division) is left until one does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FreeFrom {
    pub cylinder: u32,
    pub surface: u32,
    pub at: u32,
    /// Never zero, which leaves `Option<FreeFrom>` no larger than the struct.
    pub spt: std::num::NonZeroU32,
    /// [`super::media::MediaPlan::landing_sectors`]'s bits (the segment compares as `Eq`).
    pub landing_sectors_bits: u64,
}

impl FreeFrom {
    pub fn new(
        cylinder: u32,
        surface: u32,
        at: u32,
        spt: u32,
        landing_sectors: f64,
    ) -> Option<Self> {
        Some(FreeFrom {
            cylinder,
            surface,
            at,
            spt: std::num::NonZeroU32::new(spt)?,
            landing_sectors_bits: landing_sectors.to_bits(),
        })
    }

    /// The first whole slot under the head when it landed ([`super::media::MediaPlan::landing`]).
    pub(crate) fn landing_slot(&self) -> u32 {
        super::media::landing_slot(
            self.at,
            self.spt.get(),
            f64::from_bits(self.landing_sectors_bits),
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Segment {
    /// The first cached block ([`Segment::start`]).
    start: u64,
    /// How many blocks from `start` are cached: [`Segment::end`] is `start + span`. Kept
    /// as the length rather than the end because the lookup's range test, one a segment on
    /// every read, wants the length (it took a subtraction a segment).
    span: u64,
    pub state: SegState,
    /// Last use, for LRU.
    pub stamp: u64,
    /// Reserved for writes ("Use separate write segment").
    pub write_only: bool,
    /// DiskSim's `maxreadaheadblkno`: how far read-ahead into this segment may go.
    pub max_ra_lbn: u64,
    /// "Read any free blocks": the segment also holds the blocks the head passed on its
    /// landing track before `start` ([`FreeFrom`]). Worked out only when a read asks for
    /// blocks below `start` (rare), so the common path pays no layout lookups for it.
    pub free_from: Option<FreeFrom>,
    /// What a read miss makes of the segment, as [`Victim`]'s key ([`read_victim_value`]
    /// above the age above the index), kept up to date by every change of `state`, `stamp`
    /// and `write_only` (all through [`Cache`]) so that the lookup, which every read makes,
    /// reads it instead of working it out per segment.
    victim_key: u64,
    /// The key's bits below the value: the age (from `stamp`) above the segment's place in
    /// [`Cache::segs`] counted down from the last ([`Victim`]), set by [`Cache::touch`].
    age_index: u64,
}

impl Segment {
    fn empty(write_only: bool) -> Self {
        Segment {
            start: 0,
            span: 0,
            state: SegState::Empty,
            stamp: 0,
            write_only,
            max_ra_lbn: 0,
            free_from: None,
            victim_key: 0,
            age_index: 0,
        }
    }

    /// Work `victim_key` out again after a change of state, stamp or write reservation (as
    /// no segment being read ahead: the lookup demotes that one itself).
    #[inline]
    fn rekey(&mut self) {
        self.victim_key = Victim::key(read_victim_value(0, self, usize::MAX), self);
    }

    /// Set `state` and rekey from the value written, `write_only` read before the store:
    /// the compiler loads that byte as a word that also covers `state`, and loaded just
    /// after `state`'s byte store it could not be forwarded from it, a stall every read
    /// miss paid (10% of `serve_queued`'s samples, perf annotate).
    #[inline(always)]
    fn set_state_rekeyed(&mut self, state: SegState) {
        let v = state as u8 * !self.write_only as u8;
        self.victim_key = Victim::key(v, self);
        self.state = state;
        debug_assert_eq!(v, read_victim_value(0, self, usize::MAX));
    }

    /// The first cached block.
    #[inline(always)]
    pub(crate) fn start(&self) -> u64 {
        self.start
    }

    /// One past the last cached block. For the segment being read ahead this trails the
    /// media; the device brings it up to date before every lookup.
    #[inline(always)]
    pub(crate) fn end(&self) -> u64 {
        self.start + self.span
    }

    /// Move the start to `start` (no later than the end), the end staying where it is.
    #[inline(always)]
    pub(crate) fn set_start(&mut self, start: u64) {
        let end = self.end();
        debug_assert!(start <= end);
        self.start = start;
        self.span = end - start;
    }

    /// Start at the free blocks ("read any free blocks"), from `free_start`, as far as a
    /// segment of `size` blocks has room for them: they count against its size like every
    /// other block, so read-ahead beyond the room pushes them out first (DiskSim's
    /// `disk_buffer_segment_wrap` on a segment whose start the landing moved back).
    pub(crate) fn start_at_free_blocks(&mut self, free_start: u64, size: u64) {
        let start = free_start
            .max(self.end().saturating_sub(size))
            .min(self.start);
        self.set_start(start);
        self.free_from = None;
    }

    #[inline]
    pub(crate) fn overlaps(&self, lbn: u64, n: u32) -> bool {
        self.state != SegState::Empty && lbn < self.end() && lbn + n as u64 > self.start
    }
}

/// How a read values segment `i` if it holds `lbn`, and what it finds there (value 0: nothing
/// for this read). DiskSim's preferences: dirty (freshest) over being-read over clean, whole
/// hits over partial ones. `reading` is the segment being read ahead and `almost_at` that
/// segment when "almost" hits count (`usize::MAX`: none).
#[inline(always)]
fn read_hit_value(
    i: usize,
    s: &Segment,
    lbn: u64,
    end: u64,
    reading: usize,
    almost_at: usize,
) -> (u8, ReadHit) {
    if s.write_only || s.state == SegState::Empty {
        return (0, ReadHit::Miss);
    }
    if lbn >= s.start && lbn < s.end() {
        let base = match s.state {
            SegState::Dirty => 11,
            _ if i == reading => 9,
            _ => 8,
        };
        if s.end() >= end {
            (base, ReadHit::Whole(i))
        } else {
            (base - 4, ReadHit::Partial(i))
        }
    } else if i == almost_at && s.end() == lbn {
        (5, ReadHit::Partial(i))
    } else {
        (0, ReadHit::Miss)
    }
}

/// How a read miss values segment `i` as the one to take (0: it may not): empty 3, clean 2,
/// the clean one being read ahead (`reading`, `usize::MAX` for none) 1, dirty or reserved
/// for writes 0.
#[inline(always)]
fn read_victim_value(i: usize, s: &Segment, reading: usize) -> u8 {
    let v = s.state as u8 * !s.write_only as u8;
    v - (v == SegState::Clean as u8 && i == reading) as u8
}

/// The best segment so far: highest value, least recently used among equals, the first of
/// those, value 0 unusable. Value, age and index share one key (the value above the age
/// above the index counted down from the last: [`Victim::age_index`]) so that each segment
/// costs one maximum and no two keys are equal: the largest is the choice, and names its
/// segment.
struct Victim {
    key: u64,
}

impl Victim {
    /// Where the value starts; the age and the index share the bits below.
    const AGE_BITS: u32 = 61;
    const AGE_MASK: u64 = (1 << Self::AGE_BITS) - 1;

    /// Bits the index takes in the key of a cache of `n` segments: stamps count touches, far
    /// below the 2^(61 - bits) left to the age (2^57 with 16 segments).
    fn index_bits(n: usize) -> u32 {
        usize::BITS - (n.max(2) - 1).leading_zeros()
    }

    /// The key's bits below the value for segment `i` last used at `stamp`: older (smaller
    /// stamp) above newer, then lower index above higher.
    fn age_index(stamp: u64, i: usize, index_bits: u32) -> u64 {
        debug_assert!(stamp < 1 << (Self::AGE_BITS - index_bits));
        Self::AGE_MASK - (stamp << index_bits) - i as u64
    }

    #[inline(always)]
    fn new() -> Self {
        // Below every usable segment's key (value 1 or more).
        Victim { key: 0 }
    }

    #[inline(always)]
    fn key(value: u8, s: &Segment) -> u64 {
        ((value as u64) << Self::AGE_BITS) | s.age_index
    }

    #[inline(always)]
    fn offer(&mut self, s: &Segment, value: u8) {
        self.offer_key(Self::key(value, s));
    }

    #[inline(always)]
    fn offer_key(&mut self, key: u64) {
        self.key = self.key.max(key);
    }

    #[inline(always)]
    fn chosen(&self, index_bits: u32) -> Option<usize> {
        let index_mask = (1 << index_bits) - 1;
        (self.key >> Self::AGE_BITS != 0).then_some((index_mask - (self.key & index_mask)) as usize)
    }
}

/// What a read finds in the buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReadHit {
    /// Every block is cached.
    Whole(usize),
    /// The first blocks are cached (or, for an "almost" hit, are about to be read ahead).
    Partial(usize),
    Miss,
}

#[derive(Clone, Debug)]
pub(crate) struct Cache {
    pub segs: Vec<Segment>,
    /// Blocks per segment.
    pub size: u32,
    pub max_write_segments: u32,
    clock: u64,
    /// Bits a segment's index takes in its victim key ([`Victim::index_bits`]).
    index_bits: u32,
    /// How many segments have `free_from` set, so the common case skips looking.
    pub free_pending: u32,
    /// The largest `at` (slot of a segment's start on its landing track) any segment's
    /// `free_from` was given ([`Cache::set_free_from`]): free blocks lie at most this far
    /// before a start, which bounds what a lookup must look at.
    max_free_back: u64,
}

impl Cache {
    pub fn new(spec: &CacheSpec) -> Self {
        let n = spec.segments.max(1) as usize;
        let mut segs = vec![Segment::empty(false); n];
        if spec.separate_write_segment && n > 1 {
            segs[n - 1].write_only = true;
        }
        let index_bits = Victim::index_bits(n);
        for (i, s) in segs.iter_mut().enumerate() {
            s.age_index = Victim::age_index(0, i, index_bits);
            s.rekey();
        }
        Cache {
            segs,
            size: spec.segment_sectors.max(1),
            max_write_segments: spec.max_write_segments.max(1),
            clock: 0,
            index_bits,
            free_pending: 0,
            max_free_back: 0,
        }
    }

    /// Mark a segment used now (LRU).
    pub(crate) fn touch(&mut self, i: usize) {
        self.clock += 1;
        self.segs[i].stamp = self.clock;
        let s = &mut self.segs[i];
        s.age_index = Victim::age_index(self.clock, i, self.index_bits);
        // The value above the age is the key's already (every change of state goes through
        // `set_state_rekeyed`): only the age is new. Reading `state` and `write_only` back
        // instead loaded them as one word soon after a read miss's byte store of `state`.
        s.victim_key = (s.victim_key & !Victim::AGE_MASK) | s.age_index;
        debug_assert_eq!(
            s.victim_key,
            Victim::key(read_victim_value(0, s, usize::MAX), s)
        );
    }

    /// Look a read up, and choose the segment it takes if it misses ([`Cache::victim_for_read`]),
    /// in one walk over the segments (a second only when a segment is near the read): every
    /// read asks both. `reading` is the segment being read
    /// ahead, if any; `almost` allows a request starting exactly where read-ahead is about to
    /// read to count as a partial hit. With `resolve_free`, a segment that also holds the
    /// blocks passed on its landing track ([`Segment::free_from`]) and that this read reaches
    /// below its start first learns where those blocks start, from `free_start`.
    pub(crate) fn lookup_read(
        &mut self,
        lbn: u64,
        n: u32,
        reading: Option<usize>,
        almost: bool,
        resolve_free: bool,
        free_start: impl Fn(&Segment) -> u64,
    ) -> (ReadHit, Option<usize>) {
        // Whatever a segment can answer (a hit from `start`, an almost hit at `end`, free
        // blocks at most `max_free_back` before `start` reached by this read) lies in
        // `lo ..= end` of the segment; one range test tells whether a segment is that near
        // (nearly none is). (`lbn - lo <= end - lo` with `lo = start - back`, in wrapping
        // arithmetic: where `lo` would fall below 0 the test is `lbn <= end`, as with
        // `lo = 0`.)
        let back = n as u64 + self.max_free_back;
        let from = lbn.wrapping_add(back);
        // The walk every read makes: each key offered as it is, and whether any segment is
        // near, without a branch a segment; what a near segment holds is looked at after.
        // (Counted by index and as a sum of the segments passed over: over the slice's
        // iterator LLVM worked the count out from the pointers, a division by the segment's
        // size, and the sum takes the comparison's carry, one instruction.)
        let mut victim = Victim::new();
        let mut far = 0;
        let segs = &self.segs[..];
        #[allow(clippy::needless_range_loop)]
        for i in 0..segs.len() {
            let s = &segs[i];
            victim.offer_key(s.victim_key);
            far += (from.wrapping_sub(s.start) > s.span.wrapping_add(back)) as usize;
        }
        let near = far != segs.len();
        // Indices compare cheaper than options.
        let reading = reading.unwrap_or(usize::MAX);
        let mut chosen = victim.chosen(self.index_bits);
        if chosen == Some(reading) {
            // The segment being read ahead goes after the other clean ones (value 2 to 1),
            // which the keys as they are do not say. It is rarely the choice (it was used
            // last), and only then can that change the choice: any other segment chosen has
            // a key above its key, and so above its key lowered.
            chosen = self.victim_for_read(Some(reading));
        }
        let hit = if near {
            self.lookup_near(lbn, n, back, reading, almost, resolve_free, free_start)
        } else {
            ReadHit::Miss
        };
        (hit, chosen)
    }

    /// What the segments near a read ([`Cache::lookup_read`]'s range test, `back` blocks
    /// before a start) hold for it: the walk again, each near segment's free blocks resolved
    /// first as the read reaches them, then valued. Out of line: few reads get here.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn lookup_near(
        &mut self,
        lbn: u64,
        n: u32,
        back: u64,
        reading: usize,
        almost: bool,
        resolve_free: bool,
        free_start: impl Fn(&Segment) -> u64,
    ) -> ReadHit {
        let end = lbn + n as u64;
        let from = lbn.wrapping_add(back);
        let almost_at = if almost { reading } else { usize::MAX };
        let size = self.size as u64;
        let mut best = (0u8, ReadHit::Miss);
        let mut resolved = 0;
        for (i, s) in self.segs.iter_mut().enumerate() {
            if from.wrapping_sub(s.start) > s.span.wrapping_add(back) {
                debug_assert!(
                    !(lbn >= s.start && lbn < s.end())
                        && s.end() != lbn
                        && !s
                            .free_from
                            .is_some_and(|f| lbn < s.start && end + f.at as u64 > s.start),
                    "segment passed over"
                );
                continue;
            }
            if resolve_free {
                if let Some(FreeFrom { at, .. }) = s.free_from {
                    // The free blocks lie at most `at` blocks before the start (slots before
                    // it on the same track; slipped slots hold none).
                    let reach = end + at as u64;
                    if lbn < s.start && reach > s.start && s.state != SegState::Empty {
                        s.start_at_free_blocks(free_start(s), size);
                        resolved += 1;
                    }
                }
            }
            // The wrapping difference is the range check.
            let inside = lbn.wrapping_sub(s.start) < s.span;
            if inside || (i == almost_at && s.end() == lbn) {
                let (value, hit) = read_hit_value(i, s, lbn, end, reading, almost_at);
                if value > best.0 {
                    best = (value, hit);
                }
            }
        }
        self.free_pending -= resolved;
        best.1
    }

    /// The segment a read miss takes: empty before clean before the one being read ahead,
    /// least recently used first. `None` when every segment is busy with dirty data.
    pub(crate) fn victim_for_read(&self, reading: Option<usize>) -> Option<usize> {
        let reading = reading.unwrap_or(usize::MAX);
        self.pick(|i, s| read_victim_value(i, s, reading))
    }

    /// The segment a write takes: the dedicated write segment if there is one; otherwise a
    /// clean one it overlaps, then empty, then clean, then the one being read ahead.
    pub(crate) fn victim_for_write(
        &self,
        lbn: u64,
        n: u32,
        reading: Option<usize>,
    ) -> Option<usize> {
        if let Some(i) = self.segs.iter().position(|s| s.write_only) {
            return (self.segs[i].state != SegState::Dirty).then_some(i);
        }
        let dirty = self
            .segs
            .iter()
            .filter(|s| s.state == SegState::Dirty)
            .count() as u32;
        if dirty >= self.max_write_segments {
            return None;
        }
        self.pick(|i, s| match s.state {
            SegState::Empty => 3,
            SegState::Clean if reading == Some(i) => 1,
            SegState::Clean if s.overlaps(lbn, n) => 4,
            SegState::Clean => 2,
            SegState::Dirty => 0,
        })
    }

    /// Highest value wins; least recently used among equals; value 0 is unusable.
    fn pick(&self, value: impl Fn(usize, &Segment) -> u8) -> Option<usize> {
        let mut v = Victim::new();
        for (i, s) in self.segs.iter().enumerate() {
            v.offer(s, value(i, s));
        }
        v.chosen(self.index_bits)
    }

    /// Start a segment afresh at `lbn` (empty range, clean).
    pub(crate) fn reset(&mut self, i: usize, lbn: u64) {
        let s = &mut self.segs[i];
        s.start = lbn;
        s.span = 0;
        s.max_ra_lbn = 0;
        s.set_state_rekeyed(SegState::Clean);
        if s.free_from.take().is_some() {
            self.free_pending -= 1;
        }
    }

    /// Set segment `i`'s state.
    pub(crate) fn set_state(&mut self, i: usize, state: SegState) {
        self.segs[i].set_state_rekeyed(state);
    }

    /// Note that segment `i` also holds the blocks passed on its landing track.
    pub(crate) fn set_free_from(&mut self, i: usize, from: FreeFrom) {
        self.max_free_back = self.max_free_back.max(from.at as u64);
        if self.segs[i].free_from.replace(from).is_none() {
            self.free_pending += 1;
        }
    }

    /// A write makes clean copies of its blocks elsewhere stale.
    pub(crate) fn invalidate_overlapping(&mut self, keep: usize, lbn: u64, n: u32) {
        for (i, s) in self.segs.iter_mut().enumerate() {
            if i != keep && s.state == SegState::Clean && s.overlaps(lbn, n) {
                s.set_state_rekeyed(SegState::Empty);
            }
        }
    }

    /// Grow segment `i` to end at `end`, sliding its start so it never holds more than its size.
    pub(crate) fn extend(&mut self, i: usize, end: u64) {
        let size = self.size as u64;
        let s = &mut self.segs[i];
        if end > s.end() {
            s.span = end - s.start;
        }
        let start = s.start.max(s.end().saturating_sub(size));
        if start != s.start {
            s.set_start(start);
            if s.free_from.take().is_some() {
                self.free_pending -= 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(n: u32, write_seg: bool) -> Cache {
        Cache::new(&CacheSpec {
            enabled: true,
            segments: n,
            segment_sectors: 100,
            max_write_segments: 1,
            separate_write_segment: write_seg,
            ..Default::default()
        })
    }

    fn hit(c: &mut Cache, lbn: u64, n: u32, reading: Option<usize>, almost: bool) -> ReadHit {
        c.lookup_read(lbn, n, reading, almost, false, |_| unreachable!())
            .0
    }

    #[test]
    fn whole_and_partial_hits() {
        let mut c = cache(3, false);
        c.reset(0, 1000);
        c.extend(0, 1050);
        assert_eq!(hit(&mut c, 1010, 8, None, false), ReadHit::Whole(0));
        assert_eq!(hit(&mut c, 1045, 8, None, false), ReadHit::Partial(0));
        assert_eq!(hit(&mut c, 1050, 8, None, false), ReadHit::Miss);
        assert_eq!(hit(&mut c, 1050, 8, Some(0), true), ReadHit::Partial(0));
        assert_eq!(hit(&mut c, 999, 8, None, false), ReadHit::Miss);
    }

    #[test]
    fn the_lookup_picks_the_same_victim_as_a_miss_would() {
        let mut c = cache(4, false);
        let check = |c: &mut Cache, reading: Option<usize>| {
            let want = c.victim_for_read(reading);
            assert_eq!(c.lookup_read(7, 1, reading, false, false, |_| 0).1, want);
            want
        };
        assert_eq!(check(&mut c, None), Some(0));
        for (i, lbn) in [(0, 0), (2, 20), (1, 10), (3, 30)] {
            c.reset(i, lbn);
            c.extend(i, lbn + 5);
            c.touch(i);
        }
        // All clean: the least recently used (0), unless it is being read ahead.
        assert_eq!(check(&mut c, None), Some(0));
        assert_eq!(check(&mut c, Some(0)), Some(2));
        c.set_state(2, SegState::Dirty);
        assert_eq!(check(&mut c, Some(0)), Some(1));
        c.set_state(3, SegState::Empty);
        assert_eq!(check(&mut c, Some(0)), Some(3));
        for i in 0..c.segs.len() {
            c.set_state(i, SegState::Dirty);
        }
        assert_eq!(check(&mut c, None), None);
    }

    #[test]
    fn a_read_below_a_segment_resolves_its_free_blocks_first() {
        let mut c = cache(2, false);
        c.reset(0, 1000);
        c.extend(0, 1010);
        c.set_free_from(0, FreeFrom::new(1, 2, 40, 100, 3.0).unwrap());
        assert_eq!(c.free_pending, 1);
        // Out of reach (more than 40 blocks below): left alone, and a miss.
        let r = c.lookup_read(900, 8, None, false, true, |_| unreachable!());
        assert_eq!(r.0, ReadHit::Miss);
        assert_eq!(c.free_pending, 1);
        // Within reach: the segment now starts where the free blocks do, and the read hits.
        let r = c.lookup_read(975, 8, None, false, true, |s| s.start() - 30);
        assert_eq!(r.0, ReadHit::Whole(0));
        assert_eq!(
            (c.segs[0].start(), c.segs[0].free_from, c.free_pending),
            (970, None, 0)
        );
    }

    /// The free blocks take room in the segment like any other: once the read-ahead has
    /// brought the segment near its size, only the free blocks nearest the request are
    /// left (the IBM 18ES's 1,930th request: a read 44 blocks below the one before, whose
    /// read-ahead had filled the segment; DiskSim 4.0 and the real drive both miss).
    #[test]
    fn free_blocks_count_against_the_segments_size() {
        let mut c = cache(2, false);
        c.reset(0, 1000);
        // 100-block segments: 95 blocks from the request on leave room for 5 below it.
        c.extend(0, 1095);
        c.set_free_from(0, FreeFrom::new(1, 2, 40, 100, 3.0).unwrap());
        let r = c.lookup_read(980, 4, None, false, true, |s| s.start() - 30);
        assert_eq!(r.0, ReadHit::Miss, "pushed out by the read-ahead");
        assert_eq!((c.segs[0].start(), c.free_pending), (995, 0));
        let r = c.lookup_read(996, 4, None, false, true, |_| unreachable!());
        assert_eq!(
            r.0,
            ReadHit::Whole(0),
            "the room left holds the nearest ones"
        );
        // Full to its size from the request on: no free block is left.
        c.reset(1, 5000);
        c.extend(1, 5100);
        c.set_free_from(1, FreeFrom::new(1, 2, 40, 100, 3.0).unwrap());
        let r = c.lookup_read(4996, 4, None, false, true, |s| s.start() - 30);
        assert_eq!(r.0, ReadHit::Miss);
        assert_eq!(c.segs[1].start(), 5000);
    }

    /// The landing kept raw by a read miss ([`FreeFrom`]) and worked out when a read needs
    /// it is the plan's landing slot, for reads anywhere, zero-latency or not.
    #[test]
    fn a_kept_landing_is_the_plans_landing_slot() {
        use super::super::mechanics::Mechanics;
        use super::super::media;
        use crate::request::{HeadPosition, Op};
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut checked = 0;
        for drive in ["atlas10k", "hp_c3323a", "st41601n"] {
            let spec = crate::device::catalog::lookup(drive).unwrap();
            let mech = Mechanics::new(&spec).unwrap();
            let cap = mech.layout.capacity_sectors();
            let mut from = HeadPosition::default();
            for _ in 0..3000 {
                let n = 1 + (next() % 64) as u32;
                let lbn = next() % (cap - n as u64);
                let t = (next() % 1_000_000_000) as f64 + (next() % 1000) as f64 / 1000.0;
                let zl = next() % 2 == 0;
                let plan = media::plan(&mech, from, t, lbn, n, Op::Read, zl, 0);
                from = plan.end_head;
                let (Some(xs), Some(at)) = (plan.landing_sectors(), plan.first_loc) else {
                    continue;
                };
                let f = FreeFrom::new(at.cylinder, at.surface, at.sector, at.spt, xs).unwrap();
                assert_eq!(
                    plan.landing(),
                    Some((f.cylinder, f.surface, f.landing_slot())),
                    "{drive} lbn {lbn} n {n} t {t}"
                );
                checked += 1;
            }
        }
        assert!(checked > 8000, "{checked}");
    }

    #[test]
    fn segments_slide_to_their_size() {
        let mut c = cache(1, false);
        c.reset(0, 0);
        c.extend(0, 250);
        assert_eq!((c.segs[0].start(), c.segs[0].end()), (150, 250));
    }

    #[test]
    fn misses_take_empty_then_least_recent_clean() {
        let mut c = cache(3, false);
        c.reset(0, 0);
        c.touch(0);
        assert_eq!(c.victim_for_read(None), Some(1));
        c.reset(1, 10);
        c.touch(1);
        c.reset(2, 20);
        c.touch(2);
        assert_eq!(c.victim_for_read(None), Some(0));
        // The segment being read ahead goes last.
        assert_eq!(c.victim_for_read(Some(0)), Some(1));
    }

    #[test]
    fn reads_never_use_the_write_segment() {
        let mut c = cache(2, true);
        let w = c.victim_for_write(5, 1, None).unwrap();
        assert!(c.segs[w].write_only);
        c.reset(w, 5);
        c.extend(w, 6);
        assert_eq!(hit(&mut c, 5, 1, None, false), ReadHit::Miss);
        assert_eq!(c.victim_for_read(None), Some(1 - w));
    }

    /// The choice as it was made before the index joined the key: highest value, then the
    /// smallest stamp, then the first index; value 0 unusable.
    fn pick_by_fields(c: &Cache, value: impl Fn(usize, &Segment) -> u8) -> Option<usize> {
        let mut best: Option<(u8, u64, usize)> = None;
        for (i, s) in c.segs.iter().enumerate() {
            let v = value(i, s);
            if v == 0 {
                continue;
            }
            if best.is_none_or(|(bv, bs, _)| v > bv || (v == bv && s.stamp < bs)) {
                best = Some((v, s.stamp, i));
            }
        }
        best.map(|b| b.2)
    }

    proptest::proptest! {
        /// Random uses of caches of 1 to 40 segments: every choice (the lookup's, a read
        /// miss's, a write's) is the one the fields say, whatever the segments' count.
        #[test]
        fn victims_are_chosen_by_value_then_age_then_index(
            n in 1u32..40,
            write_seg in proptest::bool::ANY,
            ops in proptest::collection::vec((0u8..4, 0usize..40, 0u64..64), 0..60),
            reading in proptest::option::of(0usize..40),
        ) {
            let mut c = cache(n, write_seg);
            let segs = c.segs.len();
            for (op, i, lbn) in ops {
                let i = i % segs;
                match op {
                    0 => c.reset(i, lbn * 10),
                    1 => c.touch(i),
                    2 => c.set_state(i, [SegState::Empty, SegState::Clean, SegState::Dirty][lbn as usize % 3]),
                    _ => c.extend(i, c.segs[i].start() + lbn),
                }
            }
            let reading = reading.map(|r| r % segs);
            let r = reading.unwrap_or(usize::MAX);
            let want = pick_by_fields(&c, |i, s| read_victim_value(i, s, r));
            proptest::prop_assert_eq!(c.victim_for_read(reading), want);
            proptest::prop_assert_eq!(c.lookup_read(7, 1, reading, false, false, |s| s.start()).1, want);
            if !write_seg {
                let dirty = c.segs.iter().filter(|s| s.state == SegState::Dirty).count() as u32;
                let want = if dirty >= c.max_write_segments {
                    None
                } else {
                    pick_by_fields(&c, |i, s| match s.state {
                        SegState::Empty => 3,
                        SegState::Clean if reading == Some(i) => 1,
                        SegState::Clean if s.overlaps(7, 1) => 4,
                        SegState::Clean => 2,
                        SegState::Dirty => 0,
                    })
                };
                proptest::prop_assert_eq!(c.victim_for_write(7, 1, reading), want);
            }
        }
    }
}
