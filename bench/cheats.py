"""Cheats detected / cheats tried: every cheat of protocol.md §11.2, committed by one seat.

Runs each cheat of `tests/cheat_runs.py` (the scenarios `tests/test_cheats.py` asserts):
on the seeded in-memory table (3 seats, real keys, signatures, shuffles and proofs) and,
for what only a wire can carry, on a live table of 3 peers over real TLS links on
loopback. For each it prints whether every honest seat detected it, named the culprit
and the rule in its log (and on screen, live), agreed with the other honest seats,
followed the policy, and what the audit of the honest logs says.

    python bench/cheats.py [--runs N] [--json]

With --json the last line is one JSON object: tried, detected (the worst run), runs,
seconds (median wall time of a run), and per cheat whether it was detected in every run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import trio  # noqa: E402

from tests.cheat_runs import (  # noqa: E402
    LIVE, MEMORY, Judged, run_live_frame, run_live_withheld_share, run_table, score, table,
)


def one_run(folder: Path) -> list[Judged]:
    runs: list[Judged] = []
    for name, (make, sections, policy) in MEMORY.items():
        _, judged = run_table(make(), sections, policy, folder / name)
        runs.append(judged)

    async def live() -> None:
        for name in LIVE:
            runs.append(await run_live_frame(name, folder / name))
        runs.append(await run_live_withheld_share(folder / "withheld-share-live"))

    trio.run(live)
    return runs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1, help="runs of every cheat (default 1)")
    parser.add_argument("--json", action="store_true", help="end with one JSON object")
    args = parser.parse_args()
    seconds: list[float] = []
    detected_in: dict[str, int] = {}
    worst = None
    tried = 0
    for run in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="bandit-cheats-") as tmp:
            start = time.perf_counter()
            judged = one_run(Path(tmp))
            seconds.append(time.perf_counter() - start)
        if run == 0:
            print("\n".join(table(judged)))
        detected, tried = score(judged)  # (every scenario: one whose cheat never happened is a miss)
        worst = detected if worst is None else min(worst, detected)
        for j in judged:
            key = f"{j.cheat} ({j.where})"
            detected_in[key] = detected_in.get(key, 0) + int(j.ok)
        for j in judged:
            if not j.ok:
                print(f"run {run + 1}: {j.explain()}")
    print(f"{args.runs} run(s): worst {worst}/{tried} detected; median {statistics.median(seconds):.1f} s a run")
    if args.json:
        print(json.dumps({
            "tried": tried,
            "detected": worst,
            "runs": args.runs,
            "seconds": round(statistics.median(seconds), 2),
            "every_run": {k: v == args.runs for k, v in detected_in.items()},
        }))
    return 0 if worst == tried else 1


if __name__ == "__main__":
    sys.exit(main())
