"""Benchmark: a whole headless game to 100 points between real peer processes.

Each run is `bandit-lan play --headless --bots N-1 --target 100`: N processes on
127.0.0.1, each with its own identity, mutual-TLS links to every other seat, the joint
shuffle and every proof, and its own fairness log; one of the logs is then audited, and
then all of them together (each audited, then compared, protocol.md §10.3).

    python bench/game.py --peers 4 --runs 3 --json

Prints a table and, with --json, one JSON object on the last line:
peers, runs, rounds (median), game_s (median wall time of a game), audit_s (median
time to audit one log), audit_all_s (median time to audit and compare all N logs),
rss_mb_max (largest resident set of any peer process, MB).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def one_game(peers: int, seed: int, folder: Path) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    folder.mkdir(parents=True)
    out, err = folder / "play.out", folder / "play.err"
    started = time.perf_counter()
    with out.open("w") as stdout, err.open("w") as stderr:
        play = subprocess.Popen(
            [sys.executable, "-m", "cli", "play", "--headless", "--bots", str(peers - 1), "--target", "100",
             "--seed", str(seed), "--json", "--state-dir", str(folder / "state"), "--log-dir", str(folder / "logs")],
            cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr,
        )
        # wait4: this game's own peak, the play process's and its bots' (which it waits
        # for), in KiB on Linux; not the audits' (RUSAGE_CHILDREN mixed them in)
        _, status, usage = os.wait4(play.pid, 0)
    game_s = time.perf_counter() - started
    play.returncode = os.waitstatus_to_exitcode(status)
    if play.returncode != 0:
        raise SystemExit(f"the game failed:\n{err.read_text()[-2000:]}")
    result = json.loads(out.read_text().strip().splitlines()[-1])
    audit_s = timed_audit(result["logs"][:1], env)
    audit_all_s = timed_audit(result["logs"], env)
    return {"game_s": game_s, "audit_s": audit_s, "audit_all_s": audit_all_s, "rounds": result["rounds"],
            "rss_mb": usage.ru_maxrss / 1024}


def timed_audit(logs: list[str], env: dict[str, str]) -> float:
    """Seconds `bandit-lan audit --json LOG…` takes; it must find every log intact (and,
    for several, all of one game)."""
    started = time.perf_counter()
    audited = subprocess.run([sys.executable, "-m", "cli", "audit", "--json", *logs],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    took = time.perf_counter() - started
    verdict = json.loads(audited.stdout.strip().splitlines()[-1])
    if not verdict["ok"]:
        raise SystemExit(f"the logs did not audit: {verdict.get('parting') or verdict['first_violation']}")
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peers", type=int, default=4)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.runs):
            runs.append(one_game(args.peers, i, Path(tmp) / str(i)))
            print(f"run {i + 1}: {runs[-1]['game_s']:.2f} s, {runs[-1]['rounds']} rounds, "
                  f"audit {runs[-1]['audit_s']:.2f} s, all {args.peers} logs {runs[-1]['audit_all_s']:.2f} s", flush=True)
    rss_mb = max(r["rss_mb"] for r in runs)  # the largest peer process of any game
    out = {
        "peers": args.peers,
        "runs": args.runs,
        "rounds": statistics.median(r["rounds"] for r in runs),
        "game_s": round(statistics.median(r["game_s"] for r in runs), 2),
        "audit_s": round(statistics.median(r["audit_s"] for r in runs), 2),
        "audit_all_s": round(statistics.median(r["audit_all_s"] for r in runs), 2),
        "rss_mb_max": round(rss_mb, 1),
        "goals": {"game_s": 30, "rss_mb_max": 80},
    }
    print(f"{args.peers} peers, game to 100: median {out['game_s']} s over {args.runs} runs "
          f"(a median of {out['rounds']} rounds), audit {out['audit_s']} s (all {args.peers} logs {out['audit_all_s']} s), largest peer {out['rss_mb_max']} MB")
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
