"""`bandit-lan audit LOG [LOG …]`: check a fairness log and tell the game it records
(§10.2); given several logs of one game, check each and whether they agree (§10.3)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from cli.lobby_common import complain, say, tell
from engine.narrate import listed
from p2p.agreement import Agreement, Proof, compare
from p2p.audit import AuditResult, audit
from p2p.log import Note
from p2p.plain import verdict as plain_verdict
from p2p.policy import told_with
from p2p.report import comparison_report, game_report, noted_about, noted_elsewhere, passed_over, stands


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "audit", help="check a game's fairness log",
        description="Re-verify a fairness log with the same code that played the game: every signature, the "
                    "agreed order, every shuffle, share and proof, every rule and every score. Exit status 0 "
                    "only if everything holds; otherwise the first violation is named. Given the logs of several "
                    "players of one game, each is checked and they are compared: honest peers log the same "
                    "messages in the same order.",
    )
    p.add_argument("logs", type=Path, nargs="+", metavar="LOG",
                   help="a .bandit-log file written by a peer (several: logs of one game, told from the longest "
                        "that holds its checks and is not the proven cheater's)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object with the verdict on the last line (seats and record indexes "
                        "counted from 0, as on the wire, each seat with its player's name; the report counts both "
                        "from 1)")
    p.add_argument("--brief", action="store_true", help="only the verdict, not the story of the game")
    p.json_option = "--json"  # (a usage error, too, ends in its JSON object: `cli.usage`)
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
        "stands": stands(result),
        "left": None if result.left is None else {
            "seat": result.left.seat, "peer": peer(result.left.seat), "why": result.left.why,
            "told": result.left.told},
        "records": result.records,
        "end": _end(result, peer),
        "first_violation": None if failure is None else {
            "record": failure.record, "seat": failure.seat, "section": failure.section,
            "what": told_with(failure.words, failure.what, result.names),
            "peer": peer(failure.seat), "suspects": [peer(s) for s in failure.suspects],
            "signed_by": None if failure.signed_by is None else {
                "seat": failure.signed_by, "peer": peer(failure.signed_by)},
            "plain": plain_verdict(result),
        },
    }


def _end(result: AuditResult, peer: Callable[[int | None], str | None]) -> dict[str, object] | None:
    """The log's `log.end` as its writer wrote it (§10.2), and whether its signature verifies."""
    contents = result.contents
    if contents is None or contents.ended is None:
        return None
    absent = contents.absent
    return {"why": contents.ended, "absent": None if absent is None else {"seat": absent, "peer": peer(absent)},
            "left": contents.left, "leave": contents.leave is not None, "signed": result.end_signed}


def agreement_verdict(agreement: Agreement) -> dict[str, object]:
    """What `--json` adds for several logs (protocol.md §10.3): the proof against a seat the
    logs hold, as `first_violation`; each log's own verdict, the logs set aside as
    damaged, whether the others agree and where they part, and the other logs' notes;
    `ok` then holds only if every log holds and they agree."""
    parting = agreement.parted
    logs = []
    for result in agreement.logs:
        own = verdict(result)
        logs.append({"path": str(result.path), "writer": result.writer, "peer": result.writer_name,
                     **{k: own[k] for k in ("ok", "records", "finished", "first_violation")}})
    told = agreement.told
    names = told.names
    proof = agreement.proof
    proven = {} if proof is None else {"first_violation": {  # (else the told log's own, §10.2)
        "record": proof.record, "seat": proof.seat, "section": proof.section, "what": proof.what,
        "peer": None if proof.seat is None or proof.seat >= len(names) else names[proof.seat],
        "suspects": [names[s] for s in proof.suspects if s < len(names)],
        "plain": _proof_plain(proof), "holders": [str(r.path) for r in proof.holders]}}
    return {
        "ok": agreement.verified,
        **proven,
        "told": str(told.path),
        "agree": agreement.agree,
        "logs": logs,
        "away": [{"writer": r.writer, "peer": r.writer_name, "left": _seat_of(r.left.seat, names)}
                 for r in agreement.departures if r.left is not None] or None,
        "damaged": [{"path": str(r.path), "writer": r.writer, "peer": r.writer_name} for r in agreement.damaged],
        "parting": None if parting is None else {
            "section": parting.section, "what": parting.what, "record": parting.record, "seat": parting.seat,
            "peer": None if parting.seat is None or parting.seat >= len(names) else names[parting.seat]},
        "notes": [{"path": str(r.path), "writer": r.writer, "peer": r.writer_name, "after": note.index,
                   "section": note.section, "text": note.text, "about": _about(r, note)}
                  for r, note in noted_elsewhere(told, agreement.logs)],
    }


def _proof_plain(proof: Proof) -> str:
    """The plain sentence of a proof the logs hold (§10.2's `plain`): the first holder's
    verdict, or, for two signed messages the logs part on (no holder), that parting's."""
    if proof.holders:
        return plain_verdict(proof.holders[0])
    return f"{proof.what} [{proof.section}]."


def _about(result: AuditResult, note: Note) -> dict[str, object] | None:
    """The peer a note names, in `--json`: its seat (from 0) and name, or, where it is no
    member of the game, no seat and its short id."""
    if note.peer is None:
        return None
    member = result.member(note.peer)
    return {"seat": member.seat if member is not None else None, "peer": noted_about(result, note)}


def _seat_of(seat: int, names: Sequence[str]) -> dict[str, object]:
    """A seat in `--json`: its wire number (from 0) and its player's name."""
    return {"seat": seat, "peer": names[seat] if 0 <= seat < len(names) else None}


def unreadable(path: Path) -> str | None:
    """What is wrong with a LOG argument that names no file to read (a usage error, not a
    log that fails its audit), or None. Every way the path fails (a folder it may not
    enter, a name too long, …) is told here, never raised."""
    try:
        if path.is_dir():
            return f"{path} is a folder: give the .bandit-log files in it"
        path.open("rb").close()
    except FileNotFoundError:
        return f"no such file: {path}"
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror or exc}"
    return None


def run(args: argparse.Namespace) -> int:
    for path in args.logs:
        if (wrong := unreadable(path)) is not None:
            complain(wrong)
            if args.json:  # (a script reads the last line: it says what, too)
                tell(json.dumps({"ok": False, "error": wrong}), sys.stdout)
            return 2
    games = by_game([audit(path) for path in args.logs])
    if len(games) == 1:  # (one game: its report, or its JSON object, as ever)
        good, out = audit_game(games[0], args)
        if args.json:
            tell(json.dumps(out), sys.stdout)
        return 0 if good else 1
    verdicts = []
    for n, results in enumerate(games):
        if n and not args.json:
            say("")
        verdicts.append(audit_game(results, args))
    failed = [results[0] for results, (good, _) in zip(games, verdicts) if not good]
    if args.json:
        tell(json.dumps({"ok": not failed, "games": [out for _, out in verdicts]}), sys.stdout)
    else:
        say("")
        say(games_verdict(len(games), failed))
    return 1 if failed else 0


def by_game(results: Sequence[AuditResult]) -> list[list[AuditResult]]:
    """The audited logs, one list a game, in the order given: apart where they are logs of
    several games (`compare`'s §10.3 parting names each game's), each log that cannot be
    read on its own; else all together, compared as logs of one game."""
    parted = compare(results).parted if len(results) > 1 else None
    games = parted.games if parted is not None else ()
    if not games:
        return [list(results)]
    grouped = [list(game) for game in games]
    unread = [[r] for r in results if not any(r is g for game in games for g in game)]
    first = {id(r): n for n, r in enumerate(results)}
    return sorted(grouped + unread, key=lambda game: first[id(game[0])])


def games_verdict(count: int, failed: Sequence[AuditResult]) -> str:
    """The last line over the logs of several games: each game's own verdict above it."""
    if not failed:
        return f"Overall, all {count} games: FAIR: each game's logs hold every check."
    which = listed([f"the game of {r.path}" if not r.game_id else f"game {r.game_id.hex()[:16]}…" for r in failed])
    return f"Overall, {count} games: NOT VERIFIED: {which} {'does' if len(failed) == 1 else 'do'} not verify (see above)."


def audit_game(results: Sequence[AuditResult], args: argparse.Namespace) -> tuple[bool, dict[str, object]]:
    """Tell the logs of one game (a report, unless --json) and whether they verify; and
    the --json object of their verdict."""
    agreement = compare(results) if len(results) > 1 else None
    damaged = agreement.damaged if agreement is not None else ()
    proof = agreement.proof if agreement is not None else None
    cheater = proof.seat if proof is not None else None
    told = agreement.told if agreement is not None else results[0]  # (§10.3: `p2p.agreement.story`)
    if not args.json:
        for line in passed_over(results, told, damaged, cheater):
            say(line)
        for line in game_report(told, brief=args.brief, others=results):
            say(line)
        if agreement is not None:
            for line in comparison_report(agreement):
                say(line)
    out = verdict(told)
    if agreement is not None:
        out |= agreement_verdict(agreement)
    good = results[0].ok if agreement is None else agreement.verified  # (the report's last line says the same)
    return good, out
