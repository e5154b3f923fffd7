"""`bandit-lan audit LOG`: check a fairness log and tell the game it records (§10.2)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from cli.lobby_common import say
from p2p.audit import AuditResult, audit
from p2p.report import game_report


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "audit", help="check a game's fairness log",
        description="Re-verify a fairness log with the same code that played the game: every signature, the "
                    "agreed order, every shuffle, share and proof, every rule and every score. Exit status 0 "
                    "only if everything holds; otherwise the first violation is named.",
    )
    p.add_argument("log", type=Path, metavar="LOG", help="a .bandit-log file written by a peer")
    p.add_argument("--json", action="store_true", help="print one JSON object with the verdict on the last line")
    p.add_argument("--brief", action="store_true", help="only the verdict, not the story of the game")
    p.set_defaults(func=run)


def verdict(result: AuditResult) -> dict[str, object]:
    failure = result.first_failure
    return {
        "ok": result.ok,
        "game_id": result.game_id.hex(),
        "players": list(result.names),
        "rounds": len(result.rounds),
        "totals": result.totals,
        "winners": result.winners,
        "finished": result.finished,
        "left": None if result.left is None else {"seat": result.left[0], "why": result.left[1]},
        "records": result.records,
        "first_violation": None if failure is None else {
            "record": failure.record, "seat": failure.seat, "section": failure.section, "what": failure.what,
            "peer": None if failure.seat is None or failure.seat >= len(result.names) else result.names[failure.seat],
        },
    }


def run(args: argparse.Namespace) -> int:
    result = audit(args.log)
    if not args.json:
        for line in game_report(result, brief=args.brief):
            say(line)
    else:
        print(json.dumps(verdict(result)), flush=True)
    return 0 if result.ok else 1
