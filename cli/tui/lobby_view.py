"""The lobby screens: tables on the LAN, the host's roster as it fills, joining.

Each screen is an immutable scene drawn to the terminal's size; the flows that fill
them in live in `cli.tui.lobby`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cli.lobby_common import SIGNING_NOW
from cli.tui.canvas import Canvas, clip, pad, text_width, wrap
from cli.tui.table_view import write_marked
from p2p.discovery import TableAd
from p2p.identity import short_id
from p2p.roster import Roster


@dataclass(frozen=True, slots=True)
class Seat:
    """One row of a roster as shown."""

    seat: int
    name: str
    short: str
    host: bool
    you: bool
    reconnecting: bool = False  # its link dropped and is being made again (§6.6)
    linking: bool = False  # the start waits for it to hold a link to every other player (§6.6; the host's screen)


def seats_of(roster: Roster | None, me: bytes, reconnecting: frozenset[bytes] = frozenset(),
             linking: frozenset[bytes] = frozenset()) -> tuple[Seat, ...]:
    if roster is None:
        return ()
    return tuple(Seat(m.seat, m.name, m.cert.short, m.seat == 0, m.peer_id == me, m.peer_id in reconnecting,
                      m.peer_id in linking) for m in roster.members)


@dataclass(frozen=True, slots=True)
class Note:
    text: str
    kind: str = "info"  # info | warning | error


def _title(canvas: Canvas, text: str) -> None:
    canvas.fill(0, 0, canvas.width, "class:status")
    canvas.write(1, 0, clip(text, canvas.width - 2), "class:status")


def _footer(canvas: Canvas, text: str) -> None:
    canvas.fill(0, canvas.height - 1, canvas.width, "class:helpbar")
    write_marked(canvas, 1, canvas.height - 1, clip(text, canvas.width - 2), "class:helpbar")


def _note(canvas: Canvas, y: int, note: Note | None) -> int:
    if note is None:
        return y
    for line in wrap(note.text, canvas.width - 2):
        canvas.write(1, y, line, f"class:message.{note.kind}")
        y += 1
    return y


def _roster(canvas: Canvas, y: int, seats: Sequence[Seat], total: int) -> int:
    width = max([4] + [text_width(s.name) for s in seats])
    for index in range(total):
        seat = next((s for s in seats if s.seat == index), None)
        if seat is None:
            canvas.write(3, y, f"seat {index + 1}  (free)", "class:dim")
        else:
            tags = " ".join(t for t, on in (("host", seat.host), ("you", seat.you)) if on)
            style = "class:seat.me" if seat.you else "class:seat"
            x = canvas.write(3, y, f"seat {index + 1}  ", "class:dim")
            x = canvas.write(x, y, seat.name + " " * (width - text_width(seat.name)), style)
            x = canvas.write(x + 2, y, seat.short, "class:dim")
            if seat.reconnecting:
                canvas.write(x + 2, y, f"{tags}  … reconnecting".strip(), "class:message.warning")
            elif seat.linking:
                canvas.write(x + 2, y, f"{tags}  … linking with the others".strip(), "class:dim")
            else:
                canvas.write(x + 2, y, f"{tags}  ✓ seated".strip(), "class:good")
        y += 1
    return y


@dataclass(frozen=True, slots=True)
class HostScene:
    """The host's screen while players join."""

    table: str
    seats: int
    members: tuple[Seat, ...]
    fingerprint: str
    join_hint: str  # how others join
    code: bool
    starting: bool
    note: Note | None = None
    turned_away: Note | None = None  # the latest joiner turned away for another release (its own line, §6.4)
    quitting: bool = False

    def draw(self, width: int, height: int) -> Canvas:
        canvas = Canvas(width, height)
        taken = len(self.members)
        _title(canvas, f'Hosting "{self.table}" — {taken} of {self.seats} seats taken')
        y = 2
        canvas.write(1, y, "Others join with:", "class:prompt")
        for line in wrap(self.join_hint, width - 4):
            y += 1
            canvas.write(3, y, line, "class:prompt.key")
        y += 2
        canvas.write(1, y, f"Your fingerprint: {self.fingerprint}", "class:prompt")
        canvas.write(3, y + 1, "players who joined by address compare it with this screen", "class:dim")
        canvas.write(1, y + 2, "A table code is required." if self.code else "No table code: anyone on the LAN may sit.",
                     "class:dim")
        # (once started, the seats still free are not played: the seating signed is the one shown)
        y = _roster(canvas, y + 4, self.members, len(self.members) if self.starting else self.seats) + 1
        if self.starting:
            y = _note(canvas, y, Note(_starting(self.members)))
        y = _note(canvas, y, self.note)
        y = _note(canvas, y, self.turned_away)
        if self.starting:
            _footer(canvas, "{Ctrl-C} close the table")
        elif taken >= 2:
            _footer(canvas, f"{{Enter}} start now with {taken} players · {{Ctrl-C}} close the table")
        else:
            _footer(canvas, "Waiting for players (a game needs at least 2) · {Ctrl-C} close the table")
        if self.quitting:
            _ask_leave(canvas, "Close the table?", "The game is about to begin: closing stops it for everyone."
                       if self.starting else "Players seated so far will be told.")
        return canvas


@dataclass(frozen=True, slots=True)
class BrowseScene:
    """Tables with free seats found on the LAN, refreshed while the screen is up."""

    tables: tuple[TableAd, ...]
    selected: int
    looking: bool
    entry: str | None = None  # typing an address HOST:PORT
    note: Note | None = None

    def draw(self, width: int, height: int) -> Canvas:
        canvas = Canvas(width, height)
        _title(canvas, "Tables on this network" + (" — looking…" if self.looking else ""))
        y = 2
        if not self.tables:
            canvas.write(3, y, "No table with a free seat yet. Ask the host to run `bandit-lan host`.", "class:dim")
            y += 2
        else:
            # (77 columns in all: at 80, the fingerprint a player compares is never cut)
            canvas.write(3, y, f"{'TABLE':<15} {'HOST':<9} {'FREE':<4} {'CODE':<4} {'ADDRESS':<21} FINGERPRINT",
                         "class:dim")
            y += 1
            for i, ad in enumerate(self.tables[: max(0, height - 8)]):
                where = f"{ad.addresses[0]}:{ad.port}" if ad.addresses else f"?:{ad.port}"
                row = f"{pad(clip(ad.table, 15), 15)} {pad(clip(ad.host, 9), 9)} " + (
                    f"{ad.free}/{ad.seats:<2} {'yes' if ad.code else '':<4} {clip(where, 21):<21} "
                    f"{short_id(ad.fingerprint)}" if ad.compatible
                    else f"another bandit-lan version (protocol {ad.proto})")
                mark = "▶ " if i == self.selected else "  "
                style = "class:select" if i == self.selected else "class:prompt" if ad.compatible else "class:dim"
                canvas.write(1, y, mark + clip(row, width - 3), style)
                y += 1
            y += 1
        if self.entry is not None:
            x = canvas.write(1, y, "Address (HOST:PORT): ", "class:prompt")
            x = canvas.write(x, y, self.entry, "class:prompt.key")
            canvas.write(x, y, "█", "class:dim")
            y += 2
        _note(canvas, y, self.note)
        if self.entry is not None:
            _footer(canvas, "{Enter} join this address · {Esc} back to the list")
        else:
            _footer(canvas, "{↑ ↓} choose · {Enter} join · {p} type an address · {Ctrl-C} quit")
        return canvas


@dataclass(frozen=True, slots=True)
class JoinScene:
    """A joiner's screen: reaching the host, the code if one is needed, the roster."""

    what: str
    host_line: str  # the host's fingerprint and how it was checked
    members: tuple[Seat, ...]
    seats: int
    state: str  # looking | connecting | code | waiting | starting
    entry: str = ""  # the table code being typed
    note: Note | None = None
    quitting: bool = False

    def draw(self, width: int, height: int) -> Canvas:
        canvas = Canvas(width, height)
        _title(canvas, f"Joining {self.what}")
        y = 2
        if self.host_line:
            for line in wrap(self.host_line, width - 2):
                canvas.write(1, y, line, "class:prompt")
                y += 1
            y += 1
        if self.state in ("looking", "connecting"):
            doing = "Looking for it on the LAN…" if self.state == "looking" else "Reaching the host…"
            canvas.write(1, y, doing, "class:dim")
            y += 2
        elif self.state == "code":
            canvas.write(1, y, "This table needs its code (ask the host; it never travels over the network).",
                         "class:prompt")
            x = canvas.write(1, y + 2, "Table code: ", "class:prompt")
            x = canvas.write(x, y + 2, "•" * len(self.entry), "class:prompt.key")
            canvas.write(x, y + 2, "█", "class:dim")
            y += 4
        else:
            canvas.write(1, y, f"{len(self.members)} of {self.seats} seats taken:", "class:prompt")
            # (once started, the seats still free are not played, as on the host's screen)
            y = _roster(canvas, y + 1, self.members, len(self.members) if self.state == "starting" else self.seats) + 1
            waiting = SIGNING_NOW if self.state == "starting" else \
                "Waiting for the table to fill or the host to start…"
            canvas.write(1, y, waiting, "class:dim")
            y += 2
        _note(canvas, y, self.note)
        if self.state == "code":
            _footer(canvas, "{Enter} join with this code · {Esc} give up")
        else:
            _footer(canvas, "{Ctrl-C} leave")
        if self.quitting:
            _ask_leave(canvas, "Leave this table?", "The game is about to begin: leaving stops it for everyone."
                       if self.state == "starting" else "You can join again while seats are free.")
        return canvas


@dataclass(frozen=True, slots=True)
class ReturnScene:
    """A seat whose program stopped as the seating was being signed, taken back (§11.3):
    what is known, while every member's signature is gathered again."""

    lines: tuple[str, ...]  # what the resume found (the game, how long ago, the port)
    wait_s: int  # how long the signatures are awaited at most
    quitting: bool = False
    leaving: bool = False  # the player gave the seat up: the others are being told

    def draw(self, width: int, height: int) -> Canvas:
        canvas = Canvas(width, height)
        _title(canvas, "Taking your seat back")
        y = 2
        for line in self.lines:
            for part in wrap(line, width - 2):
                canvas.write(1, y, part, "class:prompt")
                y += 1
            y += 1
        doing = ("Telling the other players that you gave your seat up…" if self.leaving else
                 f"Reaching the other players, who sign the seating again (up to {self.wait_s} s)…")
        for part in wrap(doing, width - 2):
            canvas.write(1, y, part, "class:dim")
            y += 1
        if not self.leaving:
            _footer(canvas, "{Ctrl-C} give up this seat")
        if self.quitting:
            _ask_leave(canvas, "Give up this seat?", "The others cannot play without you: giving up ends their game.")
        return canvas


def _starting(members: Sequence[Seat]) -> str:
    """The host's note once it asked to start: whom the start waits for, if anyone."""
    waiting = [s.name for s in members if s.linking or s.reconnecting]
    if not waiting:
        return SIGNING_NOW
    names = waiting[0] if len(waiting) == 1 else ", ".join(waiting[:-1]) + " and " + waiting[-1]
    return f"Starting once {names} {'holds' if len(waiting) == 1 else 'hold'} a link to every other player…"


def _ask_leave(canvas: Canvas, title: str, line: str) -> None:
    from cli.tui.dialog import draw_dialog

    # (wrapped to the box a narrow terminal leaves, rather than cut)
    draw_dialog(canvas, title, tuple(wrap(line, max(16, min(64, canvas.width - 6)))), "Enter/y: yes    Esc/n: no")
