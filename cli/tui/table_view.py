"""The table screen: every tableau around the table, the piles, the prompt and the log.

Layout (80×24 and up; extra rows go to the log, extra columns spread the seats)::

    row 0      status: round, whose turn and its timer, Bandit and final turns
    rows 2-4   opponents across the table (two or three at 5-6 players), each near its share
               of the width, pushed aside by a wide one; rows 1-5 where one too wide even
               compact goes on in a second row of cards under itself (`across`)
    rows 6-8   the opponent on your left | draw pile, discard pile, drawn card | on your right
               (the piles one under the other, or beside your tableau, where side tableaux
               wide with penalty columns leave them no room in a row, with a clear gap)
    rows 10-12 your tableau, with the slot keys beside the cards
    row 13     the prompt: what you can do now, or what a half-typed action needs
    row 14     what must be read at once with the prompt, while it lasts: a message said
               during a half-typed action, or the look at your bottom cards during your
               turn or under a message (the log gives up its top row meanwhile, so neither
               hides the other; and a row more for a line too long for one, `PROMPT_ROWS`)
    rows 14-   the table log, newest last
    last row   the help bar

Opponents sit clockwise from your left (R5: play goes clockwise); the number by each
name is the key that chooses them. Their names are shown whole (up to 24 characters, §6.4)
where the table has room for them, and are shortened to 12 columns where it has not
(`name_width`); fewer only across the table, as the last resort of `across`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from engine import Phase, Power, final_turn_seats
from engine.narrate import card_words, listed, power_words
from engine.phases import TURN_PHASES
from cli.tui.canvas import Canvas, clip, text_width, wrap
from cli.tui.cards import CardCell, Shown, card_width, hidden_cell, tableau_cell, value_cell
from cli.tui.keymap import HELP_BAR, MOVES_WAIT_BAR, opponent_keys, slot_key, slot_position
from cli.tui.log_view import LOG_TOP, draw_log
from cli.tui.marks import literal, unmarked, write_marked
from cli.tui.model import TableModel
from cli.tui.seat_names import NAME_COLUMNS, name_columns
from cli.tui.table_ui import (LOOKED_CARD_LEFT, SLOW_MOVE, Pending, TableScene, on_its_way, reaching_after_stop,
                              snap_turn)

TOP, MIDDLE, BOTTOM = 2, 6, 10
PROMPT_ROW = LOG_TOP - 1


@dataclass(frozen=True, slots=True)
class Places:
    """Where the opponents sit, as positions clockwise from me (1 = my left)."""

    top: tuple[int, ...]
    left: int | None
    right: int | None


def places(players: int) -> Places:
    opponents = tuple(range(1, players))
    if players <= 3:
        return Places(opponents, None, None)
    return Places(opponents[1:-1], opponents[0], opponents[-1])


ACROSS_GAP: Final = 4
"""Columns kept clear between two tableaux across the table, as between a side tableau and
the piles (`PILE_GAP`): a card never reads as one more card of the tableau beside it."""

BANDS: Final = 2
"""Rows of cards, two each, a tableau across the table may take (moving its row up into
the blank row under the status bar): the room above the middle row."""


@dataclass(frozen=True, slots=True)
class Across:
    """How the opponents across the table are drawn (`across`): compact (no slot keys) or
    not, the columns of each one's cards in a row (those past them go on in a row of cards
    under them, `BANDS`), the columns of their names and where each begins."""

    compact: bool
    shown: tuple[int, ...]
    names: int
    xs: tuple[int, ...]
    y: int


def across(scene: TableScene, seats: Sequence[int], width: int, names: int = NAME_COLUMNS) -> Across:
    """The opponents across the table (`seats`, left to right) in `width` columns, never
    one over another nor past the edge: with their slot keys if all fit so, else compact;
    a tableau still too wide (R6: penalty columns) goes on in a row of cards under itself,
    the widest first (the row moves up a row for it), as the round screen does; as a last
    resort their names, of `names` columns at most (`name_width`), give way. Each sits
    near its share of the width, pushed aside as the others' room asks."""
    columns = [_columns(scene, seat) for seat in seats]

    def boxes(compact: bool, shown: Sequence[int], names: int) -> list[int]:
        return [_box_width(scene, seat, compact, n, names) for seat, n in zip(seats, shown, strict=True)]

    def over(compact: bool, shown: Sequence[int], names: int) -> int:
        return sum(boxes(compact, shown, names)) + ACROSS_GAP * (len(seats) - 1) - width

    compact = over(False, columns, names) > 0
    shown = list(columns)
    for i in sorted(range(len(seats)), key=lambda i: -columns[i]):  # (the widest first)
        header = _header_width(scene, seats[i], names)  # (cards no wider than their header: the names give way)
        while compact and over(True, shown, names) > 0 and shown[i] > 2 and _cards_width(scene, seats[i], shown[i]) > header:
            shown[i] -= 1
        if (bands := -(-columns[i] // shown[i])) <= BANDS:  # (as many cards in each row as it can)
            shown[i] = -(-columns[i] // bands)
    while names > 4 and over(compact, shown, names) > 0:
        names -= 1
    return Across(compact, tuple(shown), names, _spread(boxes(compact, shown, names), width),
                  TOP - 1 if shown != columns else TOP)


def _spread(boxes: Sequence[int], width: int) -> tuple[int, ...]:
    """Where boxes of `boxes` columns begin, each centred on its share of `width` where it
    can be, else pushed aside, `ACROSS_GAP` apart."""
    count = len(boxes)
    xs = [min(max(0, width * (i + 1) // (count + 1) - box // 2), max(0, width - box)) for i, box in enumerate(boxes)]
    for i in range(1, count):  # (clear of the one on its left)
        xs[i] = max(xs[i], xs[i - 1] + boxes[i - 1] + ACROSS_GAP)
    for i in reversed(range(count)):  # (clear of the edge and of the one on its right)
        xs[i] = max(0, min(xs[i], (width if i == count - 1 else xs[i + 1] - ACROSS_GAP) - boxes[i]))
    return tuple(xs)


@dataclass(frozen=True, slots=True)
class Middle:
    """How the middle row is drawn (`middle`): the side tableaux compact or not, where the
    one on my left ends and the one on my right starts, the columns the piles may lie in
    (from `clear` to `x1`), and how they lie there: 2 side by side, 1 stacked, 0 not at
    all (beside my tableau)."""

    compact: bool
    left_end: int
    right_start: int
    clear: int
    x1: int
    piles: int

    def pile_column(self, scene: TableScene) -> int | None:
        """The columns of each pile where they lie side by side (`_piles`)."""
        return _pile_column(scene, self.x1 - self.left_end - 2) if self.piles == 2 else None


def middle(scene: TableScene, width: int, compact: bool, names: int = NAME_COLUMNS, marks: bool = True) -> Middle:
    """The middle row in `width` columns: the piles between the tableaux on my left and
    right (their names in `names` columns at most), a clear gap after the left one's cards
    (the drawn card's column ends in blank room: 2 columns suffice on the right); the side
    tableaux `compact` as those across the table are, or compact to leave the piles room,
    the piles stacked, or beside my tableau, as room asks (their headers' `marks` counted,
    or not: `name_width`)."""
    left, right = _beside(scene)
    for side_compact in dict.fromkeys((compact, True)):
        left_end, right_start = _sides(scene, left, right, width, side_compact, names, marks)
        clear = left_end + (2 if left is None else PILE_GAP)  # (where the piles may start)
        x1 = right_start - 2
        if (piles := _piles_room(scene, x1 - clear)):
            break
    return Middle(side_compact, left_end, right_start, clear, x1, piles)


def _beside(scene: TableScene) -> tuple[int | None, int | None]:
    """The seats on my left and on my right, where someone sits there (4 players or more)."""
    model = scene.model
    where = places(model.players)
    return (None if where.left is None else model.opponent(where.left),
            None if where.right is None else model.opponent(where.right))


def name_width(scene: TableScene, seats: Sequence[int], width: int) -> int:
    """The columns of the opponents' names on a table `width` wide (`name_columns`), the
    same for every one of them: more than `NAME_COLUMNS` only as far as nothing else gives
    way for them. The tableaux across the table (`seats`) are drawn as they would be (with
    their slot keys or compact, in as many rows of cards, their names not giving way), and
    none takes more than its share of the row for its name; the side tableaux are drawn as
    they would be, and the piles lie as they would, in columns as wide (where they have no
    room between the side tableaux, those keep `PILE_GAP` apart). A tableau's share and the
    piles' columns are measured without the marks that come and go in the headers (" +card",
    " BANDIT", "(away)", `_header`): a name keeps its width while one is shown, unless a
    tableau would be drawn compact or the piles lie elsewhere for it."""
    model = scene.model
    least = across(scene, seats, width)
    share = width // (len(seats) + 1) - ACROSS_GAP  # (the room between two seats' places, less the gap)
    least_marked, least_plain = (middle(scene, width, least.compact, marks=marks) for marks in (True, False))

    def room(names: int) -> bool:
        top = across(scene, seats, width, names)
        if (top.compact, top.shown, top.names) != (least.compact, least.shown, names):
            return False  # (compact, in more rows of cards, or other names giving way, for a name)
        if any(_box_width(scene, seat, least.compact, n, names, marks=False)
               > max(share, _box_width(scene, seat, least.compact, n, marks=False))
               for seat, n in zip(seats, least.shown, strict=True)):
            return False  # (more than its share of the row)
        marked, plain = (middle(scene, width, least.compact, names, marks) for marks in (True, False))
        if (marked.compact, marked.piles) != (least_marked.compact, least_marked.piles):
            return False  # (side tableaux compact, or the piles out of their place)
        if (plain.compact, plain.piles, plain.pile_column(scene)) != (
                least_plain.compact, least_plain.piles, least_plain.pile_column(scene)):
            return False  # (the piles in narrower columns)
        apart = marked.right_start - marked.left_end  # (no piles between the side tableaux: kept apart)
        return marked.piles > 0 or apart >= min(PILE_GAP, least_marked.right_start - least_marked.left_end)

    return name_columns([model.name(s) for s in range(model.players) if s != model.me], room)


def draw_table(canvas: Canvas, scene: TableScene) -> None:
    model = scene.model
    width, height = canvas.width, canvas.height
    _status(canvas, scene)
    where = places(model.players)
    seats = [seat for position in where.top if (seat := model.opponent(position)) is not None]
    names = name_width(scene, seats, width)
    top = across(scene, seats, width, names)
    for seat, x, shown in zip(seats, top.xs, top.shown, strict=True):  # (opponents across the table)
        _tableau(canvas, scene, seat, x, top.y, top.compact, shown, top.names)
    left, right = _beside(scene)
    row = middle(scene, width, top.compact, names)
    if left is not None:
        _tableau(canvas, scene, left, 1, MIDDLE, row.compact, names=names)
    if right is not None:
        _tableau(canvas, scene, right, row.right_start, MIDDLE, row.compact, names=names)
    box = _box_width(scene, model.me, False)
    mine = max(0, (width - box) // 2)
    _tableau(canvas, scene, model.me, mine, BOTTOM, False)
    if row.piles == 2:
        _piles(canvas, scene, row.left_end + 2, row.x1, row.clear)
    elif row.piles == 1:
        _stacked_piles(canvas, scene, row.clear, row.x1 + 2 - PILE_GAP, MIDDLE)
    else:  # (no room between them even so: beside my tableau, keeping the gap)
        x0 = mine - PILE_GAP - STACKED_PILES if mine - PILE_GAP - STACKED_PILES >= 1 else mine + box + PILE_GAP
        _stacked_piles(canvas, scene, x0, x0 + STACKED_PILES, BOTTOM)
    log_top = _prompt(canvas, scene, PROMPT_ROW)
    draw_log(canvas, model.lines, scene.log_scroll, log_top, height - 1)
    canvas.fill(0, height - 1, width, "class:helpbar")
    bar = HELP_BAR if model.stopped_past_grace is None else MOVES_WAIT_BAR  # (§11.3: no move key plays then)
    canvas.write(1, height - 1, clip(bar, width - 2), "class:helpbar")


# --- status bar ---------------------------------------------------------------------------


def clock(seconds: float | None) -> str:
    if seconds is None:
        return ""
    whole = int(seconds + 0.999)
    return f"{whole // 60}:{whole % 60:02d}"


def your_turn_left(model: TableModel) -> str | None:
    """"It is your turn: 0:42 left.", while this seat's turn runs (R5: when its time runs
    out, a card is discarded for the player), said where the table is not on screen."""
    left = model.remaining(model.turn_deadline)
    if model.view.turn_seat != model.me or model.view.phase not in TURN_PHASES or model.ended:
        return None
    return "It is your turn." if left is None else f"It is your turn: {clock(left)} left."


_CLOCK_UNKNOWN: Final = "time left unknown"
"""A timer that began before this seat restarted (§11.3): the others' clocks know how long
ago; a countdown from the restart would promise time the player does not have."""


def _status(canvas: Canvas, scene: TableScene) -> None:
    model = scene.model
    view = model.view
    canvas.fill(0, 0, canvas.width, "class:status")
    parts: list[tuple[str, str]] = [(f" Round {max(view.round, 1)}", "class:status")]
    named: int | None = None  # the part that names whose turn it is
    said, owns = "", ""  # (how that part begins: its name, as said in `width` columns by `saying`, and its "'s")

    def saying(seat: int, width: int) -> tuple[str, str]:  # (the possessive on the name: `TableModel.owner`)
        return (model.short_name(seat, width), "") if seat in model.gone else model.owner(seat, width)

    phase = view.phase
    if phase is Phase.PEEK:
        parts.append(("looking at the bottom cards", "class:status"))
        left = model.remaining(model.peek_deadline)
        if left is not None:
            parts.append((f"first turn in {clock(left)}", "class:status"))
        elif model.clock_unknown:
            parts.append((_CLOCK_UNKNOWN, "class:status"))
    elif view.turn_seat in model.gone:  # (its turn will not be played: the game ends at its leave, §9.8)
        named, (said, owns) = len(parts), saying(view.turn_seat, text_width(model.name(view.turn_seat)))
        parts.append((f"{said} left the table", "class:status"))
    elif view.turn_seat is not None:
        left = model.remaining(model.turn_deadline)
        when = f" {clock(left)}" if left is not None else f" ({_CLOCK_UNKNOWN})" if model.clock_unknown else ""
        if view.turn_seat == model.me:
            parts.append((f"Your turn{when}", "class:status.alert"))
        else:
            named = len(parts)  # (a long name gives way, to NAME_COLUMNS but for "? help": `fitted`)
            said, owns = saying(view.turn_seat, text_width(model.name(view.turn_seat)))
            parts.append((f"{said}{owns} turn{when}", "class:status"))
    elif phase is Phase.REVEAL:
        parts.append(("the round is over: turning every card", "class:status"))
    elif phase is Phase.OVER:
        parts.append(("the game is over", "class:status"))
    bandit: int | None = None  # the part that tells the Bandit call (its names give way to a count)
    if view.caller is not None:
        bandit = len(parts)
        parts.append((_bandit(scene, named=True), "class:status.alert"))
    waited: int | None = None  # the part that names the players waited for (their names give way to a count)
    left = model.remaining(model.grace_deadline)  # (the game ends then unless they are back, §11.3)
    until = ""
    if model.waiting_for:
        # (after its own stop, or resumed, this seat re-makes the links missing: nobody else is away, §11.3)
        after = model.reconnecting_after
        if left is not None:  # (what the clock counts: the others' wait, or this seat's time to be back)
            until = f" (game ends in {clock(left)})" if after is None else f" ({clock(left)} to get back)"
        if after is None:
            waited = len(parts)
        names = ", ".join(model.name(s) for s in model.waiting_for)
        waiting = f"waiting for {names}" if after is None else f"reconnecting after {after}"
        parts.append((waiting + until, "class:status.alert"))
    target = view.target  # (R1: a total reaching it ends the game, and the lowest total wins)
    rights = (f"game ends at {target} · lowest total wins · ? help ", f"ends at {target} · lowest wins · ? help ",
              f"ends at {target} · ? help ", "? help ")

    def over(parts: Sequence[tuple[str, str]], right: str) -> int:
        return sum(text_width(t) for t, _ in parts) + 3 * (len(parts) - 1) + text_width(right) + 2 - canvas.width

    # (what the table is doing gives way for "? help" only; then what is shown is decided first,
    # and only what must be is cut: `fitted`)
    help_only = rights[-1]
    if waited is not None and over(parts, help_only) > 0:
        parts[waited] = (f"waiting for {', '.join(model.said_name(s) for s in model.waiting_for)}{until}",
                         parts[waited][1])
    if waited is not None and over(parts, help_only) > 0 and len(model.waiting_for) > 1:  # (their headers say "(away)")
        parts[waited] = (f"waiting for {len(model.waiting_for)} players{until}", parts[waited][1])
    unnamed = bandit is not None and over(parts, help_only) > 0
    if unnamed:
        parts[bandit] = (_bandit(scene, named=False), parts[bandit][1])

    def fitted(right: str, floor: int | None) -> list[tuple[str, str]]:
        """`parts` with the names in them cut as far as `right` asks, to `floor` columns at
        least (None: whole), the turn's name first."""
        out = list(parts)
        excess = over(out, right)
        if floor is not None and excess > 0 and named is not None and view.turn_seat is not None:
            text, style = out[named]
            grows = text_width(saying(view.turn_seat, text_width(said) - 1)[1]) - text_width(owns)  # (Mum's: Mu…'s)
            if (cut := min(excess + grows, text_width(said) - floor)) > 0:
                out[named] = ("".join(saying(view.turn_seat, text_width(said) - cut)) + text[len(said + owns):], style)
                excess = over(out, right)
        if floor is not None and excess > 0 and unnamed and bandit is not None and view.caller != model.me:
            if (cut := min(excess, text_width(model.name(view.caller)) - floor)) > 0:
                out[bandit] = (_bandit(scene, named=False, cut=cut), out[bandit][1])
        return out

    # (names whole with as many of the goal's words as fit; a name over NAME_COLUMNS gives way for
    # the target, never below it but for "? help"; what even so does not fit ends in …, at the edge)
    tries = [*((right, None) for right in rights[:-1]), (rights[-2], NAME_COLUMNS),
             (help_only, None), (help_only, NAME_COLUMNS), (help_only, 4)]
    for right, floor in tries:
        if over(shown := fitted(right, floor), right) <= 0:
            break
    parts = shown
    x = 0
    for i, (text, style) in enumerate(parts):  # (what even so does not fit ends in …, at the edge)
        if i:
            x = canvas.write(x, 0, clip(" · ", canvas.width - x, ""), "class:status")
        x = canvas.write(x, 0, clip(text, max(0, canvas.width - x)), style)
    right = next((r for r in rights if x + text_width(r) + 2 <= canvas.width), "")  # (the most that fits now)
    canvas.write(canvas.width - text_width(right), 0, right, "class:status")


def _bandit(scene: TableScene, named: bool, cut: int = 0) -> str:
    """Who announced Bandit and the final turns still to play (R8): whose they are, or
    (`named` False, for a narrow status bar) how many, the caller's name `cut` columns
    shorter."""
    model = scene.model
    view = model.view
    assert view.caller is not None
    who = "you" if view.caller == model.me else model.name(view.caller)
    if cut:
        who = model.short_name(view.caller, max(4, text_width(who) - cut))
    finals = final_turn_seats(view.caller, model.players)
    left = len(finals) if view.final_turns_left is None else view.final_turns_left
    plural = "s" if left != 1 else ""
    if not named or left == 0:
        return f"Bandit by {who}" + ("" if view.final_turns_left is None else f", {left} final turn{plural} left")
    names = ", ".join("you" if s == model.me else model.name(s) for s in finals[len(finals) - left:])
    return f"Bandit by {who}, final turn{plural}: {names}"


# --- tableaus -----------------------------------------------------------------------------


def _columns(scene: TableScene, seat: int) -> int:
    slots = scene.model.slots(seat)
    return max([2] + [slot_position(s)[0] + 1 for s in range(len(slots))])


def _key_width(scene: TableScene, seat: int) -> int:
    """Room for the keys of `seat`'s slots beside its cards: "q", or "vq" once a
    column lies beyond the keyboard's five (every column of the tableau gets as much)."""
    return max([1] + [len(slot_key(s)) for s in range(len(scene.model.slots(seat)))])


def _cell_width(scene: TableScene, seat: int, compact: bool) -> int:
    """A card column: slot keys, card, gap (no key column when compact)."""
    return card_width(scene.model.skills) + 1 + (0 if compact else _key_width(scene, seat))


def _header(scene: TableScene, seat: int, names: int = NAME_COLUMNS) -> list[tuple[str, str]]:
    """The name over `seat`'s tableau (in at most `names` columns) and what it tells: its
    turn tag, key and name, and total, then the marks that come and go."""
    model = scene.model
    view = model.view
    me = seat == model.me
    turn = view.turn_seat == seat
    name = "You" if me else model.short_name(seat, names)
    label = name if me else f"{model.position(seat)} {name}"
    style = "class:seat.turn" if turn else ("class:seat.me" if me else "class:seat")
    if _targeted(scene.pending, seat, me):
        style += " class:select"
    out = [("▶" if turn else " ", "class:seat.tag"), (label, style), (f" {view.totals[seat]}", "class:dim")]
    if view.caller == seat:
        out.append((" BANDIT", "class:seat.tag"))
    if view.phase is Phase.PEEK:
        out.append((" ✓" if view.ready[seat] else " …", "class:dim"))
    if view.hand is not None and turn and view.phase is Phase.DRAWN:
        out.append((" +card", "class:dim"))
    if seat in model.waiting_for and model.reconnecting_after is None:
        out.append((" (away)", "class:seat.away"))
    elif seat in model.gone:
        out.append((" (left)", "class:seat.away"))
    return out


def _targeted(pending: Pending | None, seat: int, me: bool) -> bool:
    if pending is None:
        return False
    if me:
        return pending.own is None and pending.action != "spy" and (pending.seat is None or pending.slot is not None)
    return pending.seat == seat and pending.slot is None


def _box_width(scene: TableScene, seat: int, compact: bool, shown: int | None = None,
               names: int = NAME_COLUMNS, marks: bool = True) -> int:
    """Columns `seat`'s tableau takes, `shown` columns of cards in a row (all if None):
    with one more for the "…" that ends its last row when more than `BANDS` rows of
    cards would not hold them (its header's `marks` counted, or not: `_header_width`)."""
    return max(_cards_width(scene, seat, shown, compact), _header_width(scene, seat, names, marks))


def _cards_width(scene: TableScene, seat: int, shown: int | None = None, compact: bool = True) -> int:
    """Columns `seat`'s cards take, `shown` in a row (`_box_width`)."""
    columns = _columns(scene, seat)
    shown = columns if shown is None else shown
    return min(columns, shown) * _cell_width(scene, seat, compact) - 1 + (columns > BANDS * shown)


def _header_width(scene: TableScene, seat: int, names: int = NAME_COLUMNS, marks: bool = True) -> int:
    """Columns of `seat`'s header, with or without the `marks` that come and go (`_header`:
    its turn tag, key and name, and total come first)."""
    return sum(text_width(t) for t, _ in _header(scene, seat, names)[:None if marks else 3])


def _tableau(canvas: Canvas, scene: TableScene, seat: int, x: int, y: int, compact: bool, shown: int | None = None,
             names: int = NAME_COLUMNS) -> None:
    """`seat`'s tableau from (`x`, `y`): its header, then its cards, `shown` columns in a
    row (all if None), those past them in rows under them (`BANDS` at most, the last
    ending in "…" if more would not hold them)."""
    model = scene.model
    me = seat == model.me
    hx = x
    for text, style in _header(scene, seat, names):
        hx = canvas.write(hx, y, text, style)
    keys_on = me or _targeted(scene.pending, seat, me) or (scene.pending is not None and scene.pending.seat == seat)
    target = _targeted(scene.pending, seat, me)
    step = _cell_width(scene, seat, compact)
    key_width = _key_width(scene, seat)
    skills = model.skills
    slots = model.slots(seat)
    shown = _columns(scene, seat) if shown is None else shown
    left_out = False
    for slot in range(max(4, len(slots))):
        band, column = divmod(slot_position(slot)[0], shown)
        row = 2 * band + slot_position(slot)[1]
        cx = x + column * step
        card = slots[slot] if slot < len(slots) else None
        if slot >= len(slots) and slot >= 4:
            continue
        if band >= BANDS:  # (no room for it: the last row ends in …, once)
            left_out = True
            continue
        if not compact:
            if keys_on:
                key = slot_key(slot)
                canvas.write(cx + key_width - len(key), y + 1 + row, key,
                             "class:slotkey.target" if target else "class:slotkey")
            cx += key_width
        cell = tableau_cell(skills, card, shown=card is not None and card.card in scene.shown,
                            memory_aid=scene.memory_aid)
        if card is not None and _chosen(scene.pending, seat, slot, me):
            cell = CardCell(cell.text, cell.style + " class:card.target")
        canvas.write(cx, y + 1 + row, cell.text, cell.style)
    if left_out:
        canvas.write(x + shown * step - 1, y + 2 * BANDS, "…", "class:dim")


def _chosen(pending: Pending | None, seat: int, slot: int, me: bool) -> bool:
    if pending is None:
        return False
    if me:
        return pending.own == slot
    return pending.seat == seat and pending.slot == slot


# --- piles --------------------------------------------------------------------------------

PILE_GAP: Final = 4
"""Columns kept clear between a side tableau and the piles: twice the gap between two
cards of a tableau, so that a pile never reads as one more card of the tableau beside it."""

STACKED_PILES: Final = 18
"""Columns the piles take stacked, one under the other ("draw pile [░░] 50")."""


def _sides(scene: TableScene, left: int | None, right: int | None, width: int, compact: bool,
           names: int, marks: bool = True) -> tuple[int, int]:
    """Where the tableau on my left ends and the one on my right starts, drawn `compact` or
    not, their names in `names` columns at most (their headers' `marks` counted, or not)."""
    left_end = 1 if left is None else 1 + _box_width(scene, left, compact, names=names, marks=marks)
    right_start = width - 1
    if right is not None:
        right_start = max(left_end + 2, width - 1 - _box_width(scene, right, compact, names=names, marks=marks))
    return left_end, right_start


def _piles_room(scene: TableScene, room: int) -> int:
    """How the piles lie in `room` columns of the middle row: 2 side by side, 1 stacked,
    0 not at all (beside my tableau)."""
    return 2 if room >= _piles_width(scene) else 1 if room >= STACKED_PILES + PILE_GAP - 2 else 0


def _piles_width(scene: TableScene) -> int:
    """Columns the piles take side by side: draw pile, discard and the drawn card."""
    return 3 * (card_width(scene.model.skills) + 6)


def _top_cell(scene: TableScene, face: int) -> CardCell:
    """The discard pile's top card, marked while a snap names it (R6)."""
    cell = value_cell(scene.model.skills, face, Shown.FACE_UP)
    if scene.pending is not None and scene.pending.action == "snap":
        return CardCell(cell.text, cell.style + " class:card.target")
    return cell


def _stacked_piles(canvas: Canvas, scene: TableScene, x0: int, x1: int, y: int) -> None:
    """The piles one under the other from row `y`, labels on the left, where a row has no
    room for them side by side; in the middle row, a power under them (on the row free
    above my tableau)."""
    model = scene.model
    view = model.view
    skills = model.skills
    label = len("draw pile ")
    canvas.write(x0, y, "draw pile", "class:pile.label")
    back = hidden_cell(skills, known=False)
    if view.draw_count:
        after = canvas.write(x0 + label, y, back.text, back.style)
        canvas.write(after + 1, y, str(view.draw_count), "class:dim")
    else:
        canvas.write(x0 + label, y, "empty", "class:dim")
    canvas.write(x0, y + 1, "discard", "class:pile.label")
    top = model.top
    power = None
    if top is not None and top.face is not None:
        cell = _top_cell(scene, top.face)
        after = canvas.write(x0 + label, y + 1, cell.text, cell.style)
        canvas.write(after + 1, y + 1, str(len(view.discard)), "class:dim")
        top_power = skills.powers[top.face]
        if view.phase is Phase.POWER and top_power is not None:
            power = f"power: {power_words(top_power)}"
    elif view.in_transit is not None:
        canvas.write(x0 + label, y + 1, "turning…", "class:dim")
    hand = view.hand
    if hand is not None and view.turn_seat is not None:
        mine = view.turn_seat == model.me
        canvas.write(x0, y + 2, "your card" if mine else "drawn", "class:pile.label")
        if mine and hand.face is not None:
            cell = value_cell(skills, hand.face, Shown.HAND)
            canvas.write(x0 + label, y + 2, cell.text, cell.style)
            hand_power = skills.powers[hand.face]
            if hand_power is not None:
                power = power_words(hand_power)
        else:
            canvas.write(x0 + label, y + 2, back.text, back.style)
    if power is not None and y == MIDDLE:  # (beside my tableau, the prompt under it names the power)
        canvas.write(x0, y + 3, clip(power, max(1, x1 - x0)), "class:message.info")


def _piles(canvas: Canvas, scene: TableScene, x0: int, x1: int, clear: int) -> None:
    """The piles side by side, centred between `x0` and `x1`, starting at `clear` or after."""
    model = scene.model
    view = model.view
    skills = model.skills
    width = max(0, x1 - x0)
    column = _pile_column(scene, width)
    x = max(clear, x0 + max(0, (width - 3 * column) // 2))
    # draw pile
    canvas.write(x, MIDDLE, "draw pile", "class:pile.label")
    back = hidden_cell(skills, known=False)
    if view.draw_count:
        after = canvas.write(x, MIDDLE + 1, back.text, back.style)
        canvas.write(after + 1, MIDDLE + 1, str(view.draw_count), "class:dim")
    else:
        canvas.write(x, MIDDLE + 1, "empty", "class:dim")
    # discard pile
    x += column
    canvas.write(x, MIDDLE, "discard", "class:pile.label")
    top = model.top
    if top is not None and top.face is not None:
        cell = _top_cell(scene, top.face)
        after = canvas.write(x, MIDDLE + 1, cell.text, cell.style)
        canvas.write(after + 1, MIDDLE + 1, str(len(view.discard)), "class:dim")
        power = skills.powers[top.face]
        if view.phase is Phase.POWER and power is not None:  # (no drawn card beside it then: its room too)
            room = (x1 if view.hand is None else x + column) - x - 1
            _label(canvas, x, MIDDLE + 2, f"power: {power_words(power)}", room)
    elif view.in_transit is not None:
        canvas.write(x, MIDDLE + 1, "turning…", "class:dim")
    # the drawn card
    x += column
    hand = view.hand
    if hand is not None and view.turn_seat is not None:
        mine = view.turn_seat == model.me
        canvas.write(x, MIDDLE, "your card" if mine else f"{model.whose(view.turn_seat, column - 8)} card",
                     "class:pile.label")
        if mine and hand.face is not None:
            cell = value_cell(skills, hand.face, Shown.HAND)
            canvas.write(x, MIDDLE + 1, cell.text, cell.style)
            power = skills.powers[hand.face]
            if power is not None:
                _label(canvas, x, MIDDLE + 2, power_words(power), max(column, x1 - x) - 1)
        else:
            canvas.write(x, MIDDLE + 1, back.text, back.style)


def _pile_column(scene: TableScene, width: int) -> int:
    """The columns of each pile side by side in `width` columns (16 at most)."""
    return max(card_width(scene.model.skills) + 6, min(16, width // 3))


def _label(canvas: Canvas, x: int, y: int, text: str, room: int) -> None:
    """A card's power under it: on one row of `room` columns, or wrapped onto the
    (empty) row under it, rather than cut."""
    lines = wrap(text, max(1, room))
    if len(lines) > 2:
        lines = [lines[0], clip(" ".join(lines[1:]), room)]
    for row, line in enumerate(lines, start=y):
        canvas.write(x, row, line, "class:message.info")


# --- prompt -------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class PromptLine:
    """One line of the prompt area: `text` in `style`, with {keys} marked if `marked`."""

    text: str
    style: str = "class:prompt"
    marked: bool = True


def prompt_lines(scene: TableScene) -> tuple[PromptLine, ...]:
    """What the prompt area says, one line or two. The prompt line keeps what the next
    key does for an action or a turn in progress; what must be read with it goes on a
    second line: a message said while an action is half-typed (a refused key), so the
    player reads what went wrong and what to type next at once; and the look at the
    bottom cards when their turn comes during it (R4), so the turn's keys stay on screen
    and the look's time too, or when the prompt line says something else meanwhile (a
    message; a seat back from a stop past the grace period, whose moves wait, §11.3).
    During the game's first look, and while no message is said, a last line says where
    the rules are (`NEW_PLAYER_HINT`)."""
    message = scene.message
    said = None if message is None else PromptLine(message.text, f"class:message.{message.kind}", marked=False)
    model = scene.model
    if scene.pending is not None:
        next_step = PromptLine(_pending_text(scene, scene.pending))
        if said is None and scene.pending.action == "snap" and model.view.phase is Phase.PEEK:
            said = PromptLine(f"This is your one snap {snap_turn(model)} (R6); a failed one counts too.", marked=False)
        return (next_step,) if said is None else (next_step, said)
    first = said or PromptLine(prompt_text(scene))
    reaching = model.stopped_past_grace is not None  # (its prompt offers no move)
    # (the game's first look: where a new player finds the rules, under what the look says)
    new = (PromptLine(NEW_PLAYER_HINT),) if scene.bottom_until is not None and model.view.round == 1 else ()
    if scene.bottom_until is not None and (_my_turn(scene) or said is not None or reaching):
        return first, PromptLine(_look_text(scene)), *(new if said is None else ())
    if scene.bottom_until is not None and said is None and model.snap_open:  # (R6: Space is a snap, as ever)
        return first, PromptLine(f"{{Space}} also starts a snap: your one snap {literal(snap_turn(model))} (R6)."), *new
    return (first, *(new if said is None else ()))


NEW_PLAYER_HINT: Final = "New to Bandit? {?} shows the keys, {?} again how to win and what the cards do."
"""Said under the look at the bottom cards in a game's first round (R4.3)."""


PROMPT_ROWS: Final = 4
"""Rows the prompt area takes at most: a line too long for a row (a refusal with its rule
at the end, a sentence naming several players) goes on in the next, never cut nor past
the screen's edge, the table log giving up its rows meanwhile."""


def _prompt(canvas: Canvas, scene: TableScene, y: int) -> int:
    """The prompt area from row `y`, its lines wrapped to the screen's width, at most
    `PROMPT_ROWS` rows (the last ending in … if even they do not hold it); returns the row
    under it (the table log's rule)."""
    room = canvas.width - 2
    rows: list[PromptLine] = []
    for line in prompt_lines(scene):
        if line.marked and all(text_width(unmarked(word)) <= room for word in line.text.split(" ")):
            rows += [PromptLine(part, line.style) for part in wrap(line.text, room, lambda w: text_width(unmarked(w)))]
        else:
            plain = unmarked(line.text) if line.marked else line.text
            rows += [PromptLine(part, line.style, marked=False) for part in wrap(plain, room)]
    if len(rows) > PROMPT_ROWS:
        last = rows[PROMPT_ROWS - 1]
        end = clip(f"{unmarked(last.text) if last.marked else last.text} …", room)
        rows = [*rows[:PROMPT_ROWS - 1], PromptLine(end, last.style, marked=False)]
    for row, line in enumerate(rows, start=y):
        if line.marked:
            write_marked(canvas, 1, row, line.text, line.style)
        else:
            canvas.write(1, row, line.text, line.style)
    return y + len(rows)


def prompt_text(scene: TableScene) -> str:
    """What the player can do now, with {keys} marked."""
    model = scene.model
    view = model.view
    me = model.me
    pending = scene.pending
    skills = model.skills
    if model.stopped_past_grace is not None:  # (§11.3: back from a stop past the grace period)
        return reaching_after_stop(model.stopped_past_grace)
    if scene.bottom_until is not None and not _my_turn(scene):  # (in your turn, the line under it: `prompt_lines`)
        return _look_text(scene)
    if pending is not None:
        return _pending_text(scene, pending)
    if "snap" in model.sending and (model.waiting_for or model.sending_for >= SLOW_MOVE):  # (said here until it counts)
        return literal(on_its_way("snap", model))
    if model.turn_sent and view.turn_seat == me and (model.waiting_for or model.sending_for >= SLOW_MOVE):
        return literal(on_its_way(model.turn_sent, model))  # (a move that does not come back at once: who it waits for)
    phase = view.phase
    seats = opponent_keys(model.players)
    if phase is Phase.PEEK:
        if not view.ready[me] and "ready" in model.sending:  # (sent while the table waits for someone)
            return literal(on_its_way("ready", model))
        if not view.ready[me]:
            return "Press {Enter} when you are ready for the first turn."
        waiting = [literal(model.said_name(s)) for s in range(model.players) if not view.ready[s]]
        # (R6: one snap before the first turn; once made, or on its way, Space offers none)
        snap = " · {Space}+slot snaps a matching card" if model.snap_open else ""
        return f"Ready (R4) · waiting for {listed(waiting)}{snap}."
    if phase in (Phase.REVEAL, Phase.BETWEEN):
        if not view.round:  # (every seat's keys, then the shuffle, come first: §9.2)
            return "The cards are being shuffled for the first round."
        return "The round is over; the next one starts soon."
    if phase is Phase.OVER:
        return "The game is over."
    if view.turn_seat != me:
        whose = literal(model.said_name(view.turn_seat)) if view.turn_seat is not None else "the table"
        snap = snap_hint(model)
        if view.turn_seat in model.waiting_for and model.reconnecting_after is not None:  # (ours to re-make)
            return f"Reconnecting to {whose}{snap}."
        if view.turn_seat in model.gone and model.waiting_for:  # (the game ends at its leave once they are back, §9.8)
            waited = listed([literal(model.said_name(s)) for s in model.waiting_for])
            are = "is" if len(model.waiting_for) == 1 else "are"
            return f"{whose} left the table; the game ends when {waited} {are} back."
        if view.turn_seat in model.waiting_for:  # (its link is down: it is not playing now, §11.3)
            return f"Waiting for {whose} to come back{snap}."
        return f"{whose} is playing{snap}."
    top = model.top
    top_words = "" if top is None or top.value is None else f" the {top.value}"
    if phase is Phase.START:
        bandit = " · {b} Bandit" if view.caller is None and not view.snapped[me] else ""  # (R5)
        return f"Your turn: {{x}} draw · {{c}}+slot take{top_words}{bandit}."
    if phase is Phase.DRAWN:
        hand = view.hand
        card = f" {card_words(skills, hand.face)}" if hand is not None and hand.face is not None else ""
        power = skills.powers[hand.face] if hand is not None and hand.face is not None else None
        use = f" and {power_words(power)}" if power is not None else ""
        return f"You drew{card}: {{z}} discard it{use} · {{slot}} put it there instead."
    if phase is Phase.POWER:
        power = view.power
        if power is Power.PEEK:
            return "Peek: {slot} of yours to look at · {z} skip."
        if power is Power.SPY:
            return f"Spy: {{{seats}}} an opponent, then {{slot}} · {{z}} skip."
        if power is Power.SWAP:
            return f"Swap unseen: {{slot}} yours and {{{seats}}}+{{slot}} theirs, any order · {{z}} skip."
        return f"Look & swap: {{slot}} yours and {{{seats}}}+{{slot}} theirs · {{z}} skip."
    if phase is Phase.DECIDE:
        if not view.looked_in_place:
            return f"{LOOKED_CARD_LEFT}: {{z}} end your turn (no exchange)."
        return "Look & swap: {x} exchange the two cards · {z} keep them where they are."
    return ""


def snap_hint(model: TableModel) -> str:
    """What the prompt says of a snap during another's turn (R6: one per player per turn):
    how Space snaps while this player may; once their snap is made (or on its way), that
    it is; nothing while no snap is allowed (no discard, or its top still turning up)."""
    if model.snap_open:
        return " · {Space}+slot snaps a card matching the discard"
    return " · you made your one snap this turn (R6)" if model.snap_made else ""


def _my_turn(scene: TableScene) -> bool:
    """It is my turn (its prompt says what my keys do now)."""
    view = scene.model.view
    return view.turn_seat == scene.model.me and view.phase in TURN_PHASES


def _look_text(scene: TableScene) -> str:
    """The look at my bottom cards (R4.3), with the time it has left."""
    assert scene.bottom_until is not None
    left = clock(scene.bottom_until - scene.model.now)
    return f"Your two bottom cards — remember them! {{Enter}} or any key when done ({left})."


def _pending_text(scene: TableScene, pending: Pending) -> str:
    model = scene.model
    seats = opponent_keys(model.players)
    top = model.top
    theirs = literal(model.said_name(pending.seat)) if pending.seat is not None else ""
    what = f"the {top.value}" if top is not None and top.value is not None else "the top card"
    if pending.action == "snap":
        if pending.seat is None:
            return f"Snap {what}: {{slot}} your card, or {{{seats}}} an opponent · {{Esc}} cancel."
        if pending.slot is None:
            return f"Snap {what} with {literal(model.whose(pending.seat))} card: {{slot}} which one? · {{Esc}} cancel."
        return f"…and give {theirs} which card of yours? {{slot}} · {{Esc}} cancel."
    if pending.action == "take":
        return f"Take {what} into which slot? {{slot}} · {{Esc}} cancel."
    if pending.action == "spy":
        return f"Spy on {literal(model.whose(pending.seat))} card: {{slot}} · {{Esc}} cancel." if pending.seat is not None else (
            f"Spy on {theirs}: {{slot}} · {{Esc}} cancel.")
    verb = "Swap" if pending.action == "swap" else "Look & swap"
    if pending.seat is None:
        return f"{verb}: now {{{seats}}} an opponent, then their {{slot}} · {{Esc}} cancel."
    if pending.slot is None:
        return f"{verb} with {theirs}: {{slot}} which of their cards? · {{Esc}} cancel."
    return f"{verb}: {{slot}} which card of yours? · {{Esc}} cancel."

