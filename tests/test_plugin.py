"""Schedulers written in Python, plugged into the Rust core."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import headway
from headway.testing import assert_conserved
from conftest import small


class Fifo:
    name = "py-fcfs"

    def __init__(self):
        self.queue = []

    def on_arrival(self, req, ctx):
        self.queue.append(req)

    def decide(self, ctx):
        if self.queue and ctx.has_slot():
            return self.queue.pop(0)
        return None


class PySptf:
    """Shortest positioning time first, ties to the oldest: the Rust `sptf` at depth 1."""

    def __init__(self):
        self.queue = {}

    def on_arrival(self, req, ctx):
        self.queue[req.id] = req

    def decide(self, ctx):
        if not self.queue or not ctx.has_slot():
            return None
        best = min(self.queue.values(), key=lambda r: (ctx.positioning_ns(r), r.id))
        return self.queue.pop(best.id).id  # an id works as well as the request


def same_records(a, b):
    ca, cb = a.columns(), b.columns()
    assert ca.keys() == cb.keys()
    for name in ca:
        # predicted_ms is NaN where no estimate was made; NaN == NaN here.
        assert np.array_equal(ca[name], cb[name], equal_nan=ca[name].dtype.kind == "f"), name


def test_python_fcfs_equals_rust_fcfs():
    cfg = small(3000, interarrival_ms=14.0, read_fraction=0.6)
    rust = headway.run(cfg, scheduler="fcfs", records=True)
    py = headway.run(cfg, scheduler=Fifo(), records=True)
    same_records(rust, py)
    assert py.meta["scheduler"] == "py-fcfs"


def test_python_sptf_equals_rust_sptf():
    cfg = small(3000, interarrival_ms=12.0)
    same_records(
        headway.run(cfg, scheduler="sptf", records=True), headway.run(cfg, scheduler=PySptf(), records=True)
    )


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_python_fcfs_equals_rust_fcfs_for_any_seed(seed):
    cfg = small(300, seed=seed, interarrival_ms=10.0)
    same_records(
        headway.run(cfg, scheduler="fcfs", records=True), headway.run(cfg, scheduler=Fifo(), records=True)
    )


class Raises(Fifo):
    name = "grumpy"

    def __init__(self, where):
        super().__init__()
        self.where = where

    def on_arrival(self, req, ctx):
        if self.where == "on_arrival" and req.id == 5:
            raise ValueError("bad arrival")
        super().on_arrival(req, ctx)

    def on_completion(self, done, ctx):
        if self.where == "on_completion":
            raise KeyError("lost it")

    def decide(self, ctx):
        if self.where == "decide" and len(self.queue) > 0 and ctx.now_ns > 0:
            raise ValueError("boom")
        return super().decide(ctx)


@pytest.mark.parametrize(
    "where, text",
    [
        ("decide", "decide() raised ValueError: boom"),
        ("on_arrival", "on_arrival() raised ValueError: bad arrival"),
        ("on_completion", "on_completion() raised KeyError: 'lost it'"),
    ],
)
def test_a_raising_scheduler_aborts_with_plugin_error(where, text):
    with pytest.raises(headway.PluginError) as info:
        headway.run(small(100), scheduler=Raises(where))
    e = info.value
    assert isinstance(e, headway.HeadwayError)
    # The plug-in, the call, what it raised, and when (simulated time).
    assert re.fullmatch(rf"plug-in grumpy: {re.escape(text)} \(at simulated time \d+\.\d{{3}} ms\)", str(e)), str(e)
    assert isinstance(e.__cause__, (ValueError, KeyError))


def test_keyboard_interrupt_in_a_scheduler_stops_the_run_as_itself():
    class CtrlC(Fifo):
        def decide(self, ctx):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        headway.run(small(100), scheduler=CtrlC())


class Returns(Fifo):
    """Answers `decide` with whatever `answer(self, ctx)` gives, once something is queued."""

    def __init__(self, answer):
        super().__init__()
        self.answer = answer

    def decide(self, ctx):
        if not self.queue or not ctx.has_slot():
            return None
        return self.answer(self, ctx)


@pytest.mark.parametrize(
    "answer, message",
    [
        (lambda s, c: 999_999, "request id 999999, which is not pending"),
        (lambda s, c: 1.5, "decide() returned float"),
        (lambda s, c: "soon", "decide() returned str"),
        (lambda s, c: [], "empty list"),
        (lambda s, c: [s.queue[0], s.queue[0]], "twice"),
        (lambda s, c: [s.queue[0], "x"], "something other than requests"),
        (lambda s, c: ("wait", -1), "not a non-negative integer"),
    ],
)
def test_bad_decisions_are_plugin_errors(answer, message):
    with pytest.raises(headway.PluginError, match=re.escape(message)):
        headway.run(small(50), scheduler=Returns(answer))


def test_a_request_dispatched_twice_is_a_plugin_error():
    class Again(Fifo):
        def decide(self, ctx):
            if self.queue and ctx.has_slot():
                return self.queue[0]  # never removed from its own queue
            return None

    with pytest.raises(headway.PluginError, match="not pending"):
        headway.run(small(50), scheduler=Again())


def test_non_contiguous_merge_is_a_plugin_error():
    class Greedy(Fifo):
        def decide(self, ctx):
            if len(self.queue) >= 2 and ctx.has_slot():
                return self.queue[:2]
            return super().decide(ctx)

    with pytest.raises(headway.PluginError, match="cannot form one command"):
        headway.run(small(200, interarrival_ms=2.0), scheduler=Greedy())


def test_a_one_element_list_is_a_plain_dispatch():
    class Listy(Fifo):
        def decide(self, ctx):
            r = super().decide(ctx)
            return None if r is None else [r]

    cfg = small(300)
    same_records(
        headway.run(cfg, scheduler="fcfs", records=True), headway.run(cfg, scheduler=Listy(), records=True)
    )


@pytest.mark.parametrize("form", ["Wait", "tuple"])
def test_wait_holds_requests_back(form):
    hold_ns = 3_000_000

    class Lazy(Fifo):
        timers = 0

        def on_timer(self, ctx):
            self.timers += 1

        def decide(self, ctx):
            if not self.queue or not ctx.has_slot():
                return None
            ready_at = self.queue[0].arrival_ns + hold_ns
            if ctx.now_ns < ready_at:
                return headway.Wait(ready_at) if form == "Wait" else ("wait", ready_at)
            return self.queue.pop(0)

    lazy = Lazy()
    r = headway.run(small(400), scheduler=lazy, records=True)
    assert_conserved(r)
    df = r.requests
    assert (df.dispatch_ns >= df.arrival_ns + hold_ns).all()
    assert lazy.timers > 0


def test_waiting_until_now_is_an_invariant_error():
    with pytest.raises(headway.InvariantError, match="not after now"):
        headway.run(small(10), scheduler=Returns(lambda s, c: headway.Wait(c.now_ns)))


def test_a_scheduler_that_never_dispatches_is_caught():
    with pytest.raises(headway.InvariantError, match="stopped dispatching"):
        headway.run(small(10), scheduler=Returns(lambda s, c: None))


def test_dispatching_without_a_slot_is_caught():
    class Pushy(Fifo):
        def decide(self, ctx):
            return self.queue.pop(0) if self.queue else None

    with pytest.raises(headway.InvariantError, match="already has 1 of 1"):
        headway.run(small(100, interarrival_ms=1.0), scheduler=Pushy())


def test_missing_decide_is_reported_before_the_run():
    class NoDecide:
        def on_arrival(self, req, ctx):
            pass

    with pytest.raises(headway.PluginError, match="needs a `decide` method"):
        headway.run(small(10), scheduler=NoDecide())


def test_context_and_request_views():
    seen = {}

    class Probe(Fifo):
        saved_ctx = None

        def on_arrival(self, req, ctx):
            if self.saved_ctx is None:
                self.saved_ctx = ctx
                seen["req"] = req
                seen["capacity"] = ctx.capacity_sectors()
                seen["cylinders"] = ctx.cylinders()
                seen["first_cyl"] = ctx.cylinder_of(0)
                seen["last_cyl"] = ctx.cylinder_of(ctx.capacity_sectors() - 1)
                seen["head"] = ctx.head_cylinder()
                seen["estimate"] = ctx.estimate(req)
                seen["positioning"] = ctx.positioning_ns(req)
                seen["outstanding"] = ctx.outstanding()
                seen["devices"] = ctx.devices
                with pytest.raises(IndexError, match="device 1 does not exist"):
                    ctx.outstanding(1)
                with pytest.raises(IndexError, match="beyond device 0"):
                    ctx.cylinder_of(10**12)
            super().on_arrival(req, ctx)

        def on_completion(self, done, ctx):
            seen.setdefault("done", done)

        def decide(self, ctx):
            if ctx is not self.saved_ctx and "stale" not in seen:
                try:
                    self.saved_ctx.now_ns
                except RuntimeError as e:
                    seen["stale"] = str(e)
            return super().decide(ctx)

    probe = Probe()
    headway.run(small(20), scheduler=probe)
    assert seen["capacity"] == 2627 * 21 * 99 and seen["cylinders"] == 2627
    assert (seen["first_cyl"], seen["last_cyl"]) == (0, 2626)
    assert seen["head"] == 0 and seen["outstanding"] == 0 and seen["devices"] == 1
    est = seen["estimate"]
    assert est.positioning_ns == est.overhead_ns + est.seek_ns + est.rotate_ns == seen["positioning"]
    assert est.service_ns == est.positioning_ns + est.transfer_ns > 0
    assert "only be used during" in seen["stale"]
    with pytest.raises(RuntimeError):
        probe.saved_ctx.head_cylinder()
    assert "expired" in repr(probe.saved_ctx)

    req = seen["req"]
    assert (req.id, req.op, req.is_read, req.sectors, req.device) == (0, "read", True, 8, 0)
    assert req.lbn % 8 == 0 and req.end_lbn == req.lbn + 8
    assert req.deadline_ns is None and req.class_ == req.cls == 0
    assert not req.background and req.process == 0
    assert "Request(id=0" in repr(req) and hash(req) == 0 and req == req
    with pytest.raises(AttributeError):
        req.lbn = 5

    done = seen["done"]
    assert [r.id for r in done.requests] == [0]
    assert done.done_ns >= done.start_ns >= done.dispatch_ns >= req.arrival_ns
    assert done.seek_ns + done.rotate_ns + done.transfer_ns <= done.done_ns - done.start_ns
    assert done.op == "read" and not done.cache_hit and done.sectors == 8
