"""Where the project's reference data (drives, traces, papers; never shipped with headway)
is: ``$HEADWAY_SHARED``, else a ``shared`` folder beside the clone or beside any folder
above it (a clone or worktree nested under the folder that holds ``shared``), found from
the package's own files, so the answer does not depend on the working directory."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional


def shared_folder() -> Optional[Path]:
    """The reference data folder (it holds ``reference/``), or ``None`` when there is none."""
    named = os.environ.get("HEADWAY_SHARED")
    if named:
        return Path(named)
    for above in Path(__file__).resolve().parents:
        candidate = above / "shared"
        if (candidate / "reference").is_dir():
            return candidate
    return None
