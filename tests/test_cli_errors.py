"""Bad input through the CLI: one line `error: <message>` naming the file, line and key;
exit code 1 (2 for usage errors); never a traceback."""

from __future__ import annotations

import signal
import subprocess
import time


from conftest import _headway_command


def fails_cleanly(out, code=1):
    """The one `error:` line of a failed command (usage errors included), after checking the
    exit code and that nothing else was printed."""
    assert out.returncode == code, (out.returncode, out.stdout, out.stderr)
    assert "Traceback" not in out.stderr and "Traceback" not in out.stdout
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), out.stderr
    return lines[0]


def write(path, text):
    path.write_text(text)
    return path


def test_unknown_drive(cli, tmp_path):
    cfg = write(tmp_path / "exp.toml", 'seed = 1\n[drive]\nname = "nosuch"\n')
    msg = fails_cleanly(cli("run", cfg))
    assert msg.startswith(f"error: {cfg}:3: key `drive.name`: unknown drive `nosuch`; known: ")
    assert "elite3" in msg


def test_unknown_scheduler(cli, tmp_path):
    cfg = write(tmp_path / "exp.toml", '[drive]\nname = "elite3"\n[host]\nscheduler = "elevator"\n')
    msg = fails_cleanly(cli("run", cfg))
    assert msg.startswith(f"error: {cfg}:4: key `host.scheduler`: unknown scheduler `elevator`; known: ")
    assert "sptf" in msg
    cfg = write(tmp_path / "inner.toml", '[drive]\nname = "elite3"\n[host]\nscheduler = "idle-scan"\n'
                '[host.inner]\nscheduler = "sptff"\n')
    msg = fails_cleanly(cli("run", cfg))
    assert msg.startswith(f"error: {cfg}:6: key `host.inner.scheduler`: unknown scheduler `sptff`"), msg


def test_unknown_predictor(cli, tmp_path):
    cfg = write(tmp_path / "exp.toml", '[drive]\nname = "elite3"\n[host]\nscheduler = "sptf"\npredictor = "orcle"\n')
    msg = fails_cleanly(cli("run", cfg))
    assert msg.startswith(f"error: {cfg}:5: key `host.predictor`: unknown predictor `orcle`; known: oracle"), msg


def test_a_missing_trace_names_the_experiment_file_line_and_key(cli, tmp_path):
    cfg = write(tmp_path / "exp.toml", '[drive]\nname = "elite3"\n[workload]\nkind = "trace"\npath = "nothere.trace"\n')
    msg = fails_cleanly(cli("run", cfg))
    assert msg == f"error: {cfg}:5: key `workload.path`: {tmp_path / 'nothere.trace'}: No such file or directory"


def test_a_negative_count_says_what_is_wrong_in_words(cli, tmp_path):
    cfg = write(tmp_path / "exp.toml", '[drive]\nname = "elite3"\n[workload]\nrequests = -5\n')
    msg = fails_cleanly(cli("run", cfg))
    assert msg.startswith(f"error: {cfg}:4: key `workload.requests`: ")
    assert "-5" in msg and "expected a whole number, 0 or more" in msg and "u64" not in msg


def test_usage_errors_are_one_error_line_too(cli):
    msg = fails_cleanly(cli("replay", "x.trace", "--queue-depth", "-4"), code=2)
    assert msg == "error: invalid value for '--queue-depth': -4 is not in the range x>=1 (see `headway replay --help`)"
    assert fails_cleanly(cli("frobnicate"), code=2).startswith("error: no such command 'frobnicate'")
    assert fails_cleanly(cli("--bogus"), code=2).startswith("error: no such option '--bogus'")


def test_wrong_key_names_file_line_and_key(cli, tmp_path):
    cfg = write(tmp_path / "exp.toml", 'seed = 1\n\n[drive]\nname = "elite3"\nqueue_dept = 4\n')
    msg = fails_cleanly(cli("run", cfg))
    assert f"{cfg}:5: key `queue_dept`" in msg and "queue_depth" in msg


def test_wrong_type_names_file_and_line(cli, tmp_path):
    cfg = write(tmp_path / "exp.toml", '[drive]\nname = "elite3"\nqueue_depth = "deep"\n')
    msg = fails_cleanly(cli("run", cfg))
    assert f"{cfg}:3: " in msg and '"deep"' in msg


def test_impossible_value_names_the_key(cli, tmp_path):
    cfg = write(tmp_path / "exp.toml", '[drive]\nname = "elite3"\nqueue_depth = 0\n')
    msg = fails_cleanly(cli("run", cfg))
    assert f"{cfg}:3: key `drive.queue_depth`: must be at least 1" in msg


def test_negative_interarrival_names_file_line_and_key(cli, tmp_path):
    # Checked after parsing (serde cannot express the range), yet located like a parse error.
    cfg = write(tmp_path / "exp.toml", 'seed = 1\n[drive]\nname = "elite3"\n\n[workload]\n'
                'kind = "open"\ninterarrival_ms = -5.0  # oops\n')
    msg = fails_cleanly(cli("run", cfg))
    assert f"{cfg}:7: key `workload.interarrival_ms`: must be a positive number" in msg, msg


def test_malformed_toml(cli, tmp_path):
    cfg = write(tmp_path / "exp.toml", 'seed = 1\n[drive\nname = "elite3"\n')
    msg = fails_cleanly(cli("run", cfg))
    assert f"{cfg}:2: " in msg


def test_missing_config_file(cli, tmp_path):
    msg = fails_cleanly(cli("run", tmp_path / "absent.toml"))
    assert f"{tmp_path / 'absent.toml'}" in msg and "No such file" in msg


def test_malformed_drive_parameter_file(cli, tmp_path):
    write(tmp_path / "mydrive.toml", 'name = "mine"\nrpm = "fast"\n')
    cfg = write(tmp_path / "exp.toml", '[drive]\nname = "mydrive.toml"\n')
    msg = fails_cleanly(cli("run", cfg))
    assert f"{tmp_path / 'mydrive.toml'}:2: " in msg and '"fast"' in msg


def test_unreadable_drive_parameter_file(cli, tmp_path):
    (tmp_path / "adir.toml").mkdir()  # exists, cannot be read as a file (even by root)
    cfg = write(tmp_path / "exp.toml", '[drive]\nname = "adir.toml"\n')
    msg = fails_cleanly(cli("run", cfg))
    assert f"{tmp_path / 'adir.toml'}" in msg


def test_missing_drive_parameter_file(cli, tmp_path):
    cfg = write(tmp_path / "exp.toml", '[drive]\nname = "drives/gone.toml"\n')
    msg = fails_cleanly(cli("run", cfg))
    assert f"{tmp_path / 'drives' / 'gone.toml'}" in msg


def test_usage_errors_exit_2(cli):
    fails_cleanly(cli("run", "--records", "out.txt"), code=2)
    fails_cleanly(cli("run", "--seed", "many"), code=2)
    fails_cleanly(cli("frobnicate"), code=2)


def test_ctrl_c_stops_a_long_run_cleanly(tmp_path):
    cfg = write(
        tmp_path / "long.toml",
        '[drive]\nname = "elite3"\n[host]\nscheduler = "sptf"\n'
        "[workload]\nrequests = 500000000\ninterarrival_ms = 20.0\n",
    )
    proc = subprocess.Popen(
        [*_headway_command(), "run", str(cfg), "--no-progress"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
        # Ctrl-C's default action, as in a terminal: a suite run as a background job
        # (`... &`) inherits SIGINT ignored, and the child would never see it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(2.0)
    assert proc.poll() is None, "the run should still be going"
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert time.monotonic() - t0 < 5.0
    assert proc.returncode == 130 and err.strip() == "interrupted" and "Traceback" not in err
