"""Start-up stays light: `import headway` and the CLI load no numpy, pandas, pyarrow,
matplotlib or rich until a command needs them (headway --help in well under 150 ms)."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest

HEAVY = ("numpy", "pandas", "pyarrow", "matplotlib", "rich", "scipy", "dask")


def loaded_after(code: str) -> set:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys\nprint(' '.join(sorted(sys.modules)))"],
        capture_output=True, text=True, check=True,
    )
    return set(out.stdout.split())


@pytest.mark.parametrize(
    "code",
    [
        "import headway",
        "import headway.cli",
        # What `headway --help` and a summary-only run do.
        "from headway.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass",
        "import headway\nheadway.run({'drive': {'name': 'elite3'}, 'workload': {'requests': 10}}).summary.requests",
    ],
)
def test_nothing_heavy_is_imported_until_needed(code):
    heavy = {m.split(".")[0] for m in loaded_after(code)} & set(HEAVY)
    assert not heavy, f"{code!r} imported {sorted(heavy)}"


def test_tables_still_come_when_asked_for():
    mods = loaded_after("import headway\nheadway.disks()")
    assert "pandas" in mods


def test_every_command_in_the_lazy_table_is_that_command():
    from headway.cli import COMMANDS, main

    ctx = click.Context(main)
    for name in COMMANDS:
        cmd = main.get_command(ctx, name)
        assert isinstance(cmd, click.Command) and cmd.name == name
    assert main.get_command(ctx, "nosuch") is None


def test_lazy_names_resolve_and_unknown_names_do_not():
    import headway

    for name in headway.__all__:
        assert getattr(headway, name) is not None
    assert headway.__version__ == headway.version()
    with pytest.raises(AttributeError, match="no attribute 'nosuch'"):
        headway.nosuch  # noqa: B018


def run_script(argv: list, before: str = "") -> subprocess.CompletedProcess:
    code = f"import sys\n{before}\nsys.argv = {['headway', *argv]!r}\nfrom headway.cli import script\nscript()"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


def test_the_quick_exit_keeps_status_output_and_exit_handlers():
    # The command's own status and output, and exit handlers run after the output.
    ok = run_script(["schedulers"], "import atexit\natexit.register(lambda: print('exit handler ran'))")
    assert ok.returncode == 0
    assert ok.stdout.startswith("fcfs ") and ok.stdout.endswith("exit handler ran\n")
    bad = run_script(["replay", "no-such.trace"])
    assert bad.returncode == 1 and bad.stderr.startswith("error: no-such.trace")
    usage = run_script(["replay", "x.trace", "--queue-depth", "0"])
    assert usage.returncode == 2 and "--queue-depth" in usage.stderr


def test_a_command_that_leaves_threads_running_exits_the_usual_way():
    # The interpreter's own exit waits for them; a quick exit would cut them off. The thread
    # waits for the main thread to finish (not for a fixed time, which a loaded machine can
    # outlast before the command has printed anything), so it is always running at exit.
    before = (
        "import threading\n"
        "main = threading.main_thread()\n"
        "threading.Thread(target=lambda: (main.join(), print('thread finished'))).start()"
    )
    r = run_script(["schedulers"], before)
    assert r.returncode == 0 and r.stdout.endswith("thread finished\n")


def test_the_command_leaves_its_start_out_of_later_collections():
    # The installed command (pyproject's [project.scripts]) freezes what its start loaded,
    # click and the command's module included (headway._gc).
    probe = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print(gc.get_freeze_count(), gc.isenabled(), 'click' in sys.modules))\n"
        "sys.argv = ['headway', 'schedulers']\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", probe + "from headway._script import script\nscript()"],
        capture_output=True, text=True,
    )
    assert r.returncode == 0, r.stderr
    frozen, enabled, click_loaded = r.stdout.splitlines()[-1].split()
    assert int(frozen) > 10_000 and enabled == "True" and click_loaded == "True"
    # The same command run inside a program's own process freezes nothing of that program.
    inside = subprocess.run(
        [sys.executable, "-c", "import gc\nfrom headway.cli import main\ntry:\n    main(['schedulers'])\n"
         "except SystemExit:\n    pass\nprint(gc.get_freeze_count(), gc.isenabled())"],
        capture_output=True, text=True, check=True,
    )
    assert inside.stdout.splitlines()[-1].split() == ["0", "True"]


def test_the_collector_is_left_as_it_was_found():
    import gc

    from headway import _gc

    collections = []

    def count(phase, info):
        if phase == "start":
            collections.append(info["generation"])

    gc.callbacks.append(count)
    try:
        with _gc.paused():
            assert not gc.isenabled()
            garbage = [[] for _ in range(10_000)]
            for a, b in zip(garbage, garbage[1:]):
                a.append(b)
            during = len(collections)
        assert during == 0 and gc.isenabled()
        gc.disable()
        try:
            with _gc.paused():
                pass
            assert not gc.isenabled()
        finally:
            gc.enable()
    finally:
        gc.callbacks.remove(count)
    assert gc.get_freeze_count() == 0  # not the command's process: nothing frozen
