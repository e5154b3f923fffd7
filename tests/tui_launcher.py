"""Play the terminal client against bots on an in-process table (no network).

    python tests/tui_launcher.py [--players 4] [--seed 1] [--memory-aid] [--target 100]

A development and test tool (the tmux test drives it until `bandit-lan play` is used):
the table is `tui_support.LocalSession`, the screen is the real client.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from cli.tui import run_client  # noqa: E402
from tui_support import LocalSession, Script, arranged  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--target", type=int, default=100)
    parser.add_argument("--memory-aid", action="store_true")
    parser.add_argument("--snap-deal", action="store_true",
                        help="deal the first round so that your bottom-left card matches the first discard "
                             "and you play first (the tmux test snaps it)")
    parser.add_argument("--think", type=float, default=0.8, help="bots' thinking time in seconds")
    args = parser.parse_args()
    script = Script()
    if args.snap_deal:
        others = {s: [0, 2, 12, 14] for s in range(1, args.players)}
        script = Script(deals=[arranged(args.players, {0: [4, 6, 8, 2], **others}, discard=8)], first=[0])

    async def run() -> None:
        session = LocalSession(args.players, 0, seed=args.seed, target=args.target, script=script,
                               think=(args.think, args.think * 1.5), log_path="")
        async with trio.open_nursery() as nursery:
            await nursery.start(session.run)
            await run_client(session, memory_aid=args.memory_aid)
            nursery.cancel_scope.cancel()

    trio.run(run)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
