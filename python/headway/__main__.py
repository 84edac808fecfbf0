"""``python -m headway`` is the ``headway`` command."""

from headway._script import script

script()
