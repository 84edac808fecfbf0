"""The Python-facing entry points fuzzed with hypothesis: whatever a caller hands
`headway.run`, `headway.traces.read/stats/detect` or a csv mapping, the answer is a result or
a `headway.HeadwayError`, never another
exception, a Rust panic (pyo3's PanicException is not an Exception, so it fails these
tests) or a hang. Runs are kept small (request counts and simulated time capped), and the
example counts are bounded so the file runs in well under a minute; the coverage-guided
fuzzing of the same parsers is in fuzz/ (docs/reliability.md)."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import fuzz_scalars, fuzz_settings

import headway
import headway.traces

EXAMPLES = fuzz_settings(max_examples=60)

scalars = fuzz_scalars(
    ["elite3", "atlas10k", "sptf", "fcfs", "oracle", "trace", "closed", "open", "bursty", "x.toml"],
    max_text=12,
)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3), max_leaves=6)

KEYS = {
    "drive": ["name", "queue_depth", "firmware_scheduler", "imperfections", "bogus"],
    "host": ["scheduler", "predictor", "max_outstanding", "options", "decision_ns_per_estimate"],
    "workload": [
        "kind", "requests", "interarrival_ms", "rate_iops", "arrival", "processes", "think_ms",
        "read_fraction", "size_sectors", "on_rate_iops", "off_rate_iops", "on_mean_ms",
        "off_mean_ms", "locality", "size",
    ],
    "link": ["command_ns", "completion_ns", "bogus"],
    "output": ["records", "predictions", "max_time_s"],
}


@st.composite
def configs(draw):
    cfg = {}
    if draw(st.booleans()):
        cfg["seed"] = draw(values)
    for table, keys in KEYS.items():
        if draw(st.booleans()):
            chosen = draw(st.lists(st.sampled_from(keys), unique=True, max_size=4))
            cfg[table] = {k: draw(values) for k in chosen}
    # Keep a run small whatever else the example says.
    wl = cfg.setdefault("workload", {})
    wl["requests"] = draw(st.integers(min_value=0, max_value=200))
    cfg.setdefault("output", {})["max_time_s"] = 30.0
    cfg.setdefault("host", {})["predictor"] = "oracle"
    return cfg


def settles(call):
    """Run `call`; a HeadwayError is a clean answer, anything else propagates and fails."""
    try:
        return call()
    except headway.HeadwayError as e:
        text = str(e)
        assert text and "\n" not in text.strip() and "panicked" not in text, text
        return None


@EXAMPLES
@given(configs())
def test_run_on_any_config_dict_answers_cleanly(cfg):
    result = settles(lambda: headway.run(cfg))
    if result is not None:
        # Never more completed than asked for (conservation proper, every arrival completed
        # exactly once, is asserted by the Rust `whole_run` fuzz target, which sees arrivals).
        assert 0 <= result.summary.requests <= cfg["workload"]["requests"]


@EXAMPLES
@given(st.text(max_size=400))
def test_run_on_any_toml_text_answers_cleanly(text):
    # A string is TOML text; keep it from naming a long run.
    settles(lambda: headway.run(text + "\n[output]\nmax_time_s = 5.0\n"))


trace_lines = st.lists(
    st.tuples(
        st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 10**12)),
        st.integers(-1, 3),
        st.one_of(st.integers(-10, 2**40), st.text(max_size=3)),
        st.one_of(st.integers(-10, 2**33), st.floats(allow_nan=True)),
        st.sampled_from(["0", "1", "R", "W", "x", ""]),
    ),
    max_size=20,
).map(lambda rows: "".join(" ".join(map(str, r)) + "\n" for r in rows).encode())

trace_bytes = st.one_of(st.binary(max_size=600), trace_lines)
formats = st.sampled_from(
    [None, "disksim-ascii", "disksim-validate", "spc", "msr", "fiu", "blkparse", "hp-srt", "csv"]
)


def trace_file(data: bytes) -> Path:
    d = Path(tempfile.mkdtemp(prefix="headway-fuzz-"))
    p = d / "t.trace"
    p.write_bytes(data)
    return p


@EXAMPLES
@given(trace_bytes, formats, st.booleans())
def test_trace_reading_answers_cleanly(data, fmt, skip_bad):
    path = trace_file(data)
    frames = settles(lambda: list(headway.traces.read(path, fmt, skip_bad=skip_bad, batch_size=7)))
    for f in frames or []:
        assert (f.sectors >= 1).all()
        assert f.time_ns.is_monotonic_increasing
    settles(lambda: headway.traces.stats(path, fmt, skip_bad=skip_bad))
    settles(lambda: headway.traces.detect(path))


@EXAMPLES
@given(
    st.dictionaries(
        st.sampled_from(["time", "device", "address", "size", "op", "process", "delimiter", "header",
                         "time_unit", "address_unit", "size_unit", "read_values", "write_values", "bogus"]),
        st.one_of(st.integers(-2, 40), st.text(max_size=6), st.booleans(), st.lists(st.text(max_size=3), max_size=3)),
        max_size=8,
    ),
    trace_lines,
)
def test_csv_mappings_answer_cleanly(mapping, data):
    path = trace_file(data.replace(b" ", b","))
    settles(lambda: list(headway.traces.read(path, "csv", csv=mapping)))


def test_a_delimiter_that_is_not_a_string_is_a_trace_error(tmp_path):
    """Found by test_csv_mappings_answer_cleanly: `csv={"delimiter": []}` raised TypeError
    (unhashable list) inside csv_map instead of reaching the parser's keyed error."""
    path = tmp_path / "t.csv"
    path.write_text("0,0,8,8,R\n")
    with pytest.raises(headway.HeadwayError, match="delimiter"):
        list(headway.traces.read(path, "csv", csv={"delimiter": [], "time": 0, "address": 2, "size": 3, "op": 4}))


def test_the_strategies_reach_successful_runs():
    """The run fuzzing is only worth something if some examples run: a fixed one from the
    same strategy space does."""
    r = headway.run({"drive": {"name": "elite3"}, "workload": {"requests": 50}, "output": {"max_time_s": 30.0}})
    assert r.summary.requests == 50 and not math.isnan(r.summary.mean_response_ms)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -1.0, 0.0])
def test_a_max_time_that_is_not_a_positive_number_is_a_config_error(bad):
    with pytest.raises(headway.ConfigError, match="max_time_s"):
        headway.run({"drive": {"name": "elite3"}, "output": {"max_time_s": bad}})
