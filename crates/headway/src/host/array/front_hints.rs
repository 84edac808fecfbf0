//! What the array layer promises the host about when asking it is sure to find nothing
//! to do (`Hints`): the promises that let the host skip calls, so that a member operation
//! costs about what the same request sent to its drive as a plain one costs.

use super::settings::MirrorRead;
use super::volume::Volume;
use crate::sched::Hints;

/// What the array layer over a scheduler promising `inner` promises the host. Without a
/// rebuild or scrub it makes no work of its own and never waits: it acts on what it holds
/// (logical requests served from memory, counted in its `pending`) and on what the inner
/// scheduler holds, so it is idle when empty if the inner one is; and it reads the
/// predictors only to choose between a mirrored unit's copies by `fastest` (a lone copy
/// is chosen whatever they say). It never acts only with a free slot (a logical request
/// with no member operation, a read of a lost unit without redundancy, is served at its
/// arrival, whatever the devices hold), never ignores completions (they finish its
/// logical requests) and passes no arrival through (a volume's request becomes member
/// operations).
pub(super) fn front_hints(inner: Hints, any_background: bool, volumes: &[Volume]) -> Hints {
    Hints {
        idle_when_empty: inner.idle_when_empty && !any_background,
        ignores_predictors: inner.ignores_predictors
            && volumes
                .iter()
                .all(|v| v.mirror_read != MirrorRead::Fastest || v.layout.copies < 2),
        ..Hints::ASK_ALWAYS
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::array::layout::Layout;
    use crate::host::array::plan::WriteRule;
    use crate::host::array::settings::{ArrayLevel, ParityRotation, SmallWrite};

    /// What FCFS promises: everything.
    const ALL: Hints = Hints {
        acts_only_with_a_free_slot: true,
        idle_when_empty: true,
        ignores_completions: true,
        ignores_predictors: true,
        passes_through_when_empty: true,
    };

    fn volume(level: ArrayLevel, members: usize, copies: usize, read: MirrorRead) -> Volume {
        Volume::new(
            "vol".into(),
            Layout::new(
                level,
                members,
                8,
                8 * 100,
                ParityRotation::default(),
                copies,
            ),
            WriteRule::Fixed(SmallWrite::default()),
            true,
            read,
            (0..members as u16).collect(),
        )
    }

    #[test]
    fn a_raid5_over_fcfs_is_idle_when_empty_and_reads_no_predictor() {
        let v = [volume(ArrayLevel::Raid5, 5, 1, MirrorRead::Fastest)];
        let h = front_hints(ALL, false, &v);
        assert!(h.idle_when_empty);
        assert!(h.ignores_predictors);
        // Served logical requests leave without a slot; completions finish them; a
        // volume's request is planned, never passed through.
        assert!(!h.acts_only_with_a_free_slot);
        assert!(!h.ignores_completions);
        assert!(!h.passes_through_when_empty);
    }

    #[test]
    fn background_work_or_a_choice_of_copies_withdraws_the_promises() {
        let raid5 = [volume(ArrayLevel::Raid5, 5, 1, MirrorRead::Fastest)];
        assert!(!front_hints(ALL, true, &raid5).idle_when_empty);
        let fastest = [volume(ArrayLevel::Raid1, 2, 2, MirrorRead::Fastest)];
        assert!(!front_hints(ALL, false, &fastest).ignores_predictors);
        let round_robin = [volume(ArrayLevel::Raid1, 2, 2, MirrorRead::RoundRobin)];
        assert!(front_hints(ALL, false, &round_robin).ignores_predictors);
        // Nothing the inner scheduler does not promise itself.
        assert_eq!(
            front_hints(Hints::ASK_ALWAYS, false, &raid5),
            Hints::ASK_ALWAYS
        );
    }
}
