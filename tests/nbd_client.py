"""A minimal NBD client for the tests (fixed newstyle, NBD_OPT_GO, simple replies), written
from the protocol's specification so the tests can send what real clients never do."""

from __future__ import annotations

import socket
import struct
from typing import Tuple

IHAVEOPT = 0x49484156454F5054
REQUEST_MAGIC = 0x25609513
READ, WRITE, DISC, FLUSH = 0, 1, 2, 3
FUA = 1


class NbdClient:
    def __init__(self, path: str, export: str = "0", timeout: float = 20.0) -> None:
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(timeout)
        self.s.connect(path)
        hello = self._read(18)
        assert hello[:8] == b"NBDMAGIC"
        self.s.sendall(struct.pack(">I", 3))
        name = export.encode()
        body = struct.pack(">I", len(name)) + name + struct.pack(">H", 0)
        self.s.sendall(struct.pack(">QII", IHAVEOPT, 7, len(body)) + body)
        self.size_bytes = None
        while True:
            _, _, reply, length = struct.unpack(">QIII", self._read(20))
            data = self._read(length)
            if reply == 1:
                break
            if reply == 3 and struct.unpack(">H", data[:2])[0] == 0:
                self.size_bytes = struct.unpack(">Q", data[2:10])[0]
            elif reply & 0x80000000:
                raise ConnectionError(f"option reply {reply:#x}: {data!r}")

    def _read(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            chunk = self.s.recv(n - len(out))
            if not chunk:
                raise ConnectionError("closed by the server")
            out += chunk
        return out

    def send(
        self, command: int, offset: int, length: int, data: bytes = b"", flags: int = 0, handle: int = 1
    ) -> None:
        self.s.sendall(struct.pack(">IHHQQI", REQUEST_MAGIC, flags, command, handle, offset, length) + data)

    def reply(self, data_len: int = 0) -> Tuple[int, int, bytes]:
        magic, errno, handle = struct.unpack(">IIQ", self._read(16))
        assert magic == 0x67446698
        return errno, handle, self._read(data_len) if errno == 0 and data_len else b""

    def read(self, offset: int, length: int) -> Tuple[int, bytes]:
        self.send(READ, offset, length)
        errno, _, data = self.reply(length)
        return errno, data

    def write(self, offset: int, data: bytes, flags: int = 0) -> int:
        self.send(WRITE, offset, len(data), data, flags)
        return self.reply()[0]

    def close(self) -> None:
        try:
            self.send(DISC, 0, 0)
        finally:
            self.s.close()
