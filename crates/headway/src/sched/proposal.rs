//! Bookkeeping shared by every built-in scheduler's propose/commit: the last proposal is
//! remembered with whatever committing it must apply (the queue key to remove, the new sweep
//! direction, the predicted end of the command), so commit does no second search.

use crate::error::HeadwayError;
use crate::request::{Command, Request};

/// The last `Dispatch` proposal of a scheduler and what committing it applies.
pub(crate) struct ProposalSlot<K> {
    last: Option<(Signature, K)>,
}

/// What identifies a proposed command: its first request, or for a command carrying no
/// request (an elevator's travel to the edge) its target.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Signature {
    Request(u64),
    Seek(u64),
}

fn signature(cmd: &Command) -> Signature {
    match cmd.requests.first() {
        Some(r) => Signature::Request(r.id),
        None => Signature::Seek(cmd.lbn),
    }
}

impl<K> Default for ProposalSlot<K> {
    fn default() -> Self {
        ProposalSlot { last: None }
    }
}

impl<K> ProposalSlot<K> {
    /// Remember `cmd` as the current proposal, with what committing it applies.
    #[inline]
    pub(crate) fn set(&mut self, cmd: &Command, apply: K) {
        self.last = Some((signature(cmd), apply));
    }
    /// What committing `cmd` applies, if `cmd` is the current proposal.
    #[inline]
    pub(crate) fn take_for(&mut self, cmd: &Command) -> Option<K> {
        match self.last.take() {
            Some((sig, k)) if sig == signature(cmd) => Some(k),
            _ => None,
        }
    }
}

/// The error for committing a command the scheduler did not propose (a wrapper's bug).
pub(crate) fn not_proposed(scheduler: &str, cmd: &Command) -> HeadwayError {
    let what = match cmd.requests.first() {
        Some(r) => format!("request {}", r.id),
        None => format!("a seek to sector {}", cmd.lbn),
    };
    HeadwayError::Invariant(format!(
        "scheduler `{scheduler}` was asked to commit {what}, which is not its current proposal \
         (commit must follow propose with no arrival or completion in between)"
    ))
}

/// The command form of a `Serve` decision, for committing it: the served requests on their
/// device, no extent of its own.
pub fn serve_command(reqs: &[Request]) -> Command {
    let first = reqs.first();
    Command {
        device: first.map_or(0, |r| r.device),
        lbn: first.map_or(0, |r| r.lbn),
        sectors: 0,
        op: first.map_or(crate::request::Op::Read, |r| r.op),
        dispatch_ns: 0,
        predicted_ns: None,
        requests: reqs.iter().copied().collect(),
    }
}
