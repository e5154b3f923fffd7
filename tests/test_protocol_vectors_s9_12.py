"""§9.12's test vector, read from protocol.md and re-derived byte for byte: from the
formula the section states (so a change of the text fails as a change of the code does)
and from `SeatSecrets`, which a seat uses."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from p2p.table.secrets import SeatSecrets

ROOT = Path(__file__).resolve().parent.parent


def _vector() -> tuple[bytes, str, int, bytes]:
    """(seed, label's first part, its round, the bytes the stream begins with), as §9.12 states them."""
    text = (ROOT / "protocol.md").read_text(encoding="utf-8")
    section = text.split("### 9.12 Seat secrets", 1)[1].split("\n## ", 1)[0]
    m = re.search(r"Test vector: seed = 32 bytes 0x([0-9a-f]{2}),\s+`stream\(\"(\w+)\", (\d+)\)` begins\s+`([0-9a-f]+)`", section)
    assert m is not None, "§9.12 must state its test vector"
    return bytes.fromhex(m.group(1)) * 32, m.group(2), int(m.group(3)), bytes.fromhex(m.group(4))


def test_s9_12_vector_from_the_stated_formula() -> None:
    seed, name, number, begins = _vector()
    label = b"".join(len(part).to_bytes(2, "big") + part for part in (name.encode(), str(number).encode()))
    tag = b"bandit-lan/v1/seat-secret\x00"
    assert tag.decode("ascii") in (ROOT / "protocol.md").read_text(encoding="utf-8").replace("\\0", "\x00")
    stream = b"".join(hashlib.sha512(tag + seed + label + block.to_bytes(8, "big")).digest() for block in range(2))
    assert stream[: len(begins)] == begins


def test_s9_12_vector_from_seat_secrets() -> None:
    seed, name, number, begins = _vector()
    assert SeatSecrets(seed).stream(name, number)(len(begins)) == begins


def test_s9_12_draws_read_the_stream_front_to_back() -> None:
    """Draws of any sizes take the stream's next bytes: 32, then 64, then 4, as one read of 100."""
    seed, name, number, _ = _vector()
    whole = SeatSecrets(seed).stream(name, number)(100)
    pieces = SeatSecrets(seed).stream(name, number)
    assert pieces(32) + pieces(64) + pieces(4) == whole
