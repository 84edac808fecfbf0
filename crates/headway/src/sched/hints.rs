//! The promises a scheduler makes the host, which let the host skip calls that would find
//! nothing to do (most calls, under load). Each is a promise about behaviour: a scheduler
//! that makes one and breaks it runs wrong, so a promise not certainly kept is left off.

/// What a scheduler promises the host ([`crate::sched::Scheduler::hints`]). Every field
/// off ([`Hints::ASK_ALWAYS`], the default) promises nothing: the host asks at every turn,
/// which is always correct, only slower.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hints {
    /// The scheduler only ever acts when a device has a free slot: it never waits, serves
    /// from memory or makes work while every device is full. The host then skips asking it
    /// while every device is full.
    pub acts_only_with_a_free_slot: bool,
    /// The scheduler does nothing while it holds no request (`Scheduler::pending` is 0): it
    /// never makes work, waits or serves from an empty queue. The host then skips asking
    /// it while it is empty (every call after the dispatch that emptied it, and after every
    /// completion, when the device orders the queue).
    pub idle_when_empty: bool,
    /// `Scheduler::on_completion` is the default no-op (and `Scheduler::take_failure`
    /// cannot change because of it): the host then neither builds a context nor calls it at
    /// each completion.
    pub ignores_completions: bool,
    /// The scheduler never reads the context's predictors (no estimate, no head, no
    /// geometry, through no helper). With prediction tracking off as well, nothing reads
    /// them, so the host stops feeding them each completion (`Predictor::observe`).
    pub ignores_predictors: bool,
    /// An arrival that finds the scheduler empty (`Scheduler::pending` is 0) and its device
    /// with a free slot would be dispatched by the next decision at once, alone and
    /// unchanged (`Command::single`), the scheduler keeping no record of it (FCFS). The host
    /// then sends it without calling the scheduler at all: with a drive ordering a deep
    /// queue, that is nearly every request. Such a scheduler's `pending` must change only
    /// in its own `&mut self` calls: the host, having found it empty, takes it to be empty
    /// until it next calls it.
    pub passes_through_when_empty: bool,
}

impl Hints {
    /// No promise: the host asks at every turn (the default, and a plug-in's).
    pub const ASK_ALWAYS: Hints = Hints {
        acts_only_with_a_free_slot: false,
        idle_when_empty: false,
        ignores_completions: false,
        ignores_predictors: false,
        passes_through_when_empty: false,
    };

    /// Acts only when a device has a free slot, and promises nothing else: most built-in
    /// schedulers.
    pub const SLOT_DRIVEN: Hints = Hints {
        acts_only_with_a_free_slot: true,
        ..Hints::ASK_ALWAYS
    };

    /// Acts only with a free slot and does nothing with nothing queued: a scheduler whose
    /// every action is dispatching a request it holds.
    pub const QUEUE_DRIVEN: Hints = Hints {
        acts_only_with_a_free_slot: true,
        idle_when_empty: true,
        ..Hints::ASK_ALWAYS
    };

    /// What a wrapper may promise of its inner scheduler's hints: that it acts only with a
    /// free slot when the inner one does (a wrapper that waits, makes work or keeps state
    /// of its own with an empty queue promises none of the rest).
    pub const fn slot_driven_if(inner: Hints) -> Hints {
        Hints {
            acts_only_with_a_free_slot: inner.acts_only_with_a_free_slot,
            ..Hints::ASK_ALWAYS
        }
    }
}
