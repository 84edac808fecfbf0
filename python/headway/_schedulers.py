"""One line on each built-in scheduler, for ``headway schedulers``.

The names come from the Rust core (``_headway.schedulers()``); a scheduler added there needs
a row here (``tests/test_cli.py`` fails until it has one). Options are set under
``[host.options]``.
"""

from __future__ import annotations

from typing import Dict

DESCRIPTIONS: Dict[str, str] = {
    "fcfs": "first come, first served: arrival order",
    "sstf": "shortest seek first, by cylinder distance from the last request sent",
    "scan": "elevator sweeping to the disk's edge before reversing",
    "look": "elevator reversing at the last request ahead",
    "cscan": "upward sweeps to the last cylinder, return without serving",
    "clook": "upward sweeps, jump back to the lowest pending cylinder",
    "vscan": "V(R): SSTF biased towards the sweep direction (option r, default 0.2)",
    "fscan": "LOOK over frozen batches; arrivals wait for the next batch",
    "sstf-lbn": "SSTF by logical block number (no disk model, as Linux)",
    "look-lbn": "LOOK by logical block number",
    "clook-lbn": "C-LOOK by logical block number",
    "sptf": "shortest positioning time first (seek + rotation), from the predictor",
    "stf": "the rotational paper's STF: SPTF by name (option objective)",
    "satf": "shortest access time first: positioning plus transfer",
    "gstf": "grouped STF: STF within cylinder groups visited in SCAN order",
    "wstf": "weighted STF: aged by the time left to max_response_ms",
    "aged-sptf": "SPTF minus age x age_weight, so old requests win",
    "sptf-sw": "SPTF with a seek window: least seek within n% of the best",
}


def description(name: str) -> str:
    """The line for ``name``; empty when it has none (a test keeps that from shipping)."""
    return DESCRIPTIONS.get(name, "")
