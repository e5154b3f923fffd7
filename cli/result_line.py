"""The last line of `play`, `host` and `join --json`: the game's result, or an object
that says why there is none.

A script reads the last line of standard output as the command's result (README, "For
a script"). A game's end prints its result (`cli.game.report`); `host --lobby-only`
prints the seating. Every other way out — no table found, a refusal, an interrupt in the
lobby, a fault before the game — ends with `no_result`'s object instead: `"ok": false`,
`"error"` saying why (the last complaint printed on standard error, else the exit
status's meaning), and the result's own fields, empty, so that a tool reading them finds
no game rather than no object. Every one of these objects begins with the same three
fields, meaning the same (`outcome`): `ok`, `error` and `status`.
"""

from __future__ import annotations

import json
import sys

_told: list[bool] = []
_trouble: list[str] = []

INTERRUPTED_WHY = "stopped by a signal (Ctrl-C, a termination request or a hang-up) before a result"


def result_told() -> None:
    """The command printed its result line (`cli.game.report`, the lobby-only seating)."""
    _told.append(True)


def trouble_said(text: str) -> None:
    """What the command complained of last (standard error): the `error` of `no_result`."""
    _trouble.append(text)


def outcome(status: int, error: str | None, *, result: bool = True) -> dict[str, object]:
    """The fields every result object begins with: `ok`, whether there is a `result` and
    the command's exit `status` is 0 (a game that ended where every seat's log ends, a
    seating checked); `error`, why not (None where ok); `status`, the exit status."""
    ok = result and status == 0
    return {"ok": ok, "error": None if ok else error, "status": status}


def no_result(status: int) -> dict[str, object]:
    """The last line of a command that ended with `status` and printed no result."""
    if _trouble:
        why = _trouble[-1]
    elif status == 130:
        why = INTERRUPTED_WHY
    else:
        why = "no game was played"
    return {**outcome(status, why, result=False), "game_id": None, "rounds": 0, "totals": [],
            "winners": [], "finished": False, "why": why, "left": False, "departed": False, "away": None,
            "logs": [], "log": None}


def end_with_a_result(status: int) -> None:
    """Print `no_result` as the last line of standard output, unless a result was printed."""
    from cli.lobby_common import tell

    if not _told:
        tell(json.dumps(no_result(status)), sys.stdout)
