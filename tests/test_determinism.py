"""Same config and seed: byte-identical results; another seed: another run."""

from __future__ import annotations

import numpy as np

import headway
from headway.testing import assert_deterministic
from conftest import small


def test_same_seed_same_summary_and_records():
    assert_deterministic(small(3000, scheduler="sptf", read_fraction=0.5), seed=11)
    assert_deterministic(None, seed=3)  # the built-in default


def test_different_seed_different_run():
    a = headway.run(small(1000), seed=1, records=True)
    b = headway.run(small(1000), seed=2, records=True)
    assert a.to_json() != b.to_json()
    assert not np.array_equal(a.columns()["lbn"], b.columns()["lbn"])


def test_cli_runs_are_byte_identical(cli, tmp_path):
    for name in ("a.json", "b.json"):
        assert cli("run", "--seed", "4", "--quiet", "--json", tmp_path / name).returncode == 0
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
