"""``python -m headway`` is the ``headway`` command."""

from headway.cli import script

script()
