"""A reproduction's headline rows: each of the paper's claims with headway's figure beside
the paper's, and whether headway reproduces it. A row that does not (or only partly) names
the section of the docs that explains the difference. Every paper builds its rows the same
way (``claims(headline)`` in its module), so the terminal table and ``headline.json`` agree."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Dict, Optional, Tuple

# Verdicts: the paper's figure (within its stated tolerance or bound), the same direction
# with a different size, a different outcome; "-" where the paper gives nothing to compare.
YES, PARTLY, NO, NOTHING = "yes", "partly", "no", "-"

Range = Tuple[float, float]
INF = float("inf")


@dataclass(frozen=True)
class Claim:
    claim: str  # what is compared, with its unit and what a positive sign means
    headway: str  # headway's figure, with its unit and sign
    paper: str  # the paper's figure as it states it ("" when it gives none)
    verdict: str  # YES, PARTLY, NO or NOTHING
    why: str = ""  # docs page and section explaining a difference: "docs/cello.md#anchor"

    def as_dict(self) -> Dict[str, Any]:
        return asdict(self)


def claim(label: str, headway: str, paper: str, value: Optional[float], yes: Optional[Range] = None,
          partly: Optional[Range] = None, why: str = "") -> Claim:
    """A row whose verdict is YES when ``value`` lies in ``yes`` (inclusive), PARTLY when it
    lies in ``partly``, NO otherwise; NOTHING without ``yes`` (no figure to compare) or
    without a value. ``why`` is kept only for a row that is not YES."""
    if yes is None or value is None or value != value:
        verdict = NOTHING
    elif yes[0] <= value <= yes[1]:
        verdict = YES
    elif partly is not None and partly[0] <= value <= partly[1]:
        verdict = PARTLY
    else:
        verdict = NO
    return Claim(label, headway, paper, verdict, why if verdict in (PARTLY, NO) else "")


def holds(label: str, headway: str, paper: str, ok: bool, why: str = "") -> Claim:
    """A row for a claim that either holds or does not (an ordering, a sign)."""
    return Claim(label, headway, paper, YES if ok else NO, "" if ok else why)
