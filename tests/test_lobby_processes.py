"""§5, §6 with separate `bandit-lan` processes on this machine (mDNS on loopback only)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_support import bandit, finish, game_id, kill_all, read_until

LO = ("--interface", "127.0.0.1")

pytestmark = pytest.mark.xdist_group("mdns")  # one worker runs the mDNS tests, one at a time (pyproject.toml)


def test_host_tables_and_two_joiners_as_processes(tmp_path: Path) -> None:
    seen: list[str] = []
    host = bandit("host", "--table", "Attic", "--name", "alice", "--seats", "3", "--bind", "127.0.0.1",
                  "--state-dir", str(tmp_path / "h"), "--lobby-only", *LO)
    procs = [host]
    try:
        where = read_until(host, r"on (127\.0\.0\.1:\d+)", seen).group(1)
        fp = read_until(host, r"Your fingerprint: (\S+)", seen).group(1)
        read_until(host, r"1 of 3 seats taken", seen)
        listing = bandit("tables", "--json", "--timeout", "4", *LO)
        procs.append(listing)
        rc, out = finish(listing, [])
        tables = [t for t in json.loads(out.strip().splitlines()[-1]) if t["table"] == "Attic"]
        assert rc == 0 and tables and tables[0]["host"] == "alice" and tables[0]["free"] == 2
        assert f"{tables[0]['address']}:{tables[0]['port']}" == where
        by_name = bandit("join", "Attic", "--name", "bob", "--state-dir", str(tmp_path / "b"), "--lobby-only", *LO)
        by_addr = bandit("join", "--peer", where, "--fingerprint", fp, "--name", "carol",
                         "--state-dir", str(tmp_path / "c"), "--lobby-only")
        procs += [by_name, by_addr]
        results = [finish(p, seen if p is host else [], 40) for p in (by_name, by_addr, host)]
    finally:
        kill_all(procs)
    for rc, out in results:
        assert rc == 0, out
    assert len({game_id(out) for _, out in results}) == 1
    assert "Host fingerprint " + fp + " verified." in results[1][1]
    for name in ("alice", "bob", "carol"):
        assert name in results[2][1]


def test_wrong_fingerprint_and_unreachable_host_fail_clearly(tmp_path: Path) -> None:
    seen: list[str] = []
    host = bandit("host", "--table", "Cellar", "--name", "alice", "--seats", "2", "--bind", "127.0.0.1",
                  "--no-discovery", "--state-dir", str(tmp_path / "h"))
    try:
        where = read_until(host, r"on (127\.0\.0\.1:\d+)", seen).group(1)
        wrong = bandit("join", "--peer", where, "--fingerprint", "AAAA-AAAA-AAAA-AAAA", "--state-dir", str(tmp_path / "j"))
        rc, out = finish(wrong, [])
        assert rc == 1 and "fingerprint mismatch: expected AAAA-AAAA-AAAA-AAAA" in out
    finally:
        host.kill()
        host.wait()
    gone = bandit("join", "--peer", where, "--state-dir", str(tmp_path / "j"))
    rc, out = finish(gone, [])
    assert rc == 1 and "could not reach the table" in out
