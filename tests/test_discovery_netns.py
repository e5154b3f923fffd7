"""§5, §6 across hosts: Linux network namespaces joined by a bridge, made and removed here.
A table hosted in one namespace is listed (`bandit-lan tables`) and joined from two others."""

from __future__ import annotations

import json
import re
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from p2p.audit import audit
from cli_support import bandit, finish, kill_all, one_game, read_until

pytestmark = pytest.mark.netns
SUBNET = "10.231.77"


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


@pytest.fixture
def lan() -> Iterator[list[str]]:
    """Three namespaces (hosts) on one bridged segment; the bridge lives in a fourth."""
    if shutil.which("ip") is None:
        pytest.skip("iproute2 (`ip`) is not installed")
    if os.geteuid() != 0:
        pytest.skip("network namespaces need root")
    tag = f"blan{os.getpid() % 100000}"
    bridge, hosts = f"{tag}-br", [f"{tag}-h{i}" for i in range(1, 4)]
    made: list[str] = []
    try:
        try:
            ip("netns", "add", bridge)
        except subprocess.CalledProcessError as exc:
            pytest.skip(f"cannot create network namespaces here: {exc.stderr.strip()}")
        made.append(bridge)
        ip("-n", bridge, "link", "add", "br0", "type", "bridge")
        ip("-n", bridge, "link", "set", "br0", "up")
        for i, ns in enumerate(hosts, start=1):
            ip("netns", "add", ns)
            made.append(ns)
            ip("link", "add", "eth0", "netns", ns, "type", "veth", "peer", "name", f"port{i}", "netns", bridge)
            ip("-n", bridge, "link", "set", f"port{i}", "master", "br0", "up")
            ip("-n", ns, "addr", "add", f"{SUBNET}.{i}/24", "dev", "eth0")
            ip("-n", ns, "link", "set", "eth0", "up")
            ip("-n", ns, "link", "set", "lo", "up")
        yield hosts
    finally:
        for ns in reversed(made):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def test_table_hosted_in_one_namespace_is_found_joined_and_played_from_two_others(lan: list[str], tmp_path: Path) -> None:
    """Three hosts on a bridged LAN: discovery, the lobby, then a whole game (headless
    bots, real TLS between the namespaces) whose three logs audit clean and agree."""
    h1, h2, h3 = lan
    seen: list[str] = []
    game = ("--headless", "--target", "15")
    host = bandit("host", "--table", "Garage", "--name", "alice", "--seats", "3", "--state-dir", str(tmp_path / "a"),
                  *game, netns=h1)
    procs = [host]
    try:
        fp = read_until(host, r"Your fingerprint: (\S+)", seen).group(1)
        read_until(host, r"1 of 3 seats taken", seen)
        listing = bandit("tables", "--json", "--timeout", "4", netns=h2)
        procs.append(listing)
        rc, out = finish(listing, [])
        assert rc == 0, out
        garage = [t for t in json.loads(out.strip().splitlines()[-1]) if t["table"] == "Garage"]
        assert garage and garage[0]["address"] == f"{SUBNET}.1" and garage[0]["free"] == 2, out
        bob = bandit("join", "Garage", "--name", "bob", "--state-dir", str(tmp_path / "b"), *game, netns=h2)
        carol = bandit("join", "Garage", "--name", "carol", "--state-dir", str(tmp_path / "c"), *game, netns=h3)
        procs += [bob, carol]
        results = [finish(bob, [], 90), finish(carol, [], 90), finish(host, seen, 90)]
    finally:
        kill_all(procs)
    one_game(results)
    for _, out in results:
        assert f"Host fingerprint {fp} (as announced on the LAN" in out or "host you" in out  # (by name: announced)
    logs = [Path(re.search(r"^Log: (\S+)", out, re.M).group(1)) for _, out in results]  # type: ignore[union-attr]
    verdicts = [audit(path) for path in logs]
    assert all(v.ok and v.finished for v in verdicts), [v.first_failure for v in verdicts]
    assert len({tuple(v.totals.items()) for v in verdicts}) == 1


def test_a_host_s_bots_are_reached_by_players_on_other_hosts(lan: list[str], tmp_path: Path) -> None:
    """`host --bots`: the bot processes run beside the host and sit down at its table,
    the table code reaching them on their standard input; a player on another host plays
    the whole game with them (real TLS links between the hosts, §6.5) and every log
    audits clean, all of one game (§10.3)."""
    from p2p.agreement import compare

    h1, h2, _ = lan
    seen: list[str] = []
    game = ("--headless", "--target", "15", "--code", "owl")
    host = bandit("host", "--table", "Den", "--name", "alice", "--seats", "3", "--bots", "1",
                  "--state-dir", str(tmp_path / "a"), "--log-dir", str(tmp_path / "logs"), *game, netns=h1)
    procs = [host]
    try:
        read_until(host, r"2 of 3 seats taken", seen)
        read_until(host, r"Ada \(bot\)", seen)
        bob = bandit("join", "Den", "--name", "bob", "--state-dir", str(tmp_path / "b"),
                     "--log-dir", str(tmp_path / "logs"), *game, netns=h2)
        procs.append(bob)
        results = [finish(bob, [], 90), finish(host, seen, 90)]
    finally:
        kill_all(procs)
    for rc, out in results:
        assert rc == 0, out
    logs = sorted((tmp_path / "logs").glob("*.bandit-log"))
    assert len(logs) == 3
    verdicts = [audit(path) for path in logs]
    assert all(v.ok and v.finished for v in verdicts), [v.first_failure for v in verdicts]
    assert verdicts[0].names == ("alice", "Ada (bot)", "bob")
    assert compare(verdicts).ok
