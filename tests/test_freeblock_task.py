"""A freeblock background task written in Python: it receives each block as its free read
completes, exactly once, only blocks it wants, and can add and drop wanted blocks."""

import pytest

import headway

REGION = (0, 8_000_000)
HOST_ORIGIN_BASE = 0x8000  # origins of host-made requests start here (request.rs)


def config(requests=1000, **options):
    opts = {"c_fb_ms": 0.2, "start_lbn": REGION[0], "sectors": REGION[1], **options}
    return {
        "seed": 5,
        "drive": {"name": "atlas10k", "queue_depth": 2},
        "host": {"scheduler": "freeblock", "max_outstanding": 2, "options": opts,
                 "inner": {"scheduler": "sptf"}},
        "workload": {"kind": "closed", "processes": 10, "think_ms": 30.0, "requests": requests,
                     "read_fraction": 1.0, "align_sectors": 8,
                     "size": {"kind": "exponential", "mean_sectors": 12.0}},
    }


class Recorder:
    def __init__(self):
        self.blocks = []
        self.times_ms = []

    def delivered(self, lbn, sectors, now_ms):
        self.blocks.append((lbn, sectors))
        self.times_ms.append(now_ms)
        return None


def host_reads(result):
    df = result.requests
    host = df[df["origin"] >= HOST_ORIGIN_BASE]
    return sorted(zip(host["lbn"].tolist(), host["sectors"].tolist()))


def test_every_free_read_is_delivered_once_in_completion_order():
    task = Recorder()
    r = headway.run(config(), records=True, background_task=task)
    assert r.summary.requests == 1000
    assert len(task.blocks) > 50
    # Completion order, and each wanted sector once, inside the region.
    assert task.times_ms == sorted(task.times_ms)
    blocks = sorted(task.blocks)
    for (a, n), (b, _) in zip(blocks, blocks[1:]):
        assert a + n <= b
    assert all(REGION[0] <= a and a + n <= REGION[0] + REGION[1] for a, n in blocks)
    # Every host-made read the run recorded was delivered (and nothing else).
    assert blocks == host_reads(r)
    # Without the object the run is the same run.
    plain = headway.run(config(), records=True)
    assert host_reads(plain) == blocks


def test_a_task_can_drop_and_add_wanted_blocks():
    moved_to = 10_000_000

    class Mover(Recorder):
        def delivered(self, lbn, sectors, now_ms):
            super().delivered(lbn, sectors, now_ms)
            if len(self.blocks) == 1:
                # Give up the region and want another one instead.
                return [("drop", *REGION), ("want", moved_to, 4_000_000)]
            return None

    task = Mover()
    headway.run(config(), background_task=task)
    later = task.blocks[1:]
    assert len(later) > 20
    # Reads already in flight when the change came may still land in the old region.
    in_new = [b for b in later if moved_to <= b[0] < moved_to + 4_000_000]
    in_old = [b for b in later if REGION[0] <= b[0] < REGION[0] + REGION[1]]
    assert len(in_old) <= 2 and len(in_new) >= len(later) - 2


def test_bad_replies_and_setups_are_clear_errors():
    class Bad:
        def delivered(self, lbn, sectors, now_ms):
            return [("keep", lbn, sectors)]

    with pytest.raises(headway.ConfigError, match="background_task.delivered"):
        headway.run(config(1000), background_task=Bad())

    class Outside:
        def delivered(self, lbn, sectors, now_ms):
            return [("want", 10**15, 8)]

    with pytest.raises(headway.ConfigError, match="not inside the device"):
        headway.run(config(1000), background_task=Outside())

    cfg = config(1000)
    cfg["host"] = {"scheduler": "sptf"}
    with pytest.raises(headway.ConfigError, match="host.scheduler"):
        headway.run(cfg, background_task=Recorder())
