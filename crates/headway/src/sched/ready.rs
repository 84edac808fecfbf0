//! The requests a wrapper scheduler has finished itself (a user write whose flash copy
//! landed, a logical request whose member operations are done, a cache hit), which go out as
//! one `Serve` before anything the inner scheduler would pick. The flash-backed wrapper, the
//! array layer and the controller cache share this part of the scheduler protocol.

use super::{Decision, Placement, Served};
use crate::request::{Command, Request};

/// Finished requests waiting to be served, in the order they finished.
#[derive(Debug, Default)]
pub(crate) struct ReadyList {
    reqs: Served,
}

impl ReadyList {
    pub(crate) fn new() -> Self {
        ReadyList::default()
    }

    #[inline]
    pub(crate) fn push(&mut self, r: Request) {
        self.reqs.push(r);
    }

    #[inline]
    pub(crate) fn extend(&mut self, reqs: impl IntoIterator<Item = Request>) {
        self.reqs.extend(reqs);
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.reqs.len()
    }

    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.reqs.is_empty()
    }

    /// The proposal that serves every ready request, leaving them here until it is
    /// committed; `None` with nothing ready (the inner scheduler proposes instead).
    #[inline]
    pub(crate) fn propose(&self) -> Option<Decision> {
        if self.is_empty() {
            return None;
        }
        Some(Decision::Serve(self.reqs.clone()))
    }

    /// [`ReadyList::propose`] and its commit in one (a wrapper's `decide`): the ready
    /// requests leave now.
    #[inline]
    pub(crate) fn take(&mut self) -> Option<Decision> {
        if self.is_empty() {
            return None;
        }
        Some(Decision::Serve(std::mem::take(&mut self.reqs)))
    }

    /// A commit that is this list's `Serve` (diverted, with requests ready: the inner
    /// scheduler proposed nothing, since the list's proposal came first) removes the
    /// requests it carries and returns true; any other commit is the inner scheduler's.
    #[inline]
    pub(crate) fn commit(&mut self, cmd: &Command, placement: Placement) -> bool {
        if placement != Placement::Diverted || self.is_empty() {
            return false;
        }
        self.served(cmd);
        true
    }

    /// The requests `cmd` carries were served: they leave the list.
    #[inline]
    pub(crate) fn served(&mut self, cmd: &Command) {
        // The committed command is the list's own proposal, so it normally carries every
        // ready request in order: checked in one pass, then cleared.
        let all = cmd.requests.len() == self.reqs.len()
            && cmd
                .requests
                .iter()
                .zip(&self.reqs)
                .all(|(a, b)| a.id == b.id);
        if all {
            self.reqs.clear();
        } else {
            self.reqs.retain(|r| !cmd.carries(r.id));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Op;
    use crate::sched::serve_command;

    fn req(id: u64) -> Request {
        let mut r = Request::new(id * 10, id * 8, 8, Op::Read);
        r.id = id;
        r
    }

    fn ids(d: Option<Decision>) -> Vec<u64> {
        match d {
            Some(Decision::Serve(reqs)) => reqs.iter().map(|r| r.id).collect(),
            other => panic!("expected a Serve, got {other:?}"),
        }
    }

    #[test]
    fn empty_list_proposes_nothing_and_leaves_commits_to_the_inner_scheduler() {
        let mut l = ReadyList::new();
        assert!(l.is_empty());
        assert_eq!(l.len(), 0);
        assert!(l.propose().is_none());
        assert!(l.take().is_none());
        let cmd = serve_command(&[req(1)]);
        assert!(!l.commit(&cmd, Placement::Diverted));
        assert!(!l.commit(&cmd, Placement::Device));
    }

    #[test]
    fn ready_requests_are_served_first_in_first_out() {
        let mut l = ReadyList::new();
        l.push(req(3));
        l.extend([req(1), req(2)]);
        l.push(req(7));
        assert_eq!(l.len(), 4);
        // Proposing changes nothing: asked twice, the same answer.
        assert_eq!(ids(l.propose()), vec![3, 1, 2, 7]);
        assert_eq!(ids(l.propose()), vec![3, 1, 2, 7]);
        assert_eq!(l.len(), 4);
        assert_eq!(ids(l.take()), vec![3, 1, 2, 7]);
        assert!(l.is_empty() && l.take().is_none());
    }

    #[test]
    fn committing_the_proposal_empties_the_list() {
        let mut l = ReadyList::new();
        l.extend([req(4), req(5)]);
        let Some(Decision::Serve(reqs)) = l.propose() else {
            panic!("two ready requests propose a Serve");
        };
        let cmd = serve_command(&reqs);
        // A dispatch to a device is never the list's own serve.
        assert!(!l.commit(&cmd, Placement::Device));
        assert_eq!(l.len(), 2);
        assert!(l.commit(&cmd, Placement::Diverted));
        assert!(l.is_empty());
    }

    #[test]
    fn a_serve_of_some_requests_removes_only_those_and_keeps_the_order() {
        let mut l = ReadyList::new();
        l.extend([req(1), req(2), req(3), req(4)]);
        l.served(&serve_command(&[req(3), req(1)]));
        assert_eq!(ids(l.propose()), vec![2, 4]);
        // Requests the list never held change nothing.
        l.served(&serve_command(&[req(9)]));
        assert_eq!(ids(l.take()), vec![2, 4]);
    }
}
