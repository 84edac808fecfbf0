"""Errors cross into Python as exception classes with the core's message intact."""

from __future__ import annotations

import pytest

import headway
from conftest import small


def test_hierarchy():
    for cls in (
        headway.ConfigError,
        headway.DriveParamsError,
        headway.TraceError,
        headway.UnknownNameError,
        headway.PluginError,
        headway.InvariantError,
    ):
        assert issubclass(cls, headway.HeadwayError) and issubclass(cls, Exception)
    assert issubclass(headway.UnknownNameError, LookupError)
    assert headway.errors.HeadwayError is headway.HeadwayError


def test_unknown_names_list_the_known_ones():
    with pytest.raises(headway.UnknownNameError) as info:
        headway.run({"drive": {"name": "nosuch"}})
    assert str(info.value) == "unknown drive `nosuch`; known: " + ", ".join(headway.disks().name)
    with pytest.raises(LookupError, match="unknown scheduler `zzz`; known: fcfs, sstf"):
        headway.run(small(10), scheduler="zzz")
    with pytest.raises(headway.UnknownNameError, match="unknown predictor `psychic`; known: oracle"):
        headway.run({"drive": {"name": "elite3"}, "host": {"predictor": "psychic"}})


def test_config_errors_name_file_line_and_key(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('seed = 1\n[drive]\nnmae = "elite3"\n')
    with pytest.raises(headway.ConfigError) as info:
        headway.run(bad)
    assert str(info.value).startswith(f"{bad}:3: key `nmae`: unknown field `nmae`")


def test_config_errors_without_a_file_say_config():
    with pytest.raises(headway.ConfigError, match=r"^config line 2: key `colour`"):
        headway.run('seed = 1\ncolour = "blue"\n')
    with pytest.raises(headway.ConfigError, match=r"key `drive.queue_depth`: must be at least 1"):
        headway.run({"drive": {"name": "elite3", "queue_depth": 0}})


def test_missing_files_are_os_errors(tmp_path):
    missing = tmp_path / "nope.toml"
    with pytest.raises(FileNotFoundError) as info:
        headway.run(missing)
    assert str(info.value).startswith(f"{missing}: ")
    with pytest.raises(FileNotFoundError, match="nodrive.toml"):
        headway.run({"drive": {"name": str(tmp_path / "nodrive.toml")}})


def test_broken_drive_file_is_a_drive_params_error(tmp_path):
    drive = tmp_path / "broken.toml"
    drive.write_text('name = "broken"\nrpm = "fast"\n')
    with pytest.raises(headway.DriveParamsError, match=rf"^{drive}:2: "):
        headway.run({"drive": {"name": str(drive)}})


def test_keyed_errors_keep_their_kind(tmp_path):
    # Placed at the key that names them, an unknown name and a missing file are still the
    # exceptions they were.
    cfg = tmp_path / "exp.toml"
    cfg.write_text('[drive]\nname = "nosuch"\n')
    with pytest.raises(headway.UnknownNameError, match=r"exp.toml:2: key `drive.name`: unknown drive `nosuch`"):
        headway.run(cfg)
    cfg.write_text('[drive]\nname = "elite3"\n[workload]\nkind = "trace"\npath = "gone.trace"\n')
    with pytest.raises(FileNotFoundError, match=r"exp.toml:5: key `workload.path`: .*gone.trace"):
        headway.run(cfg)
