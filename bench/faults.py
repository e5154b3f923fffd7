"""Fault benchmark: time to heal a cut link and to resume a killed peer (§11.3), loopback.

    python bench/faults.py [--runs 5] [--json]

heal_s: three live peers (real TLS, in one process, each with its fairness log and its
journal as a `bandit-lan` seat); the link between seat 0 and another seat runs through
a TCP proxy. Mid-game the proxy resets the link and refuses
connections until both peers have noticed; then it lets connections through again.
Timed from that moment until both peers have the link back (seat 0 redials with
backoff, §11.3): once for a reset let through at once, once for a cable out --outage s.

resume_s: three `bandit-lan` processes play headless; one is killed with SIGKILL after
round 1 and restarted at once with `join --resume`. Timed from the restart until the
host prints that the player is back (the restarted process has started Python, read
its journal, replayed its log and been dialled by the host). replay_ms is the share of
that spent replaying the log, from the resumed log's note.

Medians of --runs runs. With --json the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from p2p.roster import TableRules  # noqa: E402
from tests.cli_support import bandit, read_until  # noqa: E402
from tests.faultproxy import LOOPBACK, link_proxy  # noqa: E402
from tests.live_support import seat_live_table, until  # noqa: E402


async def one_heal(root: Path, outage: float) -> tuple[float, float]:
    """Two cuts in one game: a reset healed at once, then one that lasts `outage` s."""
    stack, peers = await seat_live_table(root, 3, person=False, rules=TableRules(target=100), journals=True)
    low, high = peers[0], peers[2]
    healed: list[float] = []
    async with stack, link_proxy((LOOPBACK, high.mesh.port)) as proxy:
        high_id = high.identity.peer_id
        low.mesh.expect(low.mesh.certificate(high_id), (LOOPBACK, proxy.port))
        low.mesh.close_link(high_id, "rerouted through the proxy")
        async with trio.open_nursery() as nursery:
            for peer in peers:
                nursery.start_soon(peer.run)
            await until(lambda: proxy.connections >= 1 and high_id in low.mesh.linked(), low, high)
            await until(lambda: low.machine.round_number >= 1, low)
            for pause in (0.0, outage):
                proxy.cut()
                await until(lambda: high.me in low.progress.waiting_for and low.me in high.progress.waiting_for,
                            low, high)
                await trio.sleep(pause)  # the cable stays out
                start = trio.current_time()
                proxy.restore()
                await until(lambda: not low.progress.waiting_for and not high.progress.waiting_for, low, high)
                healed.append(trio.current_time() - start)
            nursery.cancel_scope.cancel()
    return healed[0], healed[1]


def one_resume(root: Path) -> tuple[float, float]:
    common = ("--headless", "--bind", "127.0.0.1", "--log-dir", str(root / "logs"))
    host = bandit("host", "--table", "Bench", "--name", "alice", "--seats", "3", "--no-discovery",
                  "--state-dir", str(root / "a"), *common)
    procs = [host]
    try:
        where = read_until(host, r"on (127\.0\.0\.1:\d+)", []).group(1)
        procs.append(bandit("join", "--peer", where, "--name", "bob", "--state-dir", str(root / "b"), *common))
        carol = bandit("join", "--peer", where, "--name", "carol", "--state-dir", str(root / "c"), *common)
        procs.append(carol)
        read_until(carol, r"Round 1: every shuffle", [])
        carol.send_signal(signal.SIGKILL)
        carol.wait()
        start = time.perf_counter()
        again = bandit("join", "--resume", "--state-dir", str(root / "c"), *common)
        procs.append(again)
        read_until(host, r"carol is back", [])
        back = time.perf_counter() - start
        seen: list[str] = []
        log = Path(read_until(again, r"from (\S+\.bandit-log)", seen).group(1))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()
    from p2p.log import read_log

    note = next(n.text for n in read_log(log).notes if "resumed after a restart" in n.text)
    replay = float(re.search(r"in ([\d.]+) ms", note).group(1)) if "ms" in note else float("nan")  # type: ignore[union-attr]
    return back, replay


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--outage", type=float, default=3.0, help="length of the second cut (s)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    heals, long_heals, resumes, replays = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.runs):
            short, long = trio.run(one_heal, Path(tmp) / f"heal{run}", args.outage)
            heals.append(short)
            long_heals.append(long)
            back, replay = one_resume(Path(tmp) / f"resume{run}")
            resumes.append(back)
            replays.append(replay)
    out = {
        "machine": f"{platform.machine()}, Python {platform.python_version()}, {platform.system()}",
        "runs": args.runs,
        "heal_s": round(statistics.median(heals), 3),
        "heal_s_max": round(max(heals), 3),
        "outage_s": args.outage,
        "heal_after_outage_s": round(statistics.median(long_heals), 3),
        "heal_after_outage_s_max": round(max(long_heals), 3),
        "resume_s": round(statistics.median(resumes), 3),
        "resume_s_max": round(max(resumes), 3),
        "replay_ms": round(statistics.median(replays), 1),
    }
    print(f"{'figure':<28}{'median':>10}{'max':>10}")
    print(f"{'heal a cut link (s)':<28}{out['heal_s']:>10.3f}{out['heal_s_max']:>10.3f}")
    print(f"{f'heal after {args.outage:g} s out (s)':<28}{out['heal_after_outage_s']:>10.3f}{out['heal_after_outage_s_max']:>10.3f}")
    print(f"{'resume a killed peer (s)':<28}{out['resume_s']:>10.3f}{out['resume_s_max']:>10.3f}")
    print(f"{'  of which replay (ms)':<28}{out['replay_ms']:>10.1f}")
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
