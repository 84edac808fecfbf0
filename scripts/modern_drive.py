#!/usr/bin/env python3
"""Write a datasheet drive's catalog TOML from its datasheet figures.

    python3 scripts/modern_drive.py > crates/headway/catalog/ultrastar_hc310.toml
    python3 scripts/modern_drive.py --actuators 2 > crates/headway/catalog/exos_2x14.toml
    python3 scripts/modern_drive.py --drive deskstar_60gxp > crates/headway/catalog/deskstar_60gxp.toml
    python3 scripts/modern_drive.py --drive cheetah_x15 > crates/headway/catalog/cheetah_x15.toml

The zone table follows from the sustained transfer rates: with constant linear density a
track holds sectors in proportion to its radius, and radius falls linearly with the
cylinder number, so sectors per track fall linearly from the outer zone's to the inner
zone's. Each zone's sectors per track is what makes a cylinder-long sequential read (every
surface, its head switches and the cylinder switch) move the zone's sustained rate. The
seek curve a + b*sqrt(d) + c*d is fitted exactly to the single-track seek, the full
stroke and the datasheet's average (the weighted average over every seek length,
weights (cylinders - d), as drive specifications define it). docs/catalog.md gives the
source of every input below.
"""
from __future__ import annotations

import argparse
import math

SECTOR_BYTES = 512


def zone_sectors_per_track(od_mb_s, id_mb_s, zones, surfaces, period_ms, head_switch_ms,
                           cylinder_switch_ms):
    """Sectors per track of each zone, outer first, for the given sustained rates."""
    # One cylinder read end to end: every surface's revolution, (surfaces - 1) head
    # switches and one cylinder switch, each skew being exactly its switch time.
    cylinder_ms = surfaces * period_ms + (surfaces - 1) * head_switch_ms + cylinder_switch_ms
    out = []
    for z in range(zones):
        rate_mb_s = od_mb_s + (id_mb_s - od_mb_s) * z / (zones - 1)
        out.append(round(rate_mb_s * 1e3 * cylinder_ms / (surfaces * SECTOR_BYTES)))
    return out


def fit_seek(cylinders, single_ms, average_ms, full_ms):
    """(a, b, c) with t(1) = single, t(cylinders - 1) = full and the weighted average."""
    n = cylinders
    w_sum = sw = sq = sl = 0.0
    for d in range(1, n):
        w = n - d
        w_sum += w
        sw += w
        sq += w * math.sqrt(d)
        sl += w * d
    rows = [
        (1.0, 1.0, 1.0, single_ms),
        (1.0, math.sqrt(n - 1), n - 1.0, full_ms),
        (sw / w_sum, sq / w_sum, sl / w_sum, average_ms),
    ]
    # Gaussian elimination on the 3x3 system.
    m = [list(r) for r in rows]
    for i in range(3):
        p = max(range(i, 3), key=lambda r: abs(m[r][i]))
        m[i], m[p] = m[p], m[i]
        for r in range(3):
            if r != i:
                f = m[r][i] / m[i][i]
                m[r] = [x - f * y for x, y in zip(m[r], m[i])]
    return tuple(m[i][3] / m[i][i] for i in range(3))


# Each drive's datasheet figures; docs/catalog.md gives the source of every one.
DRIVES = {
    "ultrastar_hc310": dict(
        title=("WD Ultrastar DC HC310 class: 7200 RPM, 6 TB, 8 surfaces, 300 zones, "
               "256 MB cache, SATA 6 Gb/s"),
        rpm=7200.0, surfaces=8, zones=300, od_mb_s=255.0, id_mb_s=125.0,
        head_switch_ms=0.30, cylinder_switch_ms=0.35, seek_ms=(0.23, 7.4, 14.0),
        write_settle_ms=0.8, idema_gb=6000, block_count=None, actuators=1,
        miss_ms=0.1, hit_ms=0.05,
        bus=("the sata6g interface profile: 512 bytes at 600 MB/s", 600e3),
        cache=("256 MiB: 16 segments of 16 MiB (32768 sectors)", 16, 32768, 4, 2048),
        queue=("NCQ: 32 commands, shortest positioning time first", 32, 8),
    ),
    "exos_2x14": dict(
        title=("Seagate Exos 2X14 MACH.2 stand-in: 7200 RPM, 14 TB, two actuators over the LBA "
               "halves (8 surfaces each), 300 zones, 256 MB cache, SATA 6 Gb/s profile"),
        rpm=7200.0, surfaces=16, zones=300, od_mb_s=262.0, id_mb_s=128.0,
        head_switch_ms=0.30, cylinder_switch_ms=0.35, seek_ms=(0.23, 7.4, 14.0),
        write_settle_ms=0.8, idema_gb=14000, block_count=None, actuators=2,
        miss_ms=0.1, hit_ms=0.05,
        bus=("the sata6g interface profile: 512 bytes at 600 MB/s", 600e3),
        cache=("256 MiB: 16 segments of 16 MiB (32768 sectors)", 16, 32768, 4, 2048),
        queue=("NCQ: 32 commands, shortest positioning time first", 32, 8),
    ),
    "deskstar_60gxp": dict(
        title=("IBM Deskstar 60GXP (IC35L060AVER07) class: 7200 RPM, 60 GB, 6 surfaces, "
               "30 zones, 2 MB cache, ATA-100, no command queue"),
        rpm=7200.0, surfaces=6, zones=30, od_mb_s=35.0, id_mb_s=20.0,
        head_switch_ms=1.4, cylinder_switch_ms=1.8, seek_ms=(1.1, 8.5, 14.7),
        write_settle_ms=1.0, idema_gb=60, block_count=None, actuators=1,
        miss_ms=0.3, hit_ms=0.1,
        bus=("the ata100 interface profile: 512 bytes at 100 MB/s", 100e3),
        cache=("2 MiB: 4 segments of 512 KiB (1024 sectors)", 4, 1024, 1, 256),
        queue=("ATA without tagged queueing: one command at a time", 1, 1),
    ),
    "cheetah_x15": dict(
        title=("Seagate Cheetah X15 (ST318451LW) class: 15000 RPM, 18.4 GB, 10 surfaces, "
               "15 zones, 4 MB cache, Ultra160 SCSI"),
        rpm=15000.0, surfaces=10, zones=15, od_mb_s=49.0, id_mb_s=37.0,
        head_switch_ms=0.5, cylinder_switch_ms=0.6, seek_ms=(0.7, 3.9, 8.0),
        write_settle_ms=0.5, idema_gb=None, block_count=35_937_500, actuators=1,
        miss_ms=0.1, hit_ms=0.05,
        bus=("the ultra160 interface profile: 512 bytes at 160 MB/s", 160e3),
        cache=("4 MiB: 8 segments of 512 KiB (1024 sectors)", 8, 1024, 2, 512),
        queue=("SCSI tagged queueing: 64 commands, shortest positioning time first", 64, 8),
    ),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--actuators", type=int, default=1, choices=(1, 2),
                    help="2: the exos_2x14 (kept for the older spelling of --drive exos_2x14)")
    ap.add_argument("--drive", choices=sorted(DRIVES), default=None)
    args = ap.parse_args()
    name = args.drive or ("exos_2x14" if args.actuators == 2 else "ultrastar_hc310")
    d = DRIVES[name]

    rpm = d["rpm"]
    period_ms = 60e3 / rpm
    surfaces = d["surfaces"]
    zones = d["zones"]
    head_switch_ms = d["head_switch_ms"]
    cylinder_switch_ms = d["cylinder_switch_ms"]
    single_ms, average_ms, full_ms = d["seek_ms"]
    if d["idema_gb"] is not None:
        # IDEMA LBA1-03: 97,696,368 + 1,953,504 * (GB - 50) sectors.
        block_count = 97_696_368 + 1_953_504 * (d["idema_gb"] - 50)
    else:
        block_count = d["block_count"]

    spt = zone_sectors_per_track(d["od_mb_s"], d["id_mb_s"], zones, surfaces, period_ms,
                                 head_switch_ms, cylinder_switch_ms)
    per_zone = math.ceil(block_count / (surfaces * sum(spt)))
    cylinders = per_zone * zones
    a, b, c = fit_seek(cylinders, single_ms, average_ms, full_ms)

    how = {"ultrastar_hc310": "", "exos_2x14": " --actuators 2"}.get(name, f" --drive {name}")
    print(f"# Written by scripts/modern_drive.py{how}; "
          "docs/catalog.md gives every number's source.")
    print(f'name = "{name}"')
    print(f'description = "{d["title"]}"')
    print(f"rpm = {rpm}")
    print(f"surfaces = {surfaces}")
    print(f"cylinders = {cylinders}")
    print(f"block_count = {block_count}")
    print(f"head_switch_ms = {head_switch_ms}")
    print(f"write_settle_ms = {d['write_settle_ms']}")
    if d["actuators"] == 2:
        print("actuators = 2")
    print()
    print("[overheads]")
    for op in ("read_miss_after_read", "read_miss_after_write", "write_miss_after_read",
               "write_miss_after_write"):
        print(f"{op}_ms = {d['miss_ms']}")
    for op in ("read_hit_after_read", "read_hit_after_write", "write_hit_after_read",
               "write_hit_after_write"):
        print(f"{op}_ms = {d['hit_ms']}")
    print("time_scale = 1.0")
    print()
    bus_note, bus_bytes_per_ms = d["bus"]
    print(f"[bus]  # {bus_note}")
    print(f"sector_transfer_ms = {SECTOR_BYTES / bus_bytes_per_ms!r}")
    print()
    cache_note, segments, segment_sectors, write_segments, read_ahead = d["cache"]
    print(f"[cache]  # {cache_note}")
    for k, v in [
        ("enabled", "true"), ("segments", segments), ("segment_sectors", segment_sectors),
        ("max_write_segments", write_segments), ("separate_write_segment", "false"),
        ("watermark_by_request_size", "true"), ("calc_sector_by_sector", "true"),
        ("buffer_continuous_read", 4), ("min_read_ahead_sectors", 0),
        ("max_read_ahead_sectors", read_ahead), ("read_any_free_blocks", "true"),
        ("fast_write_level", 2), ("immediate_buffer_read", "true"),
        ("immediate_buffer_write", "true"), ("combine_sequential_writes", "true"),
        ("write_hit_stop_prefetch", "true"), ("read_directly_to_buffer", "true"),
        ("immediate_transfer_partial_hit", "true"), ("allow_read_hits_on_write_data", "true"),
    ]:
        print(f"{k} = {v}")
    print()
    queue_note, queue_length, policy = d["queue"]
    print(f"[queue]  # {queue_note}")
    print(f"max_queue_length = {queue_length}")
    print(f"policy = {policy}")
    print()
    print(f"[seek]  # fitted: {single_ms} ms single track, {average_ms} ms average, "
          f"{full_ms} ms full stroke")
    print('kind = "poly"')
    print(f"a_ms = {a:.9f}")
    print(f"b_ms = {b:.9f}")
    print(f"c_ms = {c:.12f}")
    print()
    print("[layout]")
    print('sparing = "none"')
    print(f"exported_sectors = {block_count}")
    for z, s in enumerate(spt):
        track_skew = math.ceil(head_switch_ms / period_ms * s)
        cylinder_skew = math.ceil(cylinder_switch_ms / period_ms * s)
        print()
        print(f"[[layout.zones]]  # zone {z}")
        print(f"first_cylinder = {z * per_zone}")
        print(f"last_cylinder = {(z + 1) * per_zone - 1}")
        print(f"sectors_per_track = {s}")
        print(f"track_skew = {track_skew}.0")
        print(f"cylinder_skew = {cylinder_skew}.0")


if __name__ == "__main__":
    main()
