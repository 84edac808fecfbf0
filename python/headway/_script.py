"""The installed ``headway`` command and ``python -m headway``.

A module of its own so that the process is known to be the command's before click and the
command's modules load (:func:`headway._gc.command_process`); ``headway.cli`` is also
imported by programs and tests that run the command inside their own process."""

from headway import _gc


def script() -> None:
    _gc.command_process()
    from headway.cli import script as run_command

    run_command()
