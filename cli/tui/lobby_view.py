"""The lobby screens: tables on the LAN, the host's roster as it fills, joining.

Each screen is an immutable scene drawn to the terminal's size; the flows that fill
them in live in `cli.tui.lobby`. On a narrow terminal every line wraps (a roster's row
and a table's entry flow onto the next rows, the help bar takes two) rather than being
cut: what is there to be read or compared, a fingerprint, a key, stays whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cli.commands import this_program
from cli.lobby_common import OR, SIGNING_NOW
from cli.tui.canvas import Canvas, clip, pad, text_width, wrap
from cli.tui.marks import WORD, unmarked, write_marked
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


def _title(canvas: Canvas, text: str) -> int:
    """The title bar, on as many rows as `text` needs; returns the row under it."""
    lines = wrap(text, canvas.width - 2)
    for y, line in enumerate(lines):
        canvas.fill(0, y, canvas.width, "class:status")
        canvas.write(1, y, line, "class:status")
    return len(lines)


def _text(canvas: Canvas, x: int, y: int, text: str, style: str) -> int:
    """`text` from column `x` of row `y`, wrapped to the terminal; returns the row under it."""
    for line in wrap(text, canvas.width - x - 1):
        canvas.write(x, y, line, style)
        y += 1
    return y


def _commands(canvas: Canvas, y: int, hint: str) -> int:
    """The join commands of `hint` ("A   or   B") from row `y`, at column 3: on one row if
    it holds them, else each on rows of its own, "or" between them, so that none is broken
    but where a command alone is wider than a row (at its spaces, `wrap`); returns the row
    under them."""
    if text_width(hint) <= canvas.width - 4:
        return _text(canvas, 3, y, hint, "class:prompt.key")
    for i, command in enumerate(hint.split(OR)):
        if i:
            y = _text(canvas, 1, y, "or", "class:prompt")
        y = _text(canvas, 3, y, command, "class:prompt.key")
    return y


def _flow(canvas: Canvas, x: int, y: int, parts: Sequence[tuple[str, str]], indent: int) -> int:
    """(text, style) parts written one after the other from column `x` of row `y`; a part
    that does not fit goes on the next row, at `indent` (or column 3, if it fits only
    there), without its leading spaces, and is wrapped if no row holds it. Returns the
    row under them."""

    def fits(x: int, text: str) -> bool:
        return x + text_width(text.rstrip()) <= canvas.width - 1

    for i, (text, style) in enumerate(parts):
        if (i or x > indent) and not fits(x, text):
            text = text.lstrip()
            y, x = y + 1, indent if fits(indent, text) else min(indent, 3)
        lines = [text] if fits(x, text) else wrap(text, canvas.width - x - 1) or [text]  # (no room: clipped)
        for line in lines[:-1]:
            canvas.write(x, y, line, style)
            y, x = y + 1, indent
        x = canvas.write(x, y, lines[-1], style)
    return y + 1


def _help_rows(text: str, width: int) -> list[str]:
    """The help bar's `text` (items between " · ", keys {marked}) in rows of `width`: an
    item goes whole onto the next row, and one wider than a row is wrapped by its words."""
    rows: list[str] = []
    for item in text.split(" · "):
        if rows and text_width(unmarked(f"{rows[-1]} · {item}")) <= width:
            rows[-1] = f"{rows[-1]} · {item}"
            continue
        rows.append("")
        for word in WORD.findall(item):
            if rows[-1] and text_width(unmarked(f"{rows[-1]} {word}")) > width:
                rows.append("")
            rows[-1] = f"{rows[-1]} {word}".lstrip()
    return rows


def _footer(canvas: Canvas, text: str) -> None:
    """The help bar, on the last row, or on the last rows of a narrow terminal."""
    rows = _help_rows(text, canvas.width - 2)
    top = canvas.height - len(rows)
    for y, row in enumerate(rows, start=top):
        canvas.fill(0, y, canvas.width, "class:helpbar")
        write_marked(canvas, 1, y, row, "class:helpbar")


def _field(canvas: Canvas, y: int, label: str, typed: str) -> int:
    """A field being typed: `label`, what is typed and the cursor; on a terminal too
    narrow for all three, what is typed goes on the next row, showing its end (as a
    field scrolls). Returns the row under it."""
    if text_width(label + typed) + 3 <= canvas.width:
        x = canvas.write(1, y, label, "class:prompt")
    else:
        y, x = _text(canvas, 1, y, label.rstrip(), "class:prompt"), 3
    room = canvas.width - x - 2  # (the cursor and the margin)
    if text_width(typed) > room:
        typed = "…" + _tail(typed, room - 1)
    x = canvas.write(x, y, typed, "class:prompt.key")
    canvas.write(x, y, "█", "class:dim")
    return y + 1


def _tail(text: str, width: int) -> str:
    """The end of `text`, at most `width` columns of it."""
    out = ""
    for ch in reversed(text):
        if text_width(ch + out) > width:
            break
        out = ch + out
    return out


def _note(canvas: Canvas, y: int, note: Note | None) -> int:
    if note is None:
        return y
    return _text(canvas, 1, y, note.text, f"class:message.{note.kind}")


def _roster(canvas: Canvas, y: int, seats: Sequence[Seat], total: int) -> int:
    """The seats, one row each, their seat, name and fingerprint in columns; on a narrow
    terminal a seat's row flows on under its name: its status first (the columns still
    line up), then, where even they do not fit, its fingerprint (each name unpadded)."""
    width = max([4] + [text_width(s.name) for s in seats])
    rows = [_seat_parts(index, next((s for s in seats if s.seat == index), None), width) for index in range(total)]
    if any(3 + sum(text_width(text) for text, _ in parts[:3]) > canvas.width - 1 for parts in rows):
        rows = [[(text.rstrip() if i == 1 else text, style) for i, (text, style) in enumerate(parts)] for parts in rows]
    for parts in rows:
        y = _flow(canvas, 3, y, parts, 3 + text_width(parts[0][0]))  # (on under the name)
    return y


def _seat_parts(index: int, seat: Seat | None, width: int) -> list[tuple[str, str]]:
    """A roster row as (text, style) parts: the seat, the name padded to `width`, the
    short fingerprint, the tags and how the seat stands."""
    if seat is None:
        return [(f"seat {index + 1}  (free)", "class:dim")]
    tags = " ".join(t for t, on in (("host", seat.host), ("you", seat.you)) if on)
    if seat.reconnecting:
        status, style = f"{tags}  … reconnecting".strip(), "class:message.warning"
    elif seat.linking:
        status, style = f"{tags}  … linking with the others".strip(), "class:dim"
    else:
        status, style = f"{tags}  ✓ seated".strip(), "class:good"
    return [(f"seat {index + 1}  ", "class:dim"), (pad(seat.name, width), "class:seat.me" if seat.you else "class:seat"),
            (f"  {seat.short}", "class:dim"), (f"  {status}", style)]


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
    turned_away: Note | None = None  # the latest joiner turned away: another release, a wrong code, a name taken (§6.4)
    quitting: bool = False
    quit_again: bool = False  # Ctrl-C was pressed at that question (which it does not answer)

    def draw(self, width: int, height: int) -> Canvas:
        canvas = Canvas(width, height)
        taken = len(self.members)
        y = _title(canvas, f'Hosting "{self.table}" — {taken} of {self.seats} seats taken') + 1
        y = _text(canvas, 1, y, "Others join with:", "class:prompt")
        y = _commands(canvas, y, self.join_hint) + 1
        y = _text(canvas, 1, y, f"Your fingerprint: {self.fingerprint}", "class:prompt")
        y = _text(canvas, 3, y, "players who joined by address compare it with this screen", "class:dim")
        y = _text(canvas, 1, y, "A table code is required." if self.code else "No table code: anyone on the LAN may sit.",
                  "class:dim") + 1
        # (once started, the seats still free are not played: the seating signed is the one shown)
        y = _roster(canvas, y, self.members, len(self.members) if self.starting else self.seats) + 1
        if self.starting:
            y = _note(canvas, y, Note(_starting(self.members)))
        y = _note(canvas, y, self.note)
        y = _note(canvas, y, self.turned_away)
        if self.quitting:
            _ask_leave(canvas, "Close the table?", "The game is about to begin: closing stops it for everyone."
                       if self.starting else "Players seated so far will be told.", self.quit_again)
        elif self.starting:
            _footer(canvas, "{Ctrl-C} close the table")
        elif taken >= 2:
            _footer(canvas, f"{{Enter}} start now with {taken} players · {{Ctrl-C}} close the table")
        else:
            _footer(canvas, "Waiting for players (a game needs at least 2) · {Ctrl-C} close the table")
        return canvas


_TABLE_ROW = 80
"""The columns a row of the list of tables needs (77, from column 3): on a narrower
terminal each table takes two rows or more (`BrowseScene._entries`)."""


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
        y = _title(canvas, "Tables on this network" + (" — looking…" if self.looking else "")) + 1
        if not self.tables:
            y = _ask_for_a_table(canvas, y) + 1
        elif width < _TABLE_ROW:
            y = self._entries(canvas, y) + 1
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
            y = _field(canvas, y, "Address (HOST:PORT): ", self.entry) + 1
        _note(canvas, y, self.note)
        if self.entry is not None:
            _footer(canvas, "{Enter} join this address · {Esc} back to the list")
        else:
            _footer(canvas, "{↑ ↓} choose · {Enter} join · {p} type an address · {Ctrl-C} quit")
        return canvas

    def _entries(self, canvas: Canvas, y: int) -> int:
        """The tables on a terminal too narrow for the columns: each table on a row (its
        name, host, free seats, code), its address and fingerprint flowing on under it."""
        for i, ad in enumerate(self.tables[: max(0, (canvas.height - 8) // 2)]):
            style = "class:select" if i == self.selected else "class:prompt" if ad.compatible else "class:dim"
            mark = "▶ " if i == self.selected else "  "
            head = [(f"{mark}{ad.table}", style), (f"  {ad.host}", style)]
            if not ad.compatible:
                tail = [(f"another bandit-lan version (protocol {ad.proto})", style)]
            else:
                where = f"{ad.addresses[0]}:{ad.port}" if ad.addresses else f"?:{ad.port}"
                head += [(f"  {ad.free}/{ad.seats}", style)] + ([("  code", style)] if ad.code else [])
                tail = [(where, style), (f"  {short_id(ad.fingerprint)}", style)]
            y = _flow(canvas, 1, y, head, 3)
            y = _flow(canvas, 3, y, tail, 3)
        return y


def _ask_for_a_table(canvas: Canvas, y: int) -> int:
    """What to do while no table is listed: ask a host to start one, with the command as
    this program was started (`this_program`), on a row of its own where the sentence
    does not fit on one row (`_commands`: not broken between its words)."""
    command = f"{this_program()} host"
    asked = f"No table with a free seat yet. Ask the host to run `{command}`."
    if text_width(asked) <= canvas.width - 4:
        return _text(canvas, 3, y, asked, "class:dim")
    return _commands(canvas, _text(canvas, 3, y, "No table with a free seat yet. Ask the host to run:", "class:dim"),
                     command)


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
    quit_again: bool = False  # Ctrl-C was pressed at that question (which it does not answer)

    def draw(self, width: int, height: int) -> Canvas:
        canvas = Canvas(width, height)
        y = _title(canvas, f"Joining {self.what}") + 1
        if self.host_line:
            y = _text(canvas, 1, y, self.host_line, "class:prompt") + 1
        if self.state in ("looking", "connecting"):
            doing = "Looking for it on the LAN…" if self.state == "looking" else "Reaching the host…"
            y = _text(canvas, 1, y, doing, "class:dim") + 1
        elif self.state == "code":
            y = _text(canvas, 1, y, "This table needs its code (ask the host; it never travels over the network).",
                      "class:prompt") + 1
            y = _field(canvas, y, "Table code: ", "•" * len(self.entry)) + 1
        else:
            y = _text(canvas, 1, y, f"{len(self.members)} of {self.seats} seats taken:", "class:prompt")
            # (once started, the seats still free are not played, as on the host's screen)
            y = _roster(canvas, y, self.members, len(self.members) if self.state == "starting" else self.seats) + 1
            waiting = SIGNING_NOW if self.state == "starting" else \
                "Waiting for the table to fill or the host to start…"
            y = _text(canvas, 1, y, waiting, "class:dim") + 1
        _note(canvas, y, self.note)
        if self.quitting:
            _ask_leave(canvas, "Leave this table?", "The game is about to begin: leaving stops it for everyone."
                       if self.state == "starting" else "You can join again while seats are free.", self.quit_again)
        elif self.state == "code":
            _footer(canvas, "{Enter} join with this code · {Esc} give up")
        else:
            _footer(canvas, "{Ctrl-C} leave")
        return canvas


@dataclass(frozen=True, slots=True)
class ReturnScene:
    """A seat whose program stopped as the seating was being signed, taken back (§11.3):
    what is known, while every member's signature is gathered again."""

    lines: tuple[str, ...]  # what the resume found (the game, how long ago, the port)
    wait_s: int  # how long the signatures are awaited at most
    quitting: bool = False
    quit_again: bool = False  # Ctrl-C was pressed at that question (which it does not answer)
    leaving: bool = False  # the player gave the seat up: the others are being told

    def draw(self, width: int, height: int) -> Canvas:
        canvas = Canvas(width, height)
        y = _title(canvas, "Taking your seat back") + 1
        for line in self.lines:
            y = _text(canvas, 1, y, line, "class:prompt") + 1
        doing = ("Telling the other players that you gave your seat up…" if self.leaving else
                 f"Reaching the other players, who sign the seating again (up to {self.wait_s} s)…")
        _text(canvas, 1, y, doing, "class:dim")
        if self.quitting:
            _ask_leave(canvas, "Give up this seat?", "The others cannot play without you: giving up ends their game.",
                       self.quit_again)
        elif not self.leaving:
            _footer(canvas, "{Ctrl-C} give up this seat")
        return canvas


def _starting(members: Sequence[Seat]) -> str:
    """The host's note once it asked to start: whom the start waits for, if anyone."""
    waiting = [s.name for s in members if s.linking or s.reconnecting]
    if not waiting:
        return SIGNING_NOW
    names = waiting[0] if len(waiting) == 1 else ", ".join(waiting[:-1]) + " and " + waiting[-1]
    return f"Starting once {names} {'holds' if len(waiting) == 1 else 'hold'} a link to every other player…"


def _ask_leave(canvas: Canvas, title: str, line: str, again: bool) -> None:
    """The leave question `title`, saying `line`, over the screen, and the keys that
    answer it as the help bar (the screen's own keys wait for the answer); `again`:
    Ctrl-C was pressed at it, and the question says that it does not answer."""
    from cli.tui.dialog import LEAVE_AGAIN, answer_keys, draw_dialog

    box, bar = answer_keys("yes", "no")
    _footer(canvas, bar)
    width = max(16, min(64, canvas.width - 6))  # (wrapped to the box a narrow terminal leaves, rather than cut)
    lines = [*wrap(line, width), *(["", *wrap(LEAVE_AGAIN, width)] if again else [])]
    draw_dialog(canvas, title, lines, box)
