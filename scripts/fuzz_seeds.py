"""Rebuild the fuzz seed corpora in fuzz/seeds/ from files the project ships.

Sources: the experiment examples, the catalog's drive files (DiskSim 4.0's parameter files for
real drives, shipped under their CMU notice), the trace fixtures, and the first lines of the
shipped validation traces. Big files are cut short (a seed only has to show the fuzzer the
shape of the input). Nothing from ../shared is needed.

    python3 scripts/fuzz_seeds.py
"""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "fuzz" / "seeds"
CATALOG = ROOT / "crates" / "headway" / "catalog"
DISKSIM = CATALOG / "disksim"
FIXTURES = ROOT / "crates" / "headway" / "tests" / "fixtures"
# The order of TraceFormat::ALL, which the `trace` target indexes with its first byte / 8.
FORMATS = ["auto", "disksim-ascii", "disksim-validate", "spc", "msr", "fiu", "blkparse", "hp-srt", "csv"]


def head_lines(path: Path, n: int) -> bytes:
    return b"".join(path.read_bytes().splitlines(keepends=True)[:n])


def seek_head(path: Path, n: int) -> str:
    """The first `n` measured distances of a seek curve, its declared count made to match."""
    rows = [l for l in path.read_text().splitlines() if l.strip() and not l.startswith("Seek distances")][:n]
    return f"Seek distances measured: {len(rows)}\n" + "".join(r + "\n" for r in rows)


def put(target: str, name: str, data: bytes) -> None:
    d = SEEDS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data)


def trace_seed(fmt: str, payload: bytes, wrap: int = 0) -> bytes:
    """The `trace` target's input: format and wrapping in byte 0, strict mode in byte 1."""
    return bytes([FORMATS.index(fmt) * 8 + wrap, 0]) + payload


def main() -> None:
    shutil.rmtree(SEEDS, ignore_errors=True)
    examples = sorted((ROOT / "examples").glob("*.toml"))
    for p in examples:
        put("experiment_toml", p.name, p.read_bytes())
    put(
        "experiment_toml",
        "trace_workload.toml",
        b'seed = 2\n[drive]\nname = "elite3"\nqueue_depth = 4\n[host]\nscheduler = "sstf"\n'
        b'[workload]\nkind = "trace"\npath = "t.trace"\nformat = "csv"\nskip_bad = true\n'
        b"csv = { time = 0, device = 1, address = 2, size = 3, op = 4 }\n",
    )
    for p in sorted(CATALOG.glob("*.toml")):
        put("drive_toml", p.name, p.read_bytes())

    # A run configuration with everything it sources, and a disk specification likewise.
    for drive, kind in [("atlas10k", "parv"), ("hp_c2247a", "diskspecs"), ("dec_rz26", "parv")]:
        spec = (DISKSIM / f"{drive}.diskspecs").read_text()
        model = spec.split("source", 1)[1].split()[0].rstrip(",")
        parts = [(DISKSIM / f"{drive}.{kind}").read_text()]
        if kind == "parv":
            parts.append(f"@@ {drive}.diskspecs\n{spec}")
        parts.append(f"@@ {model}\n{(DISKSIM / model).read_text()}")
        for seek in DISKSIM.glob(f"{drive}*.seek"):
            parts.append(f"@@ {seek.name}\n" + seek_head(seek, 30))
        pick = b"\x00" if kind == "parv" else b"\x01"
        put("disksim_params", f"{drive}.{kind}", pick + "".join(parts).encode())
    for seek in sorted(DISKSIM.glob("*.seek"))[:4]:
        put("disksim_seek", seek.name, seek_head(seek, 40).encode())

    traces = FIXTURES / "traces"
    by_format = {
        "disksim_small.trace": "disksim-ascii",
        "blkparse.txt": "blkparse",
        "fiu.trace": "fiu",
        "headway.csv": "csv",
        "hp_small.srt": "hp-srt",
        "msr.csv": "msr",
        "spc.csv": "spc",
        "validate.trace": "disksim-validate",
    }
    for name, fmt in by_format.items():
        path = FIXTURES / name if (FIXTURES / name).exists() else traces / name
        put("trace", f"{name}.{fmt}", trace_seed(fmt, path.read_bytes()))
        put("trace", f"{name}.auto", trace_seed("auto", path.read_bytes()))
    # Corrupt-container shapes come from real compressed files read as they are.
    for name in ["disksim_small.trace.xz", "disksim_small.trace.zst"]:
        put("trace", name, trace_seed("auto", (traces / name).read_bytes()))
    put("trace", "disksim_small.trace.gz", trace_seed("auto", (FIXTURES / "disksim_small.trace.gz").read_bytes()))
    # Valid containers around a real payload (wrap 5 = gzip, 6 = zstd, 7 = xz).
    small = (FIXTURES / "disksim_small.trace").read_bytes()
    for wrap, name in [(5, "gzip"), (6, "zstd"), (7, "xz")]:
        put("trace", f"wrapped.{name}", trace_seed("auto", small, wrap))
    for p in sorted((CATALOG / "validation").glob("*.trace"))[:2]:
        put("trace", f"validation.{p.name}", trace_seed("auto", head_lines(p, 40)))

    put("csv_map", "headway.csv", b"header=yes,time=0,device=1,address=2,size=3,op=4\n" + (traces / "headway.csv").read_bytes())
    put(
        "csv_map",
        "named.csv",
        b"header=yes,time=ts,address=off,size=len,op=rw,time_unit=us,address_unit=bytes,size_unit=bytes,read=R|r,write=W|w,delimiter=;\n"
        b"ts;off;len;rw\n0;0;4096;R\n10;8192;512;w\n",
    )

    for p in examples:
        put("whole_run", p.name, p.read_bytes().replace(b"requests = 20000", b"requests = 50"))
    put(
        "whole_run",
        "trace.toml",
        b'[drive]\nname = "elite3"\nqueue_depth = 8\n[host]\nscheduler = "sptf"\n[workload]\nkind = "trace"\n'
        b'path = "t.trace"\nformat = "disksim-ascii"\nskip_bad = true\nmerge_devices = true\n@@ trace\n' + small,
    )
    put(
        "whole_run",
        "closed.toml",
        b'[drive]\nname = "atlas10k"\nqueue_depth = 4\n[host]\nscheduler = "clook"\n'
        b'[workload]\nkind = "closed"\nprocesses = 4\nrequests = 100\nthink_ms = 1.0\n',
    )

    for name, data in nbd_sessions().items():
        put("nbd_request", name, data)


def nbd_sessions() -> dict:
    """Client sides of NBD connections: the handshake by each route, then requests."""
    import struct

    def option(code: int, data: bytes = b"") -> bytes:
        return struct.pack(">QII", 0x49484156454F5054, code, len(data)) + data

    def go(code: int, name: bytes, infos=(3,)) -> bytes:
        body = struct.pack(">I", len(name)) + name + struct.pack(">H", len(infos))
        return option(code, body + b"".join(struct.pack(">H", i) for i in infos))

    def request(command: int, offset: int, length: int, flags: int = 0, handle: int = 1) -> bytes:
        head = struct.pack(">IHHQQI", 0x25609513, flags, command, handle, offset, length)
        return head + (bytes(range(256)) * (length // 256 + 1))[:length] if command == 1 else head

    requests = (request(1, 4096, 512, flags=1) + request(0, 4096, 512, handle=2) + request(3, 0, 0)
                + request(4, 0, 65536) + request(0, (1 << 30) - 256, 512) + request(9, 0, 0) + request(2, 0, 0))
    fixed = struct.pack(">I", 3)
    return {
        "go.bin": fixed + option(3) + go(6, b"disk0") + go(7, b"disk0") + requests,
        "export_name.bin": struct.pack(">I", 1) + option(1, b"flash") + request(0, 0, 4096) + request(0, 0, 4097),
        "unknown_then_index.bin": fixed + option(5) + go(7, b"nosuch", ()) + go(7, b"1", ()) + request(1, 0, 1024),
    }


if __name__ == "__main__":
    main()
