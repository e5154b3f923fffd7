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
    p.add_argument("--json", action="store_true",
                   help="print one JSON object with the verdict on the last line (seats counted from 0, as on "
                        "the wire, each with its player's name; the report counts them from 1)")
    p.add_argument("--brief", action="store_true", help="only the verdict, not the story of the game")
    p.set_defaults(func=run)


def verdict(result: AuditResult) -> dict[str, object]:
    """The `--json` object (protocol.md §10.2): a seat is its wire number (from 0) and its
    player's name, so no reader has to know which way the report counts."""
    failure = result.first_failure

    def peer(seat: int | None) -> str | None:
        return None if seat is None or not 0 <= seat < len(result.names) else result.names[seat]

    return {
        "ok": result.ok,
        "game_id": result.game_id.hex(),
        "players": list(result.names),
        "rounds": len(result.rounds),
        "totals": result.totals,
        "winners": result.winners,
        "finished": result.finished,
        "left": None if result.left is None else {
            "seat": result.left.seat, "peer": peer(result.left.seat), "why": result.left.why,
            "told": result.left.told},
        "records": result.records,
        "first_violation": None if failure is None else {
            "record": failure.record, "seat": failure.seat, "section": failure.section, "what": failure.what,
            "peer": peer(failure.seat),
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
