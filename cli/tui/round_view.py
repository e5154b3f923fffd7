"""The round-end and game-end screens (R8, R9, R1).

Round end: every card turned face up, each player's sum, the Bandit caller's -10 or
+10 with the reason, round scores, totals, and the verdict of auditing the round (the
openings of its shuffles, §8.7). Game end: the standings, every round's scores, where
this seat's fairness log is and the command that audits it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final

from cli.commands import audit_command, logs_together
from engine import CALLER_BONUS, Phase, Skills
from engine.phases import TURN_PHASES
from engine.narrate import cut_short, game_won, listed, possessive
from cli.tui.canvas import Canvas, clip, pad, text_width, wrap
from cli.tui.cards import Shown, card_width, empty_cell, value_cell
from cli.tui.keymap import slot_position
from cli.tui.model import TableModel
from cli.tui.seat_names import NAME_COLUMNS, fit_names, name_columns
from cli.tui.table_view import clock, your_turn_left
from p2p.session import RoundReport, round_cut_short

FIGURES_COLUMNS = 38
"""The round screen's figures: sum, Bandit, round and total, and the "lowest sum" tag."""


def round_sums(report: RoundReport, skills: Skills) -> list[int]:
    """Each seat's sum of card values, before the caller's bonus (R9)."""
    return [sum(skills.values[face] for _, face in tableau) for tableau in report.tableaus]


def caller_words(report: RoundReport, skills: Skills, name: list[str], me: int) -> str:
    """Why the caller got -10 or +10 (R9), in words (`name`: by seat, "You" for `me`)."""
    caller = report.caller
    if caller is None:
        return "Nobody announced Bandit." if not report.exhausted else ""
    sums = round_sums(report, skills)
    mine = sums[caller]
    others = [(s, v) for s, v in enumerate(sums) if s != caller]
    best_seat, best = min(others, key=lambda sv: sv[1])
    who = name[caller]
    if all(mine < v for _, v in others):
        return f"{who} announced Bandit with {mine}, strictly the lowest: -{CALLER_BONUS} (R9)."
    has = "have" if best_seat == me else "has"
    lower = "you" if best_seat == me else name[best_seat]
    relation = f"also {has}" if best == mine else has
    return (f"{who} announced Bandit with {mine}, but {lower} {relation} {best}: "
            f"not strictly the lowest, +{CALLER_BONUS} (R9).")


def slot_counts(report: RoundReport, slots: tuple[int, ...] = ()) -> list[int]:
    """How many slots each seat's tableau had at the end of the round: the square, every
    slot up to the last card held (R6: a slot emptied by a snap keeps its place), and as
    many as the table showed (`slots`, by seat: a last penalty slot emptied too)."""
    return [max([4, *(slot + 1 for slot, _ in tableau), *slots[seat:seat + 1]])
            for seat, tableau in enumerate(report.tableaus)]


def draw_round_end(canvas: Canvas, model: TableModel, index: int, slots: tuple[int, ...] = ()) -> None:
    """The round `model.reports[index]`; `slots`: each seat's slot count as the table last
    showed that round, if known. Rows too few for all of it leave out what matters least
    (`fit_round_rows`), and the footer says what a larger terminal shows, rather than
    draw one part over another."""
    report = model.reports[index]
    skills = model.skills
    width, height = canvas.width, canvas.height
    names = ["You" if s == model.me else model.name(s) for s in range(model.players)]
    title = f"Round {report.round} is over"
    if report.exhausted:
        title += " — nothing left to draw (R7)"
    canvas.write(1, 0, clip(title, width - 2), "class:title")
    said = caller_words(report, skills, names, model.me)
    sums = round_sums(report, skills)
    step = card_width(skills) + 1
    counts = slot_counts(report, slots)
    columns = [slot_position(count - 1)[0] + 1 for count in counts]

    def shown_columns(name_width: int) -> int:
        # (a tableau wider than the room left of the figures goes on in rows under itself: R6 penalty columns)
        return min(max(columns), max(2, (width - FIGURES_COLUMNS - 2 - (2 + name_width + 1)) // step))

    # (names wider than the least only where no tableau goes on in more rows for them)
    name_width = name_columns(names, lambda wider: shown_columns(wider) == shown_columns(NAME_COLUMNS))
    column_names = _column_names(model, name_width)
    cards_x = 2 + name_width + 1
    shown = shown_columns(name_width)
    figures_x = cards_x + shown * step + 2
    bands = [-(-c // shown) for c in columns]
    if report.audit_ok is None:
        verdict, verdict_style = "Audit of this round: checking the shuffles and every reveal…", "class:dim"
    elif report.audit_ok:
        verdict, verdict_style = f"Audit of this round: ✓ {report.audit or 'everything checked'}", "class:good"
    else:
        verdict, verdict_style = f"Audit of this round: ✗ {report.audit or 'a check failed'}", "class:bad"
    said_lines, verdict_lines = wrap(said, width - 2), wrap(verdict, width - 2)
    going_on = meanwhile(model, report.round)
    going_lines = wrap(going_on[0], width - 2) if going_on is not None else []
    fit = fit_round_rows(height - 2 - len(going_lines), len(said_lines), bands, len(verdict_lines))
    y = 1
    if fit.said:
        y = _lines(canvas, y, said_lines, "class:message.info") + fit.gap_said
    canvas.write(figures_x, y, f"{'sum':>5} {'Bandit':>7} {'round':>6} {'total':>6}", "class:dim")
    y += 1
    lowest = min(sums)  # (R9: the caller's bonus asks whether their sum is strictly the lowest)
    for seat, tableau in enumerate(report.tableaus):
        style = "class:seat.me" if seat == model.me else "class:seat"
        canvas.write(2, y, column_names[seat], style)
        held = dict(tableau)
        for slot in range(counts[seat]):  # (a slot that a snap emptied shows empty: R6)
            column, row = slot_position(slot)
            if column // shown < fit.bands[seat]:
                cell = value_cell(skills, held[slot], Shown.FACE_UP) if slot in held else empty_cell(skills)
                canvas.write(cards_x + column % shown * step, y + 2 * (column // shown) + row, cell.text, cell.style)
        if fit.bands[seat] < bands[seat]:  # (its last cards left out: the row ends in …)
            canvas.write(cards_x + shown * step - 1, y + 2 * fit.bands[seat] - 1, "…", "class:dim")
        bonus = f"{report.scores[seat] - sums[seat]:+d}" if seat == report.caller else ""
        figures = f"{sums[seat]:>5} {bonus:>7} {report.scores[seat]:>6} {report.totals[seat]:>6}"
        canvas.write(figures_x, y, figures, "class:prompt")
        if sums[seat] == lowest:  # (every one of equal sums)
            canvas.write(figures_x + text_width(figures) + 1, y, "lowest sum", "class:good")
        y += 2 * fit.bands[seat]
    verdict_cut = fit.verdict < len(verdict_lines)
    if verdict_cut:  # (its last row ends in …)
        verdict_lines = [*verdict_lines[:fit.verdict - 1], clip(" ".join(verdict_lines[fit.verdict - 1:]), width - 2)]
    y = _lines(canvas, y + fit.gap_verdict, verdict_lines, verdict_style)
    if going_on is not None:  # (live, right above the footer: what runs out while this is read)
        _lines(canvas, height - 1 - len(going_lines), going_lines, going_on[1])
    more = len(model.reports) - 1 > index or model.view.round > report.round
    key, started = "Enter: back to the table", " (the next round has started)" if more and going_on is None else ""
    if model.ended or (not more and max(report.totals) >= model.view.target):  # (the last round, R1)
        key, started = "Enter: the final standings", ""
        over, short = game_over_words(model, report)
        over_lines = wrap(over, width - 2)
        if y + 1 + len(over_lines) <= height - 1 - len(going_lines):  # (under the verdict, read whole, above the footer)
            _lines(canvas, y + 1, over_lines, "class:title")
        else:
            key = f"{short} · {key}"
    left_out = []
    if not fit.said and said:
        caller = report.caller
        left_out.append("that nobody announced Bandit" if caller is None else
                        f"why {'you' if caller == model.me else column_names[caller]} scored "
                        f"{report.scores[caller] - sums[caller]:+d} (R9)")
    if cut := [s for s in range(model.players) if fit.bands[s] < bands[s]]:
        owners = ["your" if s == model.me else possessive(column_names[s], _names(model)) for s in cut]
        left_out.append(f"{listed(owners)} last cards")
    if verdict_cut:
        left_out.append("the audit's words in full")
    footer, note = _footer(key, started, left_out, width - 2)
    after = canvas.write(1, height - 1, footer, "class:prompt.key")
    canvas.write(after, height - 1, note, "class:dim")


@dataclass(frozen=True, slots=True)
class RoundRows:
    """What the round screen draws between its title and its live lines (`fit_round_rows`)."""

    said: bool  # the caller's paragraph (why -10 or +10, R9)
    gap_said: bool  # the blank row under it
    bands: tuple[int, ...]  # by seat, the rows of two card rows drawn of its tableau
    gap_verdict: bool  # the blank row above the audit's verdict
    verdict: int  # the rows of the verdict drawn

    def height(self, said: int) -> int:
        """The rows it takes, with a caller's paragraph of `said` rows."""
        return (said if self.said else 0) + self.gap_said + 1 + 2 * sum(self.bands) + self.gap_verdict + self.verdict


def fit_round_rows(room: int, said: int, bands: Sequence[int], verdict: int) -> RoundRows:
    """What of the round screen fits in `room` rows: the caller's paragraph of `said`
    rows, the figures' header, each seat's `bands` of cards and the audit's verdict of
    `verdict` rows, leaving out what matters least first: the blank rows, the caller's
    paragraph (its -10 or +10 stays in the figures), the rows of cards of a tableau past
    its first (the most first, the last seat first among equals: its sum stays), and the
    verdict's words past its first row."""
    fit = RoundRows(True, True, tuple(bands), True, verdict)
    for less in ({"gap_verdict": False}, {"gap_said": False}, {"said": False}):
        if fit.height(said) <= room:
            return fit
        fit = replace(fit, **less)  # type: ignore[arg-type]
    while fit.height(said) > room and max(fit.bands, default=1) > 1:
        most = max(reversed(range(len(fit.bands))), key=lambda seat: fit.bands[seat])
        fit = replace(fit, bands=tuple(n - (seat == most) for seat, n in enumerate(fit.bands)))
    fit = replace(fit, verdict=max(1, verdict - max(0, fit.height(said) - room)))
    for more in ({"gap_verdict": True}, {"gap_said": True}):  # (a blank row again where what was left out made room)
        if replace(fit, **more).height(said) <= room:  # type: ignore[arg-type]
            fit = replace(fit, **more)  # type: ignore[arg-type]
    return fit


def _footer(key: str, started: str, left_out: list[str], room: int) -> tuple[str, str]:
    """The round screen's footer, `key` and what it adds (`started`), and a note of what
    rows too few `left_out`, in the words that fit `room` columns."""
    if not left_out:
        return clip(key + started, room), ""
    for added in dict.fromkeys((started, "")):
        for what in (listed(left_out), "the rest"):
            note = f" · a larger terminal shows {what}"
            if text_width(key + added + note) <= room:
                return key + added, note
    return clip(key, room), ""


def game_over_words(model: TableModel, report: RoundReport) -> tuple[str, str]:
    """What the round screen of the game's last round says of the game's end, before the
    final standings, in a sentence and in a few words: whose total reached the target
    (R9, R1), or why the game ended early (no round stands after it)."""
    names = _names(model)
    if _early(model):
        return f"{game_title(model, names)}.", "The game ended"
    totals = model.view.totals if model.ended else report.totals  # (the last round's, as the game ended)
    reached = reached_target(totals, model.view.target, names, model.me)
    why = "" if reached is None else f": {reached} (R9)"
    return f"The game is over{why}; the lowest total wins (R1).", "The game is over (R9)"


def meanwhile(model: TableModel, shown_round: int) -> tuple[str, str] | None:
    """What the table does while the screen of round `shown_round` is read, once the
    next round has begun, and its style: the look at the bottom cards (R4) and its time,
    whether this player is ready; then whose turn it is, this player's with its time
    (R5: when it runs out a card is discarded for them). None before the next round."""
    view = model.view
    if view.round <= shown_round or model.ended:
        return None
    begun = f"Round {view.round} has begun"
    if view.phase is Phase.PEEK:
        left = model.remaining(model.peek_deadline)
        when = "" if left is None else f" in {clock(left)}"
        if not view.ready[model.me]:
            return (f"{begun}: first turn{when}, ready or not (R4). You are not ready: Enter, then look at your "
                    "bottom cards.", "class:message.warning")
        waiting = [model.said_name(s) for s in range(model.players) if not view.ready[s]]
        return (f"{begun}: you are ready; first turn{when}, or once {listed(waiting)} "
                f"{'is' if len(waiting) == 1 else 'are'} ready (R4).", "class:message.info")
    if (turn := your_turn_left(model)) is not None:
        return f"{begun}. {turn}", "class:message.warning"
    if view.turn_seat is not None and view.phase in TURN_PHASES:
        return f"{begun}: {model.whose(view.turn_seat)} turn.", "class:message.info"
    return None


def _column_names(model: TableModel, width: int) -> list[str]:
    """The names in the screens' name column, `width` wide: cut readably, unlike each other
    (mine: "You")."""
    fitted = fit_names([model.name(s) for s in range(model.players)], width)
    return ["You" if s == model.me else name for s, name in enumerate(fitted)]


CHECK_SCORED: Final = "Anyone can check every shuffle, reveal, move and score in it:"
CHECK_UNSCORED: Final = "There is no score to check in it, but anyone can still audit it:"


def check_words(played_out: int, cut: int | None) -> str:
    """What anyone can check in the game's log (§10.2), said under its path on the
    game-end screen: every shuffle, reveal, move and score of the `played_out` rounds; of
    round `cut`, cut short before its openings (`cut_short`), only its moves and the
    cards turned face up for all. A game with no round scored has no score, nor a shuffle
    opened, to check."""
    if cut is None:
        return CHECK_SCORED if played_out else CHECK_UNSCORED
    what = "every move and every card turned face up, but not the cards only one player saw:"
    if not played_out:
        return f"There is no score to check in it; of round {cut}, cut short, anyone can check {what}"
    rounds = {1: "round 1", 2: "rounds 1 and 2"}.get(played_out, f"rounds 1 to {played_out}")
    return (f"Anyone can check every shuffle, reveal, move and score of {rounds} in it, played out; of round {cut}, "
            f"cut short, {what}")


def _paragraph(canvas: Canvas, y: int, text: str, style: str) -> int:
    """`text` wrapped to the screen's width from row `y` (read whole, never cut); the row under it."""
    return _lines(canvas, y, wrap(text, canvas.width - 2), style)


def _lines(canvas: Canvas, y: int, lines: Sequence[str], style: str) -> int:
    """`lines` one a row from row `y`; the row under them."""
    for line in lines:
        canvas.write(1, y, line, style)
        y += 1
    return y


def draw_game_end(canvas: Canvas, model: TableModel) -> None:
    view = model.view
    width = canvas.width
    names = _names(model)
    early = _early(model)
    played_out = len(model.reports) if early else len(view.history)  # (early: only the rounds whose scores stand)
    cut = round_cut_short(view.round, played_out) if early else None
    # (why a game ended is read whole: it may say what to do next; a round cut short, what that means for its cards)
    y = _standings(canvas, model, _paragraph(canvas, 0, game_title(model, names), "class:title") + 1)
    for text in (_why(model, names), None if cut is None else cut_short(cut)):
        if text:
            y = _paragraph(canvas, y + 1, text, "class:dim")
    y += 1
    if model.log_path:  # (wrapped, not cut: the path is there to be read; both are printed whole on leaving)
        lines = [(1, "Your fairness log of this game:", "class:prompt"),
                 *_command_lines(model.log_path, width, "class:message.info"),
                 *((1, line, "class:prompt") for line in wrap(check_words(played_out, cut), width - 2)),
                 *_command_lines(audit_command([model.log_path]), width)]
        together = logs_together([model.log_path, *model.logs_beside], model.players)
        if together is not None:  # (as the terminal says once the screen is closed)
            words, command = together
            lines += [*((1, line, "class:prompt") for line in wrap(words, width - 2)), *_command_lines(command, width)]
        for x, line, style in lines[: max(0, canvas.height - 2 - y)]:  # (never over the last line's "Enter")
            canvas.write(x, y, line, style)
            y += 1
    canvas.write(1, canvas.height - 1, "Enter: leave", "class:prompt.key")


PRINTED_WHOLE: Final = "(printed on one line as you leave, to copy whole)"


def _command_lines(command: str, width: int, style: str = "class:prompt.key") -> list[tuple[int, str, str]]:
    """A command or a path to copy, as (x, text, style) rows: on one row, indented if
    there is room; else broken at its spaces, a path in it after a "/" (never inside a
    word, `wrap`), saying that it is printed whole once the screen closes."""
    if text_width(command) <= width - 4:
        return [(3, command, style)]
    if text_width(command) <= width - 2:
        return [(1, command, style)]
    return [*((3, line, style) for line in wrap(command, width - 4)), (3, PRINTED_WHOLE, "class:dim")]


STANDING_COLUMNS: Final = 6 + NAME_COLUMNS + 6
"""Columns a row of the standings needs: its place, the name (in `NAME_COLUMNS` at least)
and the total."""


def draw_small_game_end(canvas: Canvas, model: TableModel, note: str, footer: str) -> bool:
    """The game's end on a screen too small for `draw_game_end`: its title (who won),
    the standings and `footer` on the last row, with why it ended and `note` (what a
    larger screen shows) if there is room; False, drawing nothing, if even those do not fit."""
    width, height = canvas.width, canvas.height
    names = _names(model)
    titled = wrap(game_title(model, names), width - 2)
    rows = 1 + model.players if model.view.history or not _early(model) else 1
    if width - 2 < STANDING_COLUMNS or text_width(footer) > width - 2 or len(titled) + 1 + rows + 1 > height:
        return False
    for y, line in enumerate(titled):
        canvas.write(1, y, line, "class:title")
    y = _standings(canvas, model, len(titled) + 1)
    for text, style in ((_why(model, names), "class:dim"), (note, "class:message.warning")):
        lines = wrap(text, width - 2) if text else []
        if lines and y + 1 + len(lines) <= height - 2:  # (a blank row above it, and one above the footer)
            for line in lines:
                y += 1
                canvas.write(1, y, line, style)
            y += 1
    canvas.write(1, height - 1, footer, "class:prompt.key")
    return True


def _names(model: TableModel) -> list[str]:
    """Each seat's name in sentences ("You" for mine)."""
    return ["You" if s == model.me else model.name(s) for s in range(model.players)]


def _early(model: TableModel) -> bool:
    """The game ended before a total reached the target (left, cheated or away): no winner."""
    return model.ended and not model.finished


def _why(model: TableModel, names: list[str]) -> str | None:
    """Why a game played out ended (R1), once it stands."""
    if not model.ended or _early(model):
        return None
    return why_the_game_ended(model.view.totals, model.view.target, names, model.me)


def game_title(model: TableModel, names: list[str]) -> str:
    """The game-end screen's title: who won with what (R1), that the last round is being
    checked (§8.9), and whom that waits for and how long (a seat away, §11.3), or why the
    game ended early."""
    totals = model.view.totals
    winners = model.view.winners or tuple(s for s, t in enumerate(totals) if t == min(totals))
    if _early(model):  # left, cheated or away: the last round never stood
        return f"Game ended: {model.ended_why}"
    if not model.ended and model.waiting_for and model.reconnecting_after is None:
        # (the header's "waiting for Bo (1:30 left)", said here: the openings wait for them)
        away = listed([model.said_name(s) for s in model.waiting_for])
        left = model.remaining(model.grace_deadline)
        until = "" if left is None else f": {clock(left)} left, then the game ends without that round"
        return f"Game over — the result waits for {away} (away) to open the last round's shuffles{until}…"
    if not model.ended:  # the last round is scored, but stands only once its shuffles open (§8.9)
        return "Game over — checking the last round's shuffles before the result stands…"
    return f"Game over — {game_won(names, winners, totals[winners[0]], model.me)}"


def _standings(canvas: Canvas, model: TableModel, y: int) -> int:
    """The standings from row `y` (places, names, totals and as many rounds' scores as the
    width holds; unranked if the game ended early); returns the row under them."""
    view = model.view
    width = canvas.width
    totals = view.totals
    winners = view.winners or tuple(s for s, t in enumerate(totals) if t == min(totals))
    history = view.history
    early = _early(model)  # (no winner: the totals as they stood, unranked)
    if early and not history:
        canvas.write(1, y, clip("No round was scored before the game ended.", width - 2), "class:dim")
        return y + 1
    order = sorted(range(model.players), key=lambda s: (totals[s], s))

    def rounds_shown(name_width: int) -> int:  # (the last rounds' scores, as many as fit)
        return min(len(history), max(0, (width - 2 - STANDING_COLUMNS - (name_width - NAME_COLUMNS)) // 6))

    # (names wider than the least only where no round's scores are left out for them)
    name_width = name_columns(_names(model), lambda wider: rounds_shown(wider) == rounds_shown(NAME_COLUMNS))
    column_names = _column_names(model, name_width)
    room = rounds_shown(name_width)
    shown_rounds = history[len(history) - room:] if room else ()
    first_round = len(history) - len(shown_rounds) + 1
    total = "so far" if early else " total"
    hidden = {1: "", 2: "(r1 not shown)"}.get(first_round, f"(r1–r{first_round - 1} not shown)")  # (left out: said)
    header = pad(hidden, 5 + name_width) + " " + total + "".join(f"{'r' + str(first_round + i):>6}"
                                                                 for i in range(len(shown_rounds)))
    canvas.write(1, y, clip(header, width - 2), "class:dim")
    y += 1
    for seat in order:
        rank = 1 + sum(total < totals[seat] for total in totals)  # equal totals share a place (R1)
        style = "class:good" if seat in winners and not early else (
            "class:seat.me" if seat == model.me else "class:seat")
        place = "    " if early else f"{rank:>3}."
        row = f"{place}  {pad(column_names[seat], name_width)} {totals[seat]:>5}"
        row += "".join(f"{scores[seat]:>6}" for scores in shown_rounds)
        canvas.write(1, y, clip(row, width - 2), style)
        y += 1
    return y


def why_the_game_ended(totals: tuple[int, ...], target: int, names: list[str], me: int) -> str | None:
    """Why a game played out ended, in a sentence (R1): whose total reached the target."""
    reached = reached_target(totals, target, names, me)
    return None if reached is None else f"{reached}, so the game ends (R1): the lowest total wins."


def reached_target(totals: Sequence[int], target: int, names: list[str], me: int) -> str | None:
    """Whose total reached the target, highest first: "Bo (104) and you (100) reached 100"."""
    over = sorted((s for s, total in enumerate(totals) if total >= target), key=lambda s: (-totals[s], s))
    if not over:
        return None
    reached = listed([f"{('You' if i == 0 else 'you') if s == me else names[s]} ({totals[s]})"
                      for i, s in enumerate(over)])  # (a name is written as its player wrote it)
    return f"{reached} reached {target}"
