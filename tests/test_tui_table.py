"""The table screen's logic (`TableUi`) on an in-process table: keys → intents, and what
is shown when (R3, R4, R5, R6, R8, R10). Trio's MockClock runs every timer."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any
from contextlib import asynccontextmanager

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
import trio
import trio.testing
from engine_support import GREEN, RED, ScriptedTable
from tui_support import NAMES, LocalSession, Script, UiDriver, arranged

from engine import (
    CallBandit,
    DecideSwap,
    Discard,
    Draw,
    Exchange,
    LookSwap,
    Peek,
    Phase,
    Ready,
    SkipPower,
    Snap,
    Spy,
    Swap,
    TakeDiscard,
)
from cli.tui.canvas import text_width
from cli.tui.model import TableModel
from cli.tui.table_ui import BOTTOM_PEEK_S, FLASH_S, MESSAGE_S, STALE_KEYS_S, LookSeen, Overlay, TableUi
from cli.tui.table_view import BOTTOM, MIDDLE, PROMPT_ROW, places
from p2p.session import Deadlines, Line, Progress, RoundReport, SeatInfo
from p2p.table.messages import WIRE_NAME


@asynccontextmanager
async def table(
    tableaux: dict[int, Sequence[int]] | None = None,
    discard: int | None = None,
    draw: Sequence[int] = (),
    *,
    players: int = 3,
    first: int = 0,
    memory_aid: bool = False,
    ready: bool = True,
    **kw: object,
) -> AsyncIterator[UiDriver]:
    """Seat 0 at a table without bots (other seats act through `other`), dealt as given."""
    deal = arranged(players, tableaux, discard, draw)
    session = LocalSession(players, 0, script=Script([deal], [first]), bots_play=False, **kw)  # type: ignore[arg-type]
    async with trio.open_nursery() as nursery:
        await nursery.start(session.run)
        driver = UiDriver(session, memory_aid=memory_aid)
        await driver.settle()
        if ready:
            await driver.press("enter")  # close the bottom-card look: Ready
            await driver.other(*(Ready(s) for s in range(1, players)))
        yield driver
        nursery.cancel_scope.cancel()


def my_box(text: str) -> list[str]:
    """The two card rows of my tableau (rows 11 and 12 of the table screen)."""
    rows = text.splitlines()
    return [rows[11], rows[12]]


def prompt_line(t: UiDriver) -> str:
    """The table screen's prompt line: what the next key does (or a message)."""
    return t.text().splitlines()[PROMPT_ROW].strip()


# --- R4: the bottom cards, once --------------------------------------------------------



async def round_one_called_and_over(t: UiDriver) -> None:
    """At a table of two: the look, Bo ready, this seat calls Bandit and plays its turn, and
    Bo's final turn (R8) ends round 1."""
    await t.settle()
    await t.press("enter")
    await t.other(Ready(1))
    await t.press("b", "x", "z")
    await t.other(Draw(1), Discard(1))

async def test_R4_bottom_cards_are_shown_once_then_ready_after_ten_seconds(mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 8, 2]}, discard=10, ready=False) as t:
        assert [row.strip() for row in my_box(t.text())] == ["q[░░] w[░░]", "a[ 8] s[ 2]"]
        assert "remember them" in t.text()
        assert t.sent == []
        mock_clock.jump(BOTTOM_PEEK_S - 0.5)
        await t.settle()
        assert "[ 8]" in my_box(t.text())[1] and t.sent == []
        mock_clock.jump(0.5)
        await t.settle()
        assert t.sent == [Ready(0)]
        assert my_box(t.text())[1].strip() == "a[••] s[••]"  # seen, value no longer on screen
        mock_clock.jump(60)
        await t.settle()
        assert t.sent == [Ready(0)]  # once


async def test_R4_the_look_at_the_bottom_cards_counts_only_while_this_program_runs(
        mock_clock: trio.testing.MockClock) -> None:
    """A player whose program was stopped (Ctrl-Z, SIGSTOP) 8 s into the
    look found it over when it ran again. The look is 10 s of being shown (R4.3): the
    time the program did not run (its session says how long) is added to it. (The 30 s
    ready barrier is not reached here: this session's clocks do not stand, a peer's do.)"""
    async with table({0: [4, 6, 8, 2]}, discard=10, ready=False) as t:
        mock_clock.jump(8)
        await t.settle()
        t.session.progress.stopped_s += 10.0  # (as `TablePeer` tells it, waking from a stop)
        mock_clock.jump(10)
        await t.settle()
        assert "[ 8]" in my_box(t.text())[1] and t.sent == []  # still 2 s to go
        mock_clock.jump(2.5)
        await t.settle()
        assert t.sent == [Ready(0)] and "[ 8]" not in my_box(t.text())[1]


@pytest.mark.parametrize("first", [0, 1])
async def test_R4_a_look_whose_first_turn_began_while_this_program_was_stopped_goes_on_alongside_it(
        mock_clock: trio.testing.MockClock, first: int) -> None:
    """The player's program was stopped 2 s into the look, and the table's ready barrier
    ran out meanwhile: the first turn began without their "ready". Running again, the look
    goes on for the 8 s it had left, beside the turn, and the prompt says why."""
    async with table({0: [4, 6, 8, 2]}, discard=10, ready=False, first=first) as t:
        await t.other(Ready(1), Ready(2))
        mock_clock.jump(2)
        await t.settle()
        t.session.progress.stopped_s += 30.0  # (as `TablePeer` tells it, waking from a stop)
        mock_clock.jump(30)  # (the barrier ran out meanwhile)
        await t.settle()
        assert t.scene.model.view.phase is Phase.START and t.sent == []
        assert "[ 8]" in my_box(t.text())[1]
        rows = t.text().splitlines()
        said = "The first turn began; your look goes on (its 10 s do not count the stop, R4)."
        assert rows[PROMPT_ROW].strip() == said
        assert rows[PROMPT_ROW + 1].strip() == "Your two bottom cards — remember them! Enter or any key when done (0:08)."
        mock_clock.jump(MESSAGE_S)
        await t.settle()
        rows = t.text().splitlines()
        if first == 0:  # (the turn's keys on the prompt line, the look under it)
            assert rows[PROMPT_ROW].strip() == "Your turn: x draw · c+slot take the 10 · b Bandit.", rows[PROMPT_ROW]
            assert rows[PROMPT_ROW + 1].strip().startswith("Your two bottom cards — remember them!")
        else:
            assert rows[PROMPT_ROW].strip().startswith("Your two bottom cards — remember them!"), rows[PROMPT_ROW]
        mock_clock.jump(BOTTOM_PEEK_S - 2 - MESSAGE_S)
        await t.settle()
        assert "[ 8]" not in my_box(t.text())[1] and t.sent == []  # (over: no "ready" after the barrier)


async def test_R4_a_look_during_which_the_ready_barrier_runs_out_goes_on_alongside_the_first_turn(
        mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 8, 2]}, discard=10, ready=False, first=1, peek_barrier=5.0) as t:
        await t.other(Ready(1), Ready(2))
        mock_clock.jump(5)
        await t.settle()
        assert t.scene.model.view.phase is Phase.START and t.sent == [] and "[ 8]" in my_box(t.text())[1]
        rows = t.text().splitlines()
        assert rows[PROMPT_ROW].strip() == "The first turn began; your look at your bottom cards goes on (R4)."
        assert rows[PROMPT_ROW + 1].strip() == "Your two bottom cards — remember them! Enter or any key when done (0:05)."


async def test_R4_any_key_ends_the_look_and_confirms(mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 8, 2]}, discard=10, ready=False) as t:
        assert await t.press("m") == [Ready(0)]  # a key without an action still confirms
        assert "[ 8]" not in t.text()
        await t.other(Ready(1))
        assert "waiting for Cy" in t.text()


async def test_R4_help_and_the_log_s_scrolling_leave_the_look_at_the_bottom_cards_open(
        mock_clock: trio.testing.MockClock) -> None:
    """A player who presses ? to learn what to do during the look lost it: the help key
    ended the look (and sent "ready") before the help opened. Help and PgUp/PgDn play
    nothing and answer nothing, so the look stays (any other key ends it). The
    look is 10 s of being shown (R4.3): while the help, or the leave question, covers the
    table its time stands (a player who read the help for 10 s lost the look anyway)."""
    async with table({0: [4, 6, 8, 2]}, discard=10, ready=False) as t:
        mock_clock.jump(2)
        await t.settle()
        assert await t.press("?") == [] and t.ui.help_open
        mock_clock.jump(BOTTOM_PEEK_S + 1)  # (all of it within the table's 30 s ready barrier)
        await t.settle()
        assert t.sent == []
        assert await t.press("?") == [] and t.scene.overlay is Overlay.RULES  # (? turns the help's screen)
        assert await t.press("x") == [] and not t.ui.help_open  # (any other key closes it)
        assert await t.press("pageup") == [] and await t.press("pagedown") == []
        assert "[ 8]" in my_box(t.text())[1]  # still looking
        assert await t.press("ctrl-c") == [] and t.scene.quitting
        mock_clock.jump(5)
        await t.settle()
        assert await t.press("n") == [] and not t.scene.quitting
        mock_clock.jump(BOTTOM_PEEK_S - 2 - 0.5)
        await t.settle()
        assert "[ 8]" in my_box(t.text())[1] and t.sent == []  # shown 9.5 s of 10
        mock_clock.jump(0.5)
        await t.settle()
        assert t.sent == [Ready(0)] and "[ 8]" not in my_box(t.text())[1]


async def test_R4_the_help_s_legend_says_the_marks_by_the_totals_while_the_players_look(
        mock_clock: trio.testing.MockClock) -> None:
    """During the look at the bottom cards each total has "…" or "✓" by it, explained
    nowhere: the help's legend says them then, on one 80×24 screen with everything else."""
    async with table({0: [4, 6, 8, 2]}, discard=10, ready=False) as t:
        assert " 0 …" in t.text()
        await t.press("?")
        rows = t.text().splitlines()
        assert "Totals … still looking at their cards  ✓ ready" in [row.strip() for row in rows], rows
        assert rows[-2].strip().startswith("Paused") and rows[-1].strip().startswith("? how to win"), rows
        await t.press("x")  # (closes the help)
        await t.press("enter")
        await t.other(Ready(1), Ready(2))
        await t.press("?")
        assert "still looking" not in t.text()


async def test_R4_snap_allowed_while_looking_at_the_bottom_cards(mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 10, 2]}, discard=10, ready=False) as t:
        top = t.scene.top_card
        sent = await t.press("space")  # closes the look (Ready) and starts a snap
        assert sent == [Ready(0)]
        assert await t.press("a") == [Snap(0, top, 0, 2)]
        assert "You snapped a 10 from your bottom-left slot — it matched." in t.log


async def test_R4_R6_the_look_says_that_space_also_starts_a_snap_that_counts_before_the_first_turn(
        mock_clock: trio.testing.MockClock) -> None:
    """Space, the snap key, ends the look as any key does and starts a snap: the look's
    prompt says so before the player presses it, and once pressed, that the snap is their
    one snap for the time before the first turn (R6)."""
    async with table({0: [4, 6, 8, 2]}, discard=10, ready=False) as t:
        rows = t.text().splitlines()
        assert rows[PROMPT_ROW].strip() == "Your two bottom cards — remember them! Enter or any key when done (0:10)."
        assert rows[PROMPT_ROW + 1].strip() == "Space also starts a snap: your one snap before the first turn (R6)."
        assert await t.press("space") == [Ready(0)]
        rows = t.text().splitlines()
        assert rows[PROMPT_ROW].strip().startswith("Snap the 10: slot your card") and "[ 8]" not in my_box(t.text())[1]
        assert rows[PROMPT_ROW + 1].strip() == "Look ended (R4). This is your one snap before the first turn (R6)."
        mock_clock.jump(MESSAGE_S)
        await t.settle()
        assert t.text().splitlines()[PROMPT_ROW + 1].strip() == (
            "This is your one snap before the first turn (R6); a failed one counts too.")
        assert await t.press("esc") == []
        assert "Ready (R4) · waiting for Bo and Cy" in prompt_line(t)


async def test_R6_a_snap_begun_as_the_look_ended_names_the_turn_it_counts_in_once_the_first_turn_began(
        mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 8, 2]}, discard=10, ready=False) as t:
        await t.other(Ready(1))
        assert await t.press("space") == [Ready(0)]
        assert t.message == "Look ended (R4). This is your one snap before the first turn (R6)."
        await t.other(Ready(2))  # the first turn (mine) begins before the snap is made
        assert t.message == "Look ended (R4). This is your one snap in your turn (R6)."
        assert await t.press("q") == [Snap(0, t.scene.top_card, 0, 0)]


async def test_R4_R6_the_hint_of_the_one_snap_before_the_first_turn_goes_once_that_snap_is_made(
        mock_clock: trio.testing.MockClock) -> None:
    """Space ended the look and began a snap, and the prompt said it was the player's one
    snap before the first turn; it still said so after that snap was made (a wrong one,
    its penalty card in the log)."""
    async with table({0: [4, 6, 8, 2]}, discard=10, draw=[0], ready=False) as t:
        top = t.scene.top_card
        assert await t.press("space") == [Ready(0)]
        assert "Look ended (R4). This is your one snap" in t.text()
        assert await t.press("s") == [Snap(0, top, 0, 3)]  # a 2 on the 10: wrong (R6)
        assert "penalty card" in t.log
        assert "one snap" not in t.text() and "Look ended" not in t.message, t.text()


async def test_R4_R6_the_ready_prompt_offers_the_snap_before_the_first_turn_only_until_it_is_made(
        mock_clock: trio.testing.MockClock) -> None:
    """Ada snapped before the first turn (R4, R6: her one snap then); the prompt still
    said "Ready (R4) · waiting for Bo and Cy · Space+slot snaps the first discard."."""
    async with table({0: [10, 6, 8, 2]}, discard=10, ready=False) as t:
        assert await t.press("enter") == [Ready(0)]
        assert prompt_line(t) == "Ready (R4) · waiting for Bo and Cy · Space+slot snaps a matching card."
        top = t.scene.top_card
        assert await t.press("space", "q") == [Snap(0, top, 0, 0)]
        assert "it matched" in t.log
        mock_clock.jump(MESSAGE_S)
        await t.settle()
        assert prompt_line(t) == "Ready (R4) · waiting for Bo and Cy.", prompt_line(t)


async def test_R4_R6_the_ready_prompt_says_what_space_snaps_once_another_snap_covered_the_first_discard(
        mock_clock: trio.testing.MockClock) -> None:
    """Bo's snap before the first turn covered the first discard: the prompt still said
    "Space+slot snaps the first discard", which Space no longer does (R6: a snap matches
    the card on top, whichever it is)."""
    async with table({0: [4, 6, 8, 2], 1: [10, 2, 2, 2]}, discard=10, ready=False) as t:
        assert await t.press("enter") == [Ready(0)]
        await t.other(Snap(1, t.scene.top_card, 1, 0))
        assert "it matched" in t.log
        mock_clock.jump(MESSAGE_S)
        await t.settle()
        assert prompt_line(t) == "Ready (R4) · waiting for Bo and Cy · Space+slot snaps a matching card."


async def test_R4_a_turn_key_during_the_look_says_it_ended_the_look_and_who_still_looks(
        mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 8, 2]}, discard=10, ready=False) as t:
        await t.other(Ready(1))
        assert await t.press("x") == [Ready(0)]
        assert t.message == ("Your look ended: you are ready for the first turn (R4). "
                             "The first turn has not started: Cy is still looking at their bottom cards (R4).")
        assert await t.press("q") == []
        assert t.message == "To snap a card press Space first, then its slot."  # (the look was over already)


@pytest.mark.parametrize("keys", ["x", "b", "cq"])
async def test_R4_R5_the_move_that_ends_the_last_look_is_played_as_the_first_turn_begins(
        keys: str, mock_clock: trio.testing.MockClock) -> None:
    """Ana plays first, and Bo and Cy are ready: her x ended her look at the bottom cards
    and sent "ready", but drew nothing, and she had to press x again once her turn began.
    A key that ends the last look and begins a turn (x, c, b; R5) is kept for the first
    turn, hers, and played as it begins."""
    async with table({0: [4, 6, 8, 2]}, discard=10, draw=[0, 2], ready=False) as t:
        await t.other(Ready(1), Ready(2))
        top = t.scene.top_card
        move = {"x": Draw(0), "b": CallBandit(0), "cq": TakeDiscard(0, top, 0)}[keys]
        assert await t.press(*keys) == [Ready(0), move]
        if keys == "x":
            await t.settle()  # (the draw, sent as the turn began, is taken in)
            assert prompt_line(t).startswith("You drew a 0: z discard it")


async def test_R4_a_key_that_ends_the_last_look_says_who_plays_first() -> None:
    async with table({0: [4, 6, 8, 2]}, discard=10, ready=False, first=1) as t:
        await t.other(Ready(1), Ready(2))
        assert await t.press("x") == [Ready(0)]
        assert t.message == "Your look ended: you are ready for the first turn (R4). Bo plays first (R4): nothing was played."


def test_R4_R5_a_draw_typed_while_the_ready_that_starts_the_first_turn_is_on_its_way_is_played_then() -> None:
    """Ana's "ready" is all her first turn waits for, and is on its way: her x waits for
    the turn, saying so, and draws as it begins."""
    session = AwayTable(ScriptedTable(3, {0: [4, 6, 0, 2]}, discard=10, draw=[0, 2], ready=False))
    session.table.do(Ready(1))
    session.table.do(Ready(2))
    ui, press = pressing(session)
    press("enter")
    assert session.sent == [Ready(0)]
    press("x")
    assert session.sent == [Ready(0)]
    assert ui.message is not None and ui.message.text == "Your draw (x) is played as your first turn begins, in a moment (R5)."
    session.land()
    settle(ui, session)
    assert session.sent == [Ready(0), Draw(0)]


# --- R6: snaps --------------------------------------------------------------------------


async def test_R6_snapping_your_own_card_takes_two_keys(mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 10, 2]}, discard=10) as t:
        top = t.scene.top_card
        assert await t.press("space") == []
        assert "Snap the 10" in t.text()
        assert await t.press("a") == [Snap(0, top, 0, 2)]
        assert t.scene.model.top.card != top  # it matched: my card is the new top


async def test_R6_the_slot_key_typed_for_a_refused_snap_says_why_again(mock_clock: trio.testing.MockClock) -> None:
    """Space refused ("one per turn"), then the slot meant for that snap
    answered with the turn's hint ("First x (draw) or c …; to snap, Space first"), which
    reads as if Space had not been pressed."""
    async with table({0: [4, 6, 10, 2]}, discard=10) as t:
        top = t.scene.top_card
        assert await t.press("space", "a") == [Snap(0, top, 0, 2)]
        assert await t.press("space") == []
        refusal = "You already tried your one snap in your turn (R6; a failed one counts too): this Space turned no card."
        assert t.message == refusal
        assert await t.press("s") == [] and t.message == refusal
        mock_clock.jump(STALE_KEYS_S + 0.1)
        await t.settle()
        assert await t.press("s") == [] and t.message is not None and t.message.startswith("First x")


async def test_R5_after_a_snap_in_your_turn_the_discard_goes_into_a_slot_with_a_card_and_bandit_is_not_offered(
        mock_clock: trio.testing.MockClock) -> None:
    """My snap empties my slot a at the start of my turn: taking the discard into it is
    refused saying so (not with the turn's general hint), and the hint no longer offers
    Bandit, which comes before anything else in a turn (R5, R8)."""
    from cli.tui.table_ui import explain

    async with table({0: [4, 6, 10, 2]}, discard=10) as t:
        top = t.scene.top_card
        assert await t.press("space", "a") == [Snap(0, top, 0, 2)]
        assert await t.press("c", "a") == []
        assert t.message == "Your slot a is empty."
        assert await t.press("b") == []
        assert t.message == "Bandit comes before anything else in your turn, and you have snapped in it (R5)."
        shown = t.text().splitlines()  # (at 80 columns: on two rows, its rule at the end still shown)
        assert shown[PROMPT_ROW].strip() == "Bandit comes before anything else in your turn, and you have snapped in it"
        assert shown[PROMPT_ROW + 1].strip() == "(R5)."
        assert explain(Exchange(0, 0), t.scene.model) == "Start your turn: x draws, c + slot takes the discard."
    async with table({0: [4, 6, 10, 2]}, discard=10) as t:
        assert explain(Exchange(0, 0), t.scene.model) == (
            "Start your turn: x draws, c + slot takes the discard, b announces Bandit.")


async def test_R5_a_take_stays_chosen_after_an_empty_slot_as_a_drawn_card_does(mock_clock: trio.testing.MockClock) -> None:
    """Eve's snap emptied her slot a; in her turn c, then a, said "Your slot a is empty."
    and forgot the take: q then said "First x (draw) or c …". With a drawn card an empty
    slot keeps the choice open; a take now does too (R5 C), and the next slot takes."""
    async with table({0: [4, 6, 10, 2]}, discard=10, draw=[0]) as t:
        ten = t.scene.top_card
        assert await t.press("space", "a") == [Snap(0, ten, 0, 2)]
        top = t.scene.top_card
        assert await t.press("c", "a") == []
        assert t.message == "Your slot a is empty." and t.ui.pending is not None
        rows = t.text().splitlines()
        assert rows[PROMPT_ROW].strip().startswith("Take the 10 into which slot?"), rows[PROMPT_ROW]
        assert rows[PROMPT_ROW + 1].strip() == "Your slot a is empty.", rows[PROMPT_ROW + 1]
        assert await t.press("q") == [TakeDiscard(0, top, 0)]
    async with table({0: [4, 6, 10, 2]}, discard=10, draw=[0]) as t:
        ten = t.scene.top_card
        assert await t.press("space", "a") == [Snap(0, ten, 0, 2)]
        assert await t.press("x", "a") == [Draw(0)]
        assert t.message == "Your slot a is empty."
        assert await t.press("w") == [Exchange(0, 1)]


async def test_R6_snapping_an_opponents_card_names_their_slot_and_yours_to_give(mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 0, 2], 1: [0, 10, 2, 4]}, discard=10) as t:
        top = t.scene.top_card
        await t.press("space", "1")
        assert "with Bo's card" in t.text()
        await t.press("w")
        assert "give Bo which card" in t.text()
        assert await t.press("q") == [Snap(0, top, 1, 1, give=0)]
        assert "Bo's top-right slot — it matched; your top-left card went to Bo" in t.log


async def test_R6_a_snap_claims_the_top_that_was_on_screen(mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 0, 2]}, discard=10, draw=[8]) as t:
        shown = t.scene  # the player sees the 10 …
        t.ui.press("space", shown)
        await t.other()  # nothing happened yet
        sent = t.ui.press("s", shown)
        assert sent == [Snap(0, shown.top_card, 0, 3)]


async def test_R6_a_half_typed_snap_is_cancelled_when_the_pile_changes(mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 0, 2]}, discard=10, draw=[8, 0, 6], first=1) as t:
        await t.press("space", "1")
        await t.other(Draw(1), Discard(1))  # Bo covers the 10 with an 8
        assert t.ui.pending is None
        assert t.message == ("The discard pile changed: snap cancelled, not sent — no card turned, no penalty card "
                             "drawn (R6: sent now, it would not be the fastest and would cost one).")
        assert "penalty" not in t.log  # (none was drawn, as it says)
        assert await t.press("q") == []  # the slot key does not finish a stale snap …
        assert "snap cancelled" in t.message  # … and the player still sees why
        await t.press("space", "1")
        await t.other(SkipPower(1), Draw(2), Discard(2))  # an opponent's snap, cancelled half-typed
        assert await t.press("w", "q") == []
        assert "snap cancelled" in t.message
        mock_clock.jump(STALE_KEYS_S)
        assert await t.press("q") == []  # later, a slot key alone is a slip again
        assert "Space first" in t.message


async def test_R6_a_key_that_starts_or_advances_a_snap_shows_its_prompt_at_once(mock_clock: trio.testing.MockClock) -> None:
    """Holding a drawn card, `c` is explained on the prompt line; Space then starts a
    snap and 1 names Bo's card: each shows the snap's next step at once, and the
    explanation of `c` gives way (a player who reads it would place the drawn card)."""
    async with table({0: [4, 6, 0, 2], 1: [12, 0, 2, 4]}, discard=12, draw=[0, 2]) as t:
        assert await t.press("x", "c") == [Draw(0)]
        assert prompt_line(t).startswith("You hold the drawn card: z discards it")
        await t.press("space")
        assert prompt_line(t).startswith("Snap the 12: slot your card, or 1–2 an opponent")
        await t.press("1")
        assert prompt_line(t).startswith("Snap the 12 with Bo's card: slot which one?")


async def test_R6_one_snap_per_turn_is_explained_not_sent(mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 0, 2]}, discard=10) as t:
        assert len(await t.press("space", "q")) == 1  # wrong: a 4 on a 10 → penalty
        assert "wrong (R6): it went back face down, penalty card" in t.log
        assert await t.press("space") == []
        assert t.message == ("You already tried your one snap in your turn (R6; a failed one counts too): this Space "
                             "turned no card.")


async def test_R6_the_prompt_offers_a_snap_in_another_s_turn_only_while_this_player_may_make_one(
        mock_clock: trio.testing.MockClock) -> None:
    """Space a Space s in Bo's turn: the second Space was refused ("One snap per turn"),
    and a moment later the prompt invited a snap again. It offers Space while the snap
    of this turn is not made nor on its way, and says it is made once it is (R6)."""
    from dataclasses import replace

    from cli.tui.table_view import prompt_text

    async with table({0: [4, 6, 0, 2]}, discard=10, draw=[2, 4], first=1) as t:
        assert prompt_line(t) == "Bo is playing · Space+slot snaps a card matching the discard."
        model = t.scene.model
        sending = replace(t.scene, model=replace(model, sending=("snap",)))
        assert prompt_text(sending) == "Bo is playing · you made your one snap this turn (R6)."
        assert len(await t.press("space", "a")) == 1  # (a 0 on a 10: wrong, penalty card)
        assert await t.press("space", "s") == []
        mock_clock.jump(MESSAGE_S)
        await t.settle()
        assert prompt_line(t) == "Bo is playing · you made your one snap this turn (R6)."
        await t.other(Draw(1), Discard(1), SkipPower(1))  # (a 4: peek, skipped)
        mock_clock.jump(MESSAGE_S)
        await t.settle()
        assert prompt_line(t) == "Cy is playing · Space+slot snaps a card matching the discard.", t.log


async def test_R6_a_snap_after_the_round_says_when_snaps_are_not_allowed(mock_clock: trio.testing.MockClock) -> None:
    session = LocalSession(2, 0, script=Script([arranged(2, {0: [0, 0, 2, 2], 1: [18, 16, 14, 12]}, discard=4,
                                                         draw=[0, 2, 0])], [0]), bots_play=False)
    async with trio.open_nursery() as nursery:
        await nursery.start(session.run)
        t = UiDriver(session)
        await round_one_called_and_over(t)  # (Bo's final turn, R8, ends round 1)
        await t.press("enter")  # (its report closed)
        assert await t.press("space") == []
        assert t.message == "No snaps between rounds (R6): this Space turned no card."
        nursery.cancel_scope.cancel()


async def test_R4_R6_a_second_snap_before_the_first_turn_names_that_time_as_the_turn_it_had(
        mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 0, 2]}, discard=10, ready=False) as t:
        assert await t.press("enter", "space", "q") == [Ready(0), Snap(0, t.scene.top_card, 0, 0)]
        assert await t.press("space") == []
        assert t.message == ("You already tried your one snap before the first turn (R6; a failed one counts too): "
                             "this Space turned no card.")


async def test_R6_escape_and_space_cancel_a_snap(mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 0, 2]}, discard=10) as t:
        await t.press("space", "esc")
        assert t.ui.pending is None
        await t.press("space", "space")
        assert t.ui.pending is None
        assert t.sent == [Ready(0)]


async def test_R6_enter_cancels_a_snap_with_no_card_chosen_and_says_so(mock_clock: trio.testing.MockClock) -> None:
    """Space, then Enter: the snap stayed half-open and nothing was said, so the next slot
    key, meant for the turn, would turn a card (R6). Enter finishes no snap: with no card
    chosen it cancels it, saying so; c then Enter cancels the take alike."""
    async with table({0: [4, 6, 0, 2]}, discard=10, draw=[0, 2]) as t:
        assert await t.press("space", "enter") == []
        assert t.ui.pending is None and t.message == "Snap cancelled: no card chosen, none turned."
        assert await t.press("c", "enter") == []
        assert t.ui.pending is None and t.message == "Take cancelled: no slot chosen, nothing taken."
        assert await t.press("x") == [Draw(0)]


async def test_R6_enter_in_a_snap_on_an_opponent_s_card_says_which_key_finishes_it(
        mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 0, 2], 1: [0, 10, 2, 4]}, discard=10) as t:
        top = t.scene.top_card
        assert await t.press("space", "1", "enter") == []
        assert t.message == "Enter does not finish the snap: press the slot of Bo's card."
        rows = t.text().splitlines()
        assert rows[PROMPT_ROW].strip().startswith("Snap the 10 with Bo's card: slot which one?")
        assert rows[PROMPT_ROW + 1].strip() == t.message
        assert await t.press("w", "enter") == []
        assert t.message == "Enter does not finish the snap: press your slot to give Bo."
        assert await t.press("q") == [Snap(0, top, 1, 1, give=0)]


async def test_R6_a_turn_key_typed_in_a_half_typed_snap_neither_plays_nor_drops_the_snap(
        mock_clock: trio.testing.MockClock) -> None:
    """x (beside s) or z (beside a) typed in a snap cancelled it without a word and drew
    or discarded: the snap stays, and the player reads how to finish or cancel it."""
    async with table({0: [4, 6, 10, 2]}, discard=10, draw=[0, 2]) as t:
        top = t.scene.top_card
        assert await t.press("space", "x") == []
        assert t.message == "Finish the snap first: a slot or an opponent's number. Esc cancels it."
        assert t.text().splitlines()[PROMPT_ROW + 1].strip() == t.message
        assert await t.press("a") == [Snap(0, top, 0, 2)]
    async with table({0: [4, 6, 10, 2]}, discard=10, draw=[0, 2]) as t:
        assert await t.press("x", "space", "z") == [Draw(0)]
        assert t.scene.model.view.phase is Phase.DRAWN and t.ui.pending is not None  # (the drawn card is still held)
        assert await t.press("esc", "z") == [Discard(0)]


LEFT_HAND = frozenset("`12345qwertasdfgzxcvb")
"""The keys a left hand types on a QWERTY keyboard (R10: "snapping a one-hand action")."""


def test_R10_every_slot_a_tableau_can_hold_has_keys_of_the_left_hand() -> None:
    """A tableau grows by one slot for every penalty card of the round (R6), with no bound
    in the rules; the table's messages name slots 0–255 (protocol.md §9). The rows of
    slot keys ran on to the right hand (y/h for slots 10 and 11, …) and ended at slot 19:
    past the fifth column, v before a slot key names the card five columns further right."""
    from cli.tui.keymap import FURTHER_KEY, Command, Press, press_for, slot_key, slot_keys
    from p2p.table.messages import SLOT

    named = {}
    for slot in range(SLOT.max + 1):
        keys = slot_keys(slot)
        assert keys and set(keys) <= LEFT_HAND, (slot, keys)
        assert press_for(slot_key(slot)) == Press(Command.SLOT, slot)
        named[slot_key(slot)] = slot
    assert len(named) == SLOT.max + 1
    assert [slot_key(s) for s in (8, 9, 10, 11, 19, 20)] == ["t", "g", "vq", "va", "vg", "vvq"]
    assert press_for(FURTHER_KEY) == Press(Command.FURTHER, 1)
    from cli.tui.canvas import Canvas
    from cli.tui.help_view import draw_help
    from cli.tui.table_ui import MIN_HEIGHT, MIN_WIDTH

    canvas = Canvas(MIN_WIDTH, MIN_HEIGHT)  # (the help says so, on the smallest table screen)
    draw_help(canvas)
    rows = [" ".join(canvas.row_text(y).split()) for y in range(MIN_HEIGHT)]
    assert "e/d r/f t/g penalty slots, a column per two cards · v + slot: five columns on" in rows


async def test_R10_a_snap_on_a_slot_past_the_fifth_column_is_typed_with_the_left_hand(
        mock_clock: trio.testing.MockClock) -> None:
    """Seven wrong snaps give me penalty cards in slots 4 to 10 (R6); slot 10 is in the
    sixth column, written "vq" by its card, and Space v q snaps it."""
    draws = [4, 2, 4, 2, 4, 2, 4, 2, 4, 2, 6, 0, 0, 0]  # a penalty card, then a drawn card, in turn
    async with table({0: [18, 18, 18, 18], 1: [16, 16, 16, 16]}, discard=0, draw=draws, players=2) as t:
        for turn in range(7):  # one wrong snap of my 18 in each turn
            assert await t.press("space", "q") == [Snap(0, t.scene.top_card, 0, 0)]
            if turn % 2 == 0:
                assert await t.press("x", "z") == [Draw(0), Discard(0)]
            else:
                await t.other(Draw(1), Discard(1))
        assert len(t.scene.model.slots(0)) == 11
        box = my_box(t.text())
        assert box[0].split() == ["q[18]", "w[░░]", "e[░░]", "r[░░]", "t[░░]", "vq[░░]"]  # (no slot 11 yet)
        assert box[1].split() == ["a[••]", "s[••]", "d[░░]", "f[░░]", "g[░░]"]
        top = t.scene.top_card
        assert await t.press("space", "v") == []
        assert t.message == "v: the next slot key names a card 5 columns further right."
        assert await t.press("q") == [Snap(0, top, 0, 10)]
        assert t.log.endswith("You snapped a 0 from your slot 10 — it matched.")  # (this test table numbers slots)


# --- R5 and R8: turns from the keyboard -----------------------------------------------


async def test_R5_options_A_B_C_and_R8_bandit_from_the_keyboard(mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 0, 2]}, discard=12, draw=[0, 2, 0, 14, 2]) as t:
        assert await t.press("b") == [CallBandit(0)]
        assert await t.press("b") == []
        assert t.message == "Bandit was already announced this round (by you) — R5."
        assert await t.press("x") == [Draw(0)]
        assert "You drew a 0" in t.text() and "[ 0]" in t.text()  # the drawn card, to me
        assert await t.press("z") == [Discard(0)]  # option A (a 0: no power)
        await t.other(Draw(1), Exchange(1, 0))  # Bo: option B
        await t.other(TakeDiscard(2, t.scene.top_card, 1))  # Cy: option C
    async with table({0: [4, 6, 0, 2]}, discard=12, draw=[0, 2]) as t:
        assert await t.press("x", "b") == [Draw(0)]  # (R5 says when Bandit is announced, as the engine cites)
        assert t.message == "Bandit is announced at the very start of your turn, before drawing (R5)."
        assert await t.press("s") == [Exchange(0, 3)]  # option B: the slot key keeps it
    async with table({0: [4, 6, 0, 2]}, discard=12, draw=[0, 2]) as t:
        top = t.scene.top_card
        assert await t.press("c") == []
        assert "Take the 12 into which slot" in t.text()
        assert await t.press("w") == [TakeDiscard(0, top, 1)]  # option C


async def test_R8_the_status_bar_names_the_players_of_the_final_turns_still_to_play(
        mock_clock: trio.testing.MockClock) -> None:
    """"Bandit by Cy, 2 final turns left" left each player to count seats: the status bar
    names the final turns still to play, and gives way to their count when names do not
    fit in 80 columns."""
    from dataclasses import replace

    def status(t: UiDriver) -> str:
        return t.text().splitlines()[0]

    async with table({0: [4, 6, 0, 2]}, discard=12, draw=[0, 2, 0, 2, 0, 2], players=4, first=2) as t:
        await t.other(CallBandit(2))
        assert "Cy's turn 1:00 · Bandit by Cy, final turns: Di, you" in status(t), status(t)
        await t.other(Draw(2), Discard(2))
        assert "Di's turn 1:00 · Bandit by Cy, final turns: Di, you" in status(t), status(t)
        await t.other(Draw(3), Discard(3))
        assert "Your turn 1:00 · Bandit by Cy, final turn: you" in status(t), status(t)
        seats = t.session._seats
        t.session._seats = (seats[0], seats[1], replace(seats[2], name="山田太郎" * 6), seats[3])
        await t.settle()
        assert re.search(r"Your turn 1:00 · Bandit by 山.*…, 1 final turn left +\? help$", status(t)), status(t)
    async with table({0: [4, 6, 0, 2]}, discard=12, draw=[0, 2], players=4) as t:
        await t.press("b")
        assert "Your turn 1:00 · Bandit by you, final turns: Bo, Cy" in status(t), status(t)


async def test_R5_a_half_typed_take_is_cancelled_when_the_pile_changes(mock_clock: trio.testing.MockClock) -> None:
    """c takes the discard top on screen; a snap that covers it cancels the take, saying
    so: the slot key typed for it does not take the card that covered it (a red Bandit,
    identical to the green one by R2, 22 points worse), and c again takes the new top."""
    async with table({0: [18, 0, 0, 0], 1: [RED, 2, 2, 2]}, discard=GREEN) as t:
        top = t.scene.top_card
        assert await t.press("c") == []
        assert "Take the -2 into which slot" in t.text()
        await t.other(Snap(1, top, 1, 0))  # Bo snaps a red Bandit onto it: it matched
        new = t.scene.top_card
        assert new != top and t.ui.pending is None
        assert t.message == "The discard pile changed: take cancelled, nothing taken (R5 C: c takes the card on top now)."
        assert await t.press("q") == []  # the slot key does not take the card that covered it …
        assert t.message.startswith("The discard pile changed: take cancelled")  # … and the player still sees why
        assert await t.press("c", "q") == [TakeDiscard(0, new, 0)]


async def test_R5_a_take_the_table_finds_covered_did_not_count_and_the_turn_goes_on(mock_clock: trio.testing.MockClock) -> None:
    """Bo's snap reaches the table before a take typed on the screen that did not yet
    show it: the take names the card it saw, so the table refuses it, and the log says so
    as it says every refused move of mine; my slot keeps its card and I choose again."""
    async with table({0: [18, 0, 0, 0], 1: [RED, 2, 2, 2]}, discard=GREEN) as t:
        shown = t.scene  # the player sees the green Bandit …
        top, kept = shown.top_card, shown.model.card_in(0, 0)
        assert t.ui.press("c", shown) == []
        t.session.submit(Snap(1, top, 1, 0))  # … and Bo's snap of a red one counts first
        await trio.testing.wait_all_tasks_blocked()
        sent = t.ui.press("q", shown)
        assert sent == [TakeDiscard(0, top, 0)]
        t.session.submit(sent[0])
        await t.settle()
        line = t.session.lines[-1]
        assert (line.text, line.kind) == (
            "Your take from the discard pile did not count (R5: the card you chose to take is no longer the discard "
            "pile's top: Bo's snap covered it, ordered before the take; you may choose again).", "error")
        model = t.scene.model
        assert model.card_in(0, 0) == kept and model.view.turn_seat == 0 and model.view.phase is Phase.START
        assert await t.press("x") == [Draw(0)]


async def test_R5_out_of_turn_keys_are_explained(mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 0, 2]}, discard=12, draw=[0, 2], first=1) as t:
        assert await t.press("x") == []
        assert t.message == "It is Bo's turn (R5): nothing was played."
        assert await t.press("q") == []
        assert "Space first" in t.message
        assert await t.press("%") == []
        assert "press ? for help" in t.message


# --- R3: every power ----------------------------------------------------------------------


async def power(t: UiDriver) -> None:
    assert await t.press("x", "z") == [Draw(0), Discard(0)]
    assert t.scene.model.view.phase is Phase.POWER


async def test_R3_peek_and_spy_are_shown_for_a_few_seconds(mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 0, 2], 1: [18, 0, 2, 4]}, discard=12, draw=[6, 0, 0, 8]) as t:
        await power(t)
        assert await t.press("q") == [Peek(0, 0)]
        assert "[ 4]" in my_box(t.text())[0]
        mock_clock.jump(FLASH_S)
        await t.settle()
        assert my_box(t.text())[0].strip() == "q[••] w[░░]"
        await t.other(Draw(1), Discard(1), Draw(2), Discard(2))
        await power(t)  # an 8: spy
        assert await t.press("q") == []
        assert t.message == "Spy on whom? Press the opponent's number (1–2) first, then the slot."
        assert await t.press("1", "q") == [Spy(0, 1, 0)]
        assert "[18]" in t.text().splitlines()[3]  # Bo sits across the table (rows 2-4)
        mock_clock.jump(FLASH_S)
        await t.settle()
        assert "[18]" not in t.text()


async def test_R3_memory_aid_keeps_what_you_saw(mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 0, 2]}, discard=12, draw=[6], memory_aid=True) as t:
        assert my_box(t.text())[1].strip() == "a[ 0] s[ 2]"
        await power(t)
        await t.press("w")
        mock_clock.jump(FLASH_S * 10)
        await t.settle()
        assert my_box(t.text())[0].strip() == "q[░░] w[ 6]"


async def test_R3_swap_in_either_order_and_skip(mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 0, 2]}, discard=0, draw=[12, 2, 2, 14, 2, 2, 12]) as t:
        await power(t)
        assert await t.press("q", "2", "s") == [Swap(0, 0, 2, 3)]  # mine, then theirs
        await t.other(Draw(1), Discard(1), Draw(2), Discard(2))
        await power(t)
        assert await t.press("1", "a", "w") == [Swap(0, 1, 1, 2)]  # theirs, then mine
        await t.other(Draw(1), Discard(1), Draw(2), Discard(2))
        await power(t)
        assert await t.press("z") == [SkipPower(0)]


@pytest.mark.parametrize("players", [2, 4, 6])
async def test_R3_the_power_of_the_drawn_and_the_discarded_card_is_written_whole(
        mock_clock: trio.testing.MockClock, players: int) -> None:
    """The look & swap under the discard read "power: look & …" at 100
    columns, "power: look …" at 80 (with long names beside the piles)."""
    async with table({0: [4, 6, 0, 2]}, discard=12, draw=[16, 2], players=players) as t:
        t.session._seats = tuple(SeatInfo(s, "Maximilianaa" if s else "Ana", "TEST") for s in range(players))
        await t.press("x")  # a 16 (R3: look & swap)
        for width in (80, 100):
            assert "look & swap" in " ".join(t.text(width, 24).splitlines()[8:10])
        await t.press("z")
        for width in (80, 100):
            under = t.text(width, 24).splitlines()[8:10]
            assert "power: look & swap" in " ".join(" ".join(row.split()) for row in under), under


async def test_R3_look_and_swap_shows_both_cards_until_decided(mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 0, 2], 2: [18, 0, 2, 4]}, discard=0, draw=[16, 0, 0, 18]) as t:
        await power(t)
        assert await t.press("w", "2", "q") == [LookSwap(0, 1, 2, 0)]
        mock_clock.jump(FLASH_S * 3)  # thinking for a while: both stay on screen
        await t.settle()
        text = t.text()
        assert "[ 6]" in my_box(text)[0] and "[18]" in text.splitlines()[3]
        assert "x exchange" in text
        assert await t.press("x") == [DecideSwap(0, True)]
        await t.other(Draw(1), Discard(1), Draw(2), Discard(2))
        await power(t)
        assert await t.press("q", "1", "q", "z") == [LookSwap(0, 0, 1, 0), DecideSwap(0, False)]


async def test_R3_a_look_and_swap_whose_looked_card_was_snapped_away_offers_only_keeping(
        mock_clock: trio.testing.MockClock) -> None:
    """Cy snaps away the card the player looked at (its 16 on the discarded 16) while the
    player decides: no exchange is possible any more (R3). The prompt says so and offers
    z; x is explained, not sent, and z ends the turn."""
    async with table({0: [4, 6, 0, 2], 2: [16, 0, 2, 4]}, discard=0, draw=[16, 0, 0, 18]) as t:
        await power(t)
        assert await t.press("w", "2", "q") == [LookSwap(0, 1, 2, 0)]
        await t.other(Snap(2, t.scene.top_card, 2, 0))
        assert prompt_line(t) == "A card you looked at was snapped away: z end your turn (no exchange)."
        assert await t.press("x") == []
        assert "snapped away: no exchange (R3); z ends your turn." in t.text()
        assert await t.press("z") == [DecideSwap(0, False)]


async def test_R3_a_key_refused_in_a_swap_is_explained_under_the_swap_s_next_step(
        mock_clock: trio.testing.MockClock) -> None:
    """Bo snapped his slot w empty; typing a swap, the player names it: the refusal
    shows on the line under the prompt, which still says what the swap needs next (the
    refusal covered it for 4 s); the log gives up that row while the refusal shows."""
    async with table({0: [4, 6, 0, 2], 1: [0, 12, 2, 4]}, discard=12, draw=[14, 0]) as t:
        await t.other(Snap(1, t.scene.top_card, 1, 1))
        await power(t)  # a 14: swap
        assert await t.press("1", "w") == []
        rows = t.text().splitlines()
        assert rows[PROMPT_ROW].strip() == "Swap with Bo: slot which of their cards? · Esc cancel."
        assert rows[PROMPT_ROW + 1].strip() == "Bo has no card in slot w."
        assert rows[PROMPT_ROW + 2].startswith("── table log")
        mock_clock.jump(MESSAGE_S)
        await t.settle()
        rows = t.text().splitlines()
        assert rows[PROMPT_ROW].strip().startswith("Swap with Bo:") and rows[PROMPT_ROW + 1].startswith("── table log")
        assert await t.press("q", "a") == [Swap(0, 2, 1, 0)]

# --- R9, R1: the end of a round and of the game ----------------------------------------------


async def test_R3_esc_in_a_half_typed_power_shows_the_power_s_prompt_again(mock_clock: trio.testing.MockClock) -> None:
    """Esc in a half-typed power leaves the player what to do: the power may still be
    used or skipped (R3), so its prompt comes back (not "Cancelled." in its place)."""
    async with table({0: [4, 6, 0, 2], 1: [18, 0, 2, 4]}, discard=0, draw=[16, 0]) as t:
        await power(t)
        await t.press("1")
        assert prompt_line(t).startswith("Look & swap with Bo:")
        assert await t.press("esc") == []
        assert prompt_line(t) == "Look & swap: slot yours and 1–2+slot theirs · z skip."
        assert await t.press("z") == [SkipPower(0)]


async def test_a_slot_key_beyond_the_tableau_says_there_is_no_such_penalty_slot(
        mock_clock: trio.testing.MockClock) -> None:
    """e names the first penalty slot (R6): with none, "That slot of yours is empty."
    was wrong; so was "Bo has no card in slot e" for an opponent without one."""
    async with table({0: [4, 6, 0, 2], 1: [18, 0, 2, 4]}, discard=10, draw=[14, 0]) as t:
        assert await t.press("c", "e") == []
        assert t.message == "You have no penalty slot e."
        await t.press("esc")
        await power(t)  # a 14: swap
        assert await t.press("1", "e") == []
        assert t.message == "Bo has no penalty slot e."


async def test_R3_a_key_that_starts_or_advances_a_look_and_swap_shows_its_prompt_at_once(
        mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 0, 2], 1: [18, 0, 2, 4]}, discard=0, draw=[16, 0]) as t:
        await power(t)
        assert await t.press("c") == []
        assert prompt_line(t) == "Use the power or skip it with z."
        await t.press("1")
        assert prompt_line(t).startswith("Look & swap with Bo: slot which of their cards?")
        await t.press("a")
        assert prompt_line(t).startswith("Look & swap: slot which card of yours?")


async def test_R9_round_end_screen_shows_every_card_the_bonus_and_the_audit(mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [0, 0, 2, 2], 1: [18, 16, 14, 12]}, discard=4, draw=[0, 2, 0],
                     players=2, audit_delay=1.0) as t:
        await t.press("b", "x", "z")
        await t.other(Draw(1), Discard(1))
        assert t.scene.overlay is Overlay.ROUND
        text = t.text()
        assert "Round 1 is over" in text
        assert "You announced Bandit with 4, strictly the lowest: -10 (R9)." in text
        assert "[18]" in text and "[16]" in text  # every card face up
        assert "checking the shuffles" in text
        mock_clock.jump(1.0)
        await t.settle()
        assert "✓ replayed" in t.text()
        await t.press("enter")
        assert t.scene.overlay is None


async def test_R4_R5_the_round_screen_says_live_what_the_next_round_does_while_it_is_read(
        mock_clock: trio.testing.MockClock) -> None:
    """Gus read round 1's scores for 40 s: the screen said only that the next round had
    started, while its look at the bottom cards ran out without him and then his turn's
    20 s; back at the table he had 6 s left, and the log said "Not everyone was ready in
    time" without saying who. The round screen says, as the time runs, that the look
    (R4) is on and he is not ready, then that it is his turn and how long he has (R5);
    the log names who was not ready."""
    deal = arranged(2, {0: [0, 0, 2, 2], 1: [18, 16, 14, 12]}, discard=4, draw=[0, 2, 0])
    session = LocalSession(2, 0, script=Script([deal], [0, 0]), bots_play=False, turn_timeout=20.0)
    async with trio.open_nursery() as nursery:
        await nursery.start(session.run)
        t = UiDriver(session)
        await round_one_called_and_over(t)  # (Bo's final turn, R8, ends round 1)
        assert t.scene.overlay is Overlay.ROUND
        assert "has begun" not in t.text()  # (not yet)
        mock_clock.jump(session.between_rounds)
        await t.settle()
        await t.other(Ready(1))  # Bo is ready, Gus reads on
        said = " ".join(t.text().split())
        assert ("Round 2 has begun: first turn in 0:30, ready or not (R4). You are not ready: Enter, then look at "
                "your bottom cards.") in said, t.text()
        mock_clock.jump(12)
        await t.settle()
        assert "first turn in 0:18" in " ".join(t.text().split())
        mock_clock.jump(18)  # the ready barrier runs out: the first turn, Gus's, begins (R4)
        await t.settle()
        assert t.scene.overlay is Overlay.ROUND
        assert "Round 2 has begun. It is your turn: 0:20 left." in " ".join(t.text().split()), t.text()
        mock_clock.jump(8)
        await t.settle()
        assert "It is your turn: 0:12 left." in " ".join(t.text().split())
        assert t.text().splitlines()[-1] == " Enter: back to the table"
        assert "You were not ready in time: the first turn starts (R4)." in t.log
        nursery.cancel_scope.cancel()


async def test_R1_game_end_screen_shows_standings_log_and_audit_command(mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [0, 0, 2, 2], 1: [18, 16, 14, 12]}, discard=4, draw=[0, 2, 0], players=2,
                     target=20, log_path="logs/game-test.bandit") as t:
        await t.press("b", "x", "z")
        await t.other(Draw(1), Discard(1))
        assert "Enter: the final standings" in t.text()  # (the last round, R1, before its audit is in)
        await t.press("enter")
        assert t.scene.overlay is Overlay.GAME
        assert "checking the last round's shuffles before the result stands" in t.text()  # §8.9
        mock_clock.jump(1.0)
        await t.settle()
        text = t.text()
        assert "Game over — You win with -6 points" in text
        assert "Bo (60) reached 20, so the game ends (R1): the lowest total wins." in text
        assert "bandit-lan audit logs/game-test.bandit" in text
        await t.press("enter")
        assert t.ui.finished


async def test_R9_R1_the_last_round_s_screen_says_the_game_is_over_and_whose_total_reached_the_target(
        mock_clock: trio.testing.MockClock) -> None:
    """The last round's screen only offered "Enter: the final standings": it says, under
    the round's audit, that the game is over and why (R9: Bo's total reached the target),
    before and after the audit; with no room for it, the footer says it in short; a game
    that ended early (Bo left) says so instead."""
    from dataclasses import replace

    from cli.tui.canvas import Canvas
    from cli.tui.round_view import draw_round_end

    said = "The game is over: Bo (60) reached 20 (R9); the lowest total wins (R1)."
    async with table({0: [0, 0, 2, 2], 1: [18, 16, 14, 12]}, discard=4, draw=[0, 2, 0], players=2, target=20,
                     audit_delay=1.0) as t:
        await t.press("b", "x", "z")
        await t.other(Draw(1), Discard(1))
        for audited in (False, True):
            rows = [row.strip() for row in t.text().splitlines()]
            assert rows[-1] == "Enter: the final standings", rows
            verdict = next(i for i, row in enumerate(rows) if row.startswith("Audit of this round:"))
            assert ("✓ replayed" in rows[verdict]) if audited else rows[verdict].endswith("…"), rows[verdict]
            assert rows[verdict + 2] == said, rows
            mock_clock.jump(1.0)
            await t.settle()
        assert t.scene.model.ended and t.scene.overlay is Overlay.ROUND
        model = t.scene.model
        canvas = Canvas(80, 11)
        draw_round_end(canvas, model, 0)
        assert canvas.text().splitlines()[-1].strip() == "The game is over (R9) · Enter: the final standings"
        assert "The game is over:" not in canvas.text()
        canvas = Canvas(80, 24)
        draw_round_end(canvas, replace(model, finished=False, ended_why="Bo left the table"), 0)
        assert "Game ended: Bo left the table." in canvas.text() and "reached" not in canvas.text(), canvas.text()


@pytest.mark.parametrize(("players", "bots", "words"), [
    (4, 3, "Every seat's log is here; check them together:"),  # `play` (3 bots, the default)
    (4, 2, "Your bots' logs are here too; check them together with yours:"),  # `host --bots 2`: a person joined
])
async def test_R1_the_game_end_screen_of_a_seat_that_seated_bots_shows_how_to_audit_their_logs_with_its_own(
        mock_clock: trio.testing.MockClock, players: int, bots: int, words: str) -> None:
    """`play` and `host --bots`: the bots' logs lie beside the seat's own, and the game-end
    screen says how to check them together, as the terminal does once it is closed (an
    80×24 screen holds it, with four players)."""
    others = {s: [18, 16, 14, 12] for s in range(1, players)}
    async with table({0: [0, 0, 2, 2], **others}, discard=4, draw=[0, 2, 0], players=players, target=20,
                     log_path="logs/0a1b2c3d4e5f-seat1.bandit-log") as t:
        t.session.logs_beside = tuple(f"logs/0a1b2c3d4e5f-seat{s + 1}.bandit-log" for s in range(1, bots + 1))
        await t.press("b", "x", "z")
        await t.other(Draw(1), Discard(1), Draw(2), Discard(2))
        await t.press("enter")
        mock_clock.jump(1.0)
        await t.settle()
        assert t.scene.overlay is Overlay.GAME
        text = " ".join(t.text(80, 24).split())
        assert "Game over — You win" in text, text
        assert f"{words} bandit-lan audit logs/0a1b2c3d4e5f-seat*.bandit-log" in text, text
        assert "bandit-lan audit logs/0a1b2c3d4e5f-seat1.bandit-log" in text, text  # (its own, as before)


async def test_R1_a_terminal_too_small_for_the_game_s_end_shows_the_standings_if_they_fit(
        mock_clock: trio.testing.MockClock) -> None:
    """A player at 60×20 when the game ended read only that it was over, though who won
    and every total fit: a screen too small for the game-end screen shows the standings
    (places, names, totals, the winner, why the game ended) and that Enter leaves (Ctrl-C
    does too, at once); one too small even for them says the game is over, as before."""
    async with table({0: [0, 0, 2, 2], 1: [18, 16, 14, 12]}, discard=4, draw=[0, 2, 0], players=2,
                     target=20, log_path="logs/game-test.bandit") as t:
        assert "the game goes on meanwhile" in " ".join(t.text(60, 20).split())  # (while it is played)
        await t.press("b", "x", "z")
        await t.other(Draw(1), Discard(1))
        mock_clock.jump(1.0)
        await t.settle()
        rows = [row.rstrip() for row in t.text(60, 20).splitlines()]
        assert rows[:5] == [" Game over — You win with -6 points",
                            "",
                            "                    total    r1",
                            "   1.  You             -6    -6",
                            "   2.  Bo              60    60"], rows
        small = " ".join(" ".join(rows).split())
        assert "Bo (60) reached 20, so the game ends (R1): the lowest total wins." in small, small
        assert "enlarge it to 80×24 to read where your fairness log is" in small, small
        assert rows[-1] == " Enter: leave" and "goes on" not in small, small
        assert t.scene.draw(60, 20).style_at(8, 3) == "class:good"  # (the winner's row)
        rows = [row.rstrip() for row in t.text(26, 7).splitlines()]
        assert rows == [" Game over — You win with", " -6 points", "", " (r1 not shown)     total",
                        "   1.  You             -6", "   2.  Bo              60", " Enter: leave"], rows
        small = " ".join(t.text(70, 5).split())
        assert "This terminal is 70×5; the end of the game needs 80×24. The game is over" in small, small
        assert "press Enter to leave" in small, small
        t.ui.press("ctrl-c", t.ui.scene(), (26, 7))
        assert t.ui.finished


@pytest.mark.parametrize("size", [(60, 20), (26, 7), (70, 5)])
async def test_R1_enter_leaves_the_game_s_end_on_a_terminal_too_small_for_the_table(
        mock_clock: trio.testing.MockClock, size: tuple[int, int]) -> None:
    """The game-end screen leaves on Enter, but shown small (the standings only, or just
    that the game is over) Enter did nothing, though the footer is where the player looks
    for what leaves. Enter leaves it as on the full screen; keys mashed do not."""
    async with table({0: [0, 0, 2, 2], 1: [18, 16, 14, 12]}, discard=4, draw=[0, 2, 0], players=2,
                     target=20) as t:
        await t.press("b", "x", "z")
        await t.other(Draw(1), Discard(1))
        mock_clock.jump(1.0)
        await t.settle()
        for key in ("x", "z", "space", "q", "esc", "?"):
            assert t.ui.press(key, t.ui.scene(), size) == [] and not t.ui.finished, key
        said = " ".join(t.text(*size).split())
        assert "Enter: leave" in said or "press Enter to leave" in said, said
        t.ui.press("enter", t.ui.scene(), size)
        assert t.ui.finished


async def test_R9_R1_the_round_and_game_screens_close_only_on_enter(mock_clock: trio.testing.MockClock) -> None:
    """Keys mashed at the end of the last final turn (Space is the snap key, q a slot,
    Esc cancels a snap) close neither the round screen nor the final standings, whose
    sums the player would never see: only Enter, the key both screens name, does."""
    mashed = ("x", "z", "z", "space", "q", "a", "1", "c", "b", "esc")
    async with table({0: [0, 0, 2, 2], 1: [18, 16, 14, 12]}, discard=4, draw=[0, 2, 0], players=2,
                     target=20) as t:
        await t.press("b", "x", "z")
        await t.other(Draw(1), Discard(1))
        assert await t.press(*mashed) == []
        assert t.scene.overlay is Overlay.ROUND and t.text().splitlines()[-1].startswith(" Enter: ")
        await t.press("enter")
        mock_clock.jump(1.0)
        await t.settle()
        assert await t.press(*mashed) == []
        assert t.scene.overlay is Overlay.GAME and not t.ui.finished and "Enter: leave" in t.text()
        await t.press("enter")
        assert t.ui.finished


async def test_R4_a_look_at_the_bottom_cards_leaves_the_turn_that_comes_during_it_on_the_prompt(
        mock_clock: trio.testing.MockClock) -> None:
    """The player reads round 1's screen well into round 2, whose first turn (Bo's) began
    without them at the 30 s barrier; they close it, and their 10 s look at the new
    bottom cards begins. Bo plays: the player's turn comes during the look. The prompt
    says what the turn's keys do (the look's line covered it), the look goes on on the
    line under it, and x draws (ending the look)."""
    first = arranged(2, {0: [0, 0, 2, 2], 1: [18, 16, 14, 12]}, discard=4, draw=[0, 2, 0])
    second = arranged(2, {0: [4, 6, 8, 2], 1: [10, 10, 12, 12]}, discard=10, draw=[0, 2, 0])
    session = LocalSession(2, 0, script=Script([first, second], [0, 1]), bots_play=False)
    async with trio.open_nursery() as nursery:
        await nursery.start(session.run)
        t = UiDriver(session)
        await round_one_called_and_over(t)  # (Bo's final turn, R8, ends round 1)
        assert t.scene.overlay is Overlay.ROUND
        mock_clock.jump(session.between_rounds)
        await t.settle()
        await t.other(Ready(1))
        mock_clock.jump(session.peek_barrier)  # round 2's first turn begins without this player's "ready"
        await t.settle()
        assert t.scene.model.view.turn_seat == 1 and t.scene.overlay is Overlay.ROUND
        await t.press("enter")
        assert "remember them" in prompt_line(t) and "[ 8]" in my_box(t.text())[1]
        await t.other(Draw(1), Discard(1))
        rows = t.text().splitlines()
        assert rows[PROMPT_ROW].strip() == "Your turn: x draw · c+slot take the 0 · b Bandit.", rows[PROMPT_ROW]
        assert rows[PROMPT_ROW + 1].strip().startswith("Your two bottom cards — remember them!")
        assert "[ 8]" in my_box(t.text())[1]  # the look goes on
        assert await t.press("x") == [Draw(0)]
        assert "remember them" not in t.text() and "[ 8]" not in my_box(t.text())[1]
        nursery.cancel_scope.cancel()


async def test_quitting_asks_first(mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [0, 0, 2, 2]}, discard=4) as t:
        await t.press("ctrl-c")
        assert t.scene.quitting and "Leave the table?" in t.text()
        assert "Leaving ends the game for the whole table" in t.text()  # as it does (§9.8): nobody plays on
        await t.press("esc")
        assert not t.scene.quitting and not t.ui.leaving
        await t.press("ctrl-c", "y")
        assert t.ui.leaving


async def test_while_the_leave_question_is_open_the_last_row_offers_only_its_keys(
        mock_clock: trio.testing.MockClock) -> None:
    """Under "Leave the table? … Enter/y: leave" the help bar still offered the table's
    keys, and the round's screen "Enter: back to the table" (Enter leaves the table):
    the last row offers the question's keys while it is open."""
    async with table({0: [0, 0, 2, 2], 1: [18, 16, 14, 12]}, discard=4, draw=[0, 2, 0], players=2) as t:
        assert t.text().splitlines()[-1].startswith(" Space snap")
        await t.press("b", "x", "z")
        await t.other(Draw(1), Discard(1))
        assert t.scene.overlay is Overlay.ROUND and t.text().splitlines()[-1].strip() == "Enter: back to the table"
        await t.press("ctrl-c")
        for width, height in ((80, 24), (132, 40)):
            rows = t.text(width, height).splitlines()
            assert "Leave the table?" in "\n".join(rows) and rows[-1].strip() == "Enter/y leave · Esc/n stay", rows
        await t.press("esc", "enter")
        assert t.scene.overlay is None
        await t.press("ctrl-c")
        rows = t.text().splitlines()
        assert rows[-1].strip() == "Enter/y leave · Esc/n stay" and "Space snap" not in rows[-1], rows


async def test_a_second_ctrl_c_does_not_answer_the_leave_question(mock_clock: trio.testing.MockClock) -> None:
    """A reflex double Ctrl-C left the table at once, ending the game for everyone,
    though the question lists only Enter/y and Esc/n: the second one now says so."""
    async with table({0: [0, 0, 2, 2]}, discard=4) as t:
        await t.press("ctrl-c", "ctrl-c")
        assert t.scene.quitting and not t.ui.leaving
        assert "Ctrl-C does not answer: press Enter or y to leave." in t.text()
        await t.press("esc")
        assert not t.scene.quitting and "Ctrl-C does not answer" not in t.text()
        await t.press("ctrl-c")
        assert t.scene.quitting and "Ctrl-C does not answer" not in t.text()  # (asked afresh)
        await t.press("enter")
        assert t.ui.leaving


async def test_help_screen_explains_snap_and_bandit(mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [0, 0, 2, 2]}, discard=4) as t:
        await t.press("?")
        text = t.text()
        assert t.scene.overlay is Overlay.HELP
        assert "Space + your slot" in text and "announce Bandit" in text and "[••] seen by you" in text
        assert await t.press("x") == []  # any key closes help, and does nothing else
        assert t.scene.overlay is None


def test_R5_R8_the_help_s_bandit_note_cites_when_it_may_be_announced_and_what_follows() -> None:
    """The note said "Bandit (R8): announce it before drawing": when Bandit may be
    announced is R5 (the very start of a turn, before anything else: a snap of your own
    in that turn forbids it too, once a round), what follows it R8 (the final turns), the
    caller's -10 or +10 R9. Shown whole on the smallest table screen."""
    from cli.tui.canvas import Canvas
    from cli.tui.help_view import draw_help
    from cli.tui.table_ui import MIN_HEIGHT, MIN_WIDTH

    canvas = Canvas(MIN_WIDTH, MIN_HEIGHT)
    draw_help(canvas)
    shown = " ".join(" ".join(canvas.row_text(y).split()) for y in range(MIN_HEIGHT - 1))
    assert ("Bandit (R5): announce it at the very start of your turn, before anything else (a draw or a snap of "
            "yours), if nobody has this round and your sum seems lowest. Then (R8) you play that turn and the next "
            "two players one final turn each (at a table of two, the other). Strictly lowest: -10, else +10 (R9).") in shown


def test_R6_s11_3_the_help_says_what_enter_does_in_a_snap_and_that_no_move_plays_after_a_long_stop() -> None:
    """The help did not say that Enter cancels a half-typed snap with no card chosen, nor
    that no move plays after a stop past the grace period, which it says in a player's
    words (the table waits for a player away that long). Both show whole on the smallest
    table screen, above its footer."""
    from cli.tui.canvas import Canvas
    from cli.tui.help_view import draw_help
    from cli.tui.table_ui import MIN_HEIGHT, MIN_WIDTH

    canvas = Canvas(MIN_WIDTH, MIN_HEIGHT)
    draw_help(canvas)
    rows = [" ".join(canvas.row_text(y).split()) for y in range(MIN_HEIGHT)]
    assert "Enter ready after the look · cancel a snap with no card · close screens" in rows
    assert "Paused (Ctrl-Z, sleep) too long? No move plays till you reach the others." in rows[:-1]
    assert "grace period" not in canvas.text() and "moves wait" not in canvas.text().lower()
    assert "§" not in canvas.text()  # (players know the rules' R-numbers, not the protocol's sections)
    assert rows[-1] == "? how to win, options A B C, the cards · any other key: back to the table"


def _help_rows(draw: Callable[..., None], *args: object, width: int = 80, height: int = 24) -> list[str]:
    from cli.tui.canvas import Canvas

    canvas = Canvas(width, height)
    draw(canvas, *args)
    return [" ".join(canvas.row_text(y).split()) for y in range(height)]


def test_R1_R3_R5_R9_the_help_s_second_screen_says_how_to_win_the_turn_s_options_and_the_cards() -> None:
    """A first-time player read the keys and "Snap (R6)" and "Bandit (R5)" in the help but
    not how to win, what options A, B and C are, nor which card has which power (they
    learnt a power only by drawing its card). `?` again shows how to play, whole and
    above its footer on the smallest table screen: nothing more shows on a taller one."""
    from cli.tui.help_view import RULES_FOOTER, draw_rules
    from cli.tui.table_ui import MIN_HEIGHT, MIN_WIDTH
    from engine.skills import DEFAULT_SKILLS

    rows = _help_rows(draw_rules, DEFAULT_SKILLS, 100, width=MIN_WIDTH, height=MIN_HEIGHT)
    said = " ".join(rows)
    assert ("How to win (R1, R9): the lowest total wins (equal lowest share the win); the game ends after the "
            "round in which a total reaches or passes 100.") in said
    assert "Bandit call and its final turns (R8), or when nothing is left to draw (R7)" in said
    assert "A x z draw, look, discard it face up; then you may use its power" in rows
    assert "B x slot draw, look, put it in that slot; the card there is discarded unseen" in rows
    assert "C c slot take the discard top into that slot; the card there is discarded" in rows
    assert "Cards (R2, R3): a power is used only in option A, after its card is discarded." in rows
    assert "0 2 no power" in rows
    assert "4 6 peek: look at one of your own cards" in rows
    assert "8 10 spy: look at one card of another player" in rows
    assert "12 14 swap: exchange one of yours with another player's card; nobody looks" in rows
    assert ("16 18 look & swap: look at one of yours and one of another player's, then exchange them or not"
            in said)
    assert "-2 20 green Bandit and red Bandit: no power; identical to each other in a snap (R6)" in said
    assert rows[-1] == RULES_FOOTER and rows[-2] == ""
    taller = _help_rows(draw_rules, DEFAULT_SKILLS, 100, width=MIN_WIDTH, height=60)
    assert [row for row in taller if row][:-1] == [row for row in rows if row][:-1]  # (nothing left out at 80×24)


def test_R2_R3_the_help_lists_the_cards_of_the_table_s_skills_table_and_its_target() -> None:
    """A table playing with its own skills table (`--skills`) and to 50: the help names
    its cards and powers and its target, not the default deck's."""
    from cli.tui.help_view import draw_rules
    from engine.skills import Skills

    skills = Skills.from_toml("""
[[card]]
value = 1
count = 20
[[card]]
value = 5
count = 10
power = "spy"
[[card]]
value = 9
count = 10
power = "spy"
[[card]]
name = "joker"
value = -5
count = 4
bandit = true
""")
    rows = _help_rows(draw_rules, skills, 50)
    said = " ".join(rows)
    assert "1 no power" in rows and "5 9 spy: look at one card of another player" in rows, rows
    assert "-5 joker: no power; identical to each other in a snap (R6)" in rows, rows
    assert "a total reaches or passes 50." in said and "peek" not in said and "swap:" not in said


async def test_R1_R5_question_mark_turns_the_help_to_how_to_play_and_back(mock_clock: trio.testing.MockClock) -> None:
    """The help's footer says `?` again shows how to win, the options and the cards; `?`
    there goes back to the keys, and any other key returns to the table, playing nothing."""
    async with table({0: [0, 0, 2, 2]}, discard=4) as t:
        await t.press("?")
        rows = t.text().splitlines()
        assert rows[-1].strip() == "? how to win, options A B C, the cards · any other key: back to the table"
        assert await t.press("?") == [] and t.scene.overlay is Overlay.RULES
        assert "How to win (R1, R9): the lowest total wins" in t.text(), t.text()
        assert t.text().splitlines()[-1].strip() == "? the keys · any other key: back to the table"
        assert await t.press("?") == [] and t.scene.overlay is Overlay.HELP
        await t.press("?")
        assert await t.press("x") == [] and t.scene.overlay is None  # (closes the help, does not draw)


async def test_R1_the_header_says_the_game_ends_at_the_target_and_the_lowest_total_wins(
        mock_clock: trio.testing.MockClock) -> None:
    """The header said "to 100", which reads as a race to 100: it says that the game ends
    at 100 and the lowest total wins, in as many words as the row has room for (at 80
    and 132 columns), while what the table is doing keeps its words."""
    from dataclasses import replace

    async with table({0: [4, 6, 0, 2]}, discard=12, draw=[0, 2, 0, 2], players=4, first=1) as t:
        for columns in (80, 132):
            header = t.text(columns).splitlines()[0]
            assert header.startswith(" Round 1 · Bo's turn 1:00 ") and header.endswith(
                "game ends at 100 · lowest total wins · ? help"), header
        seats = t.session._seats
        t.session._seats = (seats[0], replace(seats[1], name="Maximilianus"), *seats[2:])
        await t.settle()
        header = t.text(80).splitlines()[0]
        assert header.startswith(" Round 1 · Maximilianus's turn 1:00  ") and header.endswith(
            "  ends at 100 · lowest wins · ? help"), header
        header = t.text(132).splitlines()[0]
        assert header.startswith(" Round 1 · Maximilianus's turn 1:00  ") and header.endswith(
            "  game ends at 100 · lowest total wins · ? help"), header
        t.session._seats = seats
        await t.other(CallBandit(1))  # (the final turns' names come first: the goal's words give way)
        for columns, words in ((80, ""), (132, " game ends at 100 · lowest total wins")):
            header = t.text(columns).splitlines()[0]
            assert header.startswith(" Round 1 · Bo's turn 1:00 · Bandit by Bo, final turns: Cy, Di ") and (
                header.endswith(f"{words} · ? help" if words else "  ? help")), header


async def test_R8_the_header_cuts_the_turn_s_name_only_for_what_it_shows(mock_clock: trio.testing.MockClock) -> None:
    """At six seats after this player's Bandit call, the header cut the name of whose turn
    it is to "Dés…" so that "ends at 100 · ? help" would fit, which even so did not, and
    wrote "? help" alone after ten blank columns. What is shown is decided first: the name
    gives way only as far as what is shown asks, and not below 12 columns for the target."""
    from dataclasses import replace

    async with table({0: [4, 6, 0, 2]}, discard=12, draw=[0, 2, 4, 6], players=6) as t:
        seats = t.session._seats
        t.session._seats = (seats[0], replace(seats[1], name="Désirée-Lumière"), *seats[2:])
        await t.press("b", "x", "z")
        assert t.text(80).splitlines()[0] == (
            " Round 1 · Désirée-Lum…'s turn 1:00 · Bandit by you, 2 final turns left  ? help")
        header = t.text(100).splitlines()[0]
        assert header.startswith(" Round 1 · Désirée-Lumière's turn 1:00 · ") and header.endswith(" ? help"), header


async def test_R5_R6_a_bot_s_possessive_is_written_on_its_name(mock_clock: trio.testing.MockClock) -> None:
    """The header read "Bo (bot)'s turn": the possessive goes on the name ("Bo's turn"),
    "(bot)" staying where the name is said (its header, "Bo (bot) is playing")."""
    async with table({0: [4, 6, 0, 2]}, discard=10, draw=[2, 4], first=1) as t:
        _named(t, ("Ana", "Bo (bot)", "Cy"))
        await t.settle()
        assert t.text().splitlines()[0].startswith(" Round 1 · Bo's turn 1:00 "), t.text()
        assert prompt_line(t).startswith("Bo (bot) is playing · ")
        await t.press("space", "1")
        assert prompt_line(t).startswith("Snap the 10 with Bo's card: "), prompt_line(t)


async def test_R5_R6_a_name_that_is_a_possessive_already_takes_no_second_one(mock_clock: trio.testing.MockClock) -> None:
    """The header read "Mum's's turn" for a player called "Mum's": a name ending in an
    apostrophe, or in one and "s", is a possessive already (`engine.narrate.owner`); the
    header keeps it so when it cuts the name ("…'s" then follows the cut), and the
    screen's sentences too."""
    from dataclasses import replace

    async with table({0: [4, 6, 0, 2]}, discard=10, draw=[2, 4], first=1) as t:
        _named(t, ("Ana", "Mum's", "Jess'"))
        await t.settle()
        assert t.text().splitlines()[0].startswith(" Round 1 · Mum's turn 1:00 "), t.text()
        await t.press("space", "1")
        assert prompt_line(t).startswith("Snap the 10 with Mum's card: "), prompt_line(t)
        assert t.scene.model.whose(2) == "Jess'" and t.scene.model.whose(1, 3) == "Mu…'s"
    async with table({0: [4, 6, 0, 2]}, discard=12, draw=[0, 2, 4, 6], players=6) as t:
        seats = t.session._seats
        t.session._seats = (seats[0], replace(seats[1], name="Désirée-Lumière's"), *seats[2:])
        await t.press("b", "x", "z")
        assert t.text(80).splitlines()[0] == (
            " Round 1 · Désirée-Lum…'s turn 1:00 · Bandit by you, 2 final turns left  ? help"), t.text(80)
        header = t.text(100).splitlines()[0]
        assert header.startswith(" Round 1 · Désirée-Lumière's turn 1:00 · ") and header.endswith(" ? help"), header


async def test_R4_the_first_round_s_look_says_where_the_rules_are(mock_clock: trio.testing.MockClock) -> None:
    """A first-time player's first screen, the look at the bottom cards (R4), says under
    the look where the rules are; once the look is over, and in a later round's look, the
    line is gone."""
    from dataclasses import replace

    from cli.tui.table_view import NEW_PLAYER_HINT, prompt_lines

    async with table({0: [4, 6, 8, 2]}, discard=10, ready=False) as t:
        lines = [line.text for line in prompt_lines(t.scene)]
        assert lines[0].startswith("Your two bottom cards — remember them!") and lines[-1] == NEW_PLAYER_HINT, lines
        assert "New to Bandit? ? shows the keys, ? again how to win and what the cards do." in t.text()
        model = t.scene.model
        later = replace(t.scene, model=replace(model, view=replace(model.view, round=2)))
        assert NEW_PLAYER_HINT not in [line.text for line in prompt_lines(later)]
        await t.press("enter")
        assert "New to Bandit?" not in t.text()


# --- a live table turns cards over asynchronously -------------------------------------------


class SlowTable:
    """A `TableSession` over a scripted game whose table work (reveals) is done only when
    the test says so, like a live table waiting for every peer's decryption share."""

    def __init__(self, table: ScriptedTable) -> None:
        self.table = table
        self.me = 0
        self.seats = tuple(SeatInfo(s, name, "TEST") for s, name in enumerate(("Ana", "Bo", "Cy")[: table.game.players]))
        self.lines: list[Line] = []
        self.reports: list[RoundReport] = []
        self.deadlines = Deadlines()
        self.progress = Progress()
        self.sent: list[object] = []
        self.queued: list[object] = []

    def view(self):  # type: ignore[no-untyped-def]
        return self.table.view(0)

    def submit(self, intent: object) -> None:
        """Sent; applied at once, or queued behind the table's work (as §9 does)."""
        self.sent.append(intent)
        if self.table.game.needs:
            self.queued.append(intent)
        else:
            self.table.do(intent, serve=False)  # type: ignore[arg-type]

    def serve(self) -> None:
        self.table.serve()
        while self.queued:
            self.table.do(self.queued.pop(0))  # type: ignore[arg-type]

    def now(self) -> float:
        return 0.0

    def notice_stop(self) -> None:
        """(a scripted game is never stopped)"""


def pressing(session: SlowTable) -> tuple[TableUi, Callable[[str], None]]:
    """A screen on the session's seat 0, and a key pressed on it: what the key sends is
    sent, then the screen looks again (`settle`)."""
    ui = TableUi(0)
    ui.update(TableModel.capture(session))  # type: ignore[arg-type]

    def press(key: str) -> None:
        for intent in ui.press(key, ui.scene()):
            session.submit(intent)
        settle(ui, session)

    return ui, press


def settle(ui: TableUi, session: SlowTable) -> None:
    """The screen looks at the table again; what it sends then (held keys, Ready) is sent."""
    for intent in ui.update(TableModel.capture(session)):  # type: ignore[arg-type]
        session.submit(intent)


async def test_turn_keys_typed_while_a_card_is_turned_over_act_when_it_is_done() -> None:
    session = SlowTable(ScriptedTable(3, {0: [4, 6, 0, 2]}, discard=10, draw=[0, 2]))
    ui, press = pressing(session)

    press("x")
    assert session.sent == [Draw(0)] and session.table.game.needs  # the drawn card is being revealed to me
    press("z")
    assert session.sent == [Draw(0)]  # held, not refused
    session.serve()
    settle(ui, session)
    assert session.sent == [Draw(0), Discard(0)]
    assert session.table.game.needs  # the discarded card is being turned face up
    press("space")  # a snap is not held: the table queues it behind the reveal (§9)
    press("w")
    assert isinstance(session.sent[-1], Snap) and session.sent[-1].slot == 1 and session.queued


def test_R3_R5_a_drawn_card_put_in_a_slot_by_a_key_typed_ahead_is_shown_there_for_a_few_seconds() -> None:
    """Ana types x then a in one burst: a is held while her drawn card is turned over, and
    plays option B the moment its face arrives, so it was never on screen. Her screen marks
    the card as seen by her, so it shows it in the slot it went to, as a look is shown (R3)."""
    session = SlowTable(ScriptedTable(3, {0: [4, 6, 0, 2]}, discard=10, draw=[16, 2]))
    ui, press = pressing(session)

    press("x")
    press("a")
    assert session.sent == [Draw(0)]  # held while the card is turned over
    session.serve()
    settle(ui, session)
    assert session.sent == [Draw(0), Exchange(0, 2)]
    settle(ui, session)
    kept = session.table.view(0).snapshot().tableaux[0][2]
    assert kept is not None and kept.value == 16
    scene = ui.scene()
    assert kept.card in scene.shown
    assert "a[16]" in scene.draw(80, 24).text().splitlines()[BOTTOM + 2]


def test_R3_a_drawn_card_put_in_a_slot_after_it_was_on_screen_is_not_shown_again() -> None:
    session = SlowTable(ScriptedTable(3, {0: [4, 6, 0, 2]}, discard=10, draw=[16, 2]))
    ui, press = pressing(session)

    press("x")
    session.serve()
    settle(ui, session)
    press("a")  # (pressed on the screen that showed the drawn 16)
    settle(ui, session)
    assert session.sent == [Draw(0), Exchange(0, 2)]
    assert not ui.scene().shown


class AwayTable(SlowTable):
    """A `SlowTable` whose seat Bo is away (§11.3): nothing is delivered, so what Ana sends
    stays on its way (`Progress.sending`) until the test lands it."""

    def __init__(self, table: ScriptedTable) -> None:
        super().__init__(table)
        self.progress = Progress(waiting_for=(1,))
        self.flying: list[object] = []

    def submit(self, intent: object) -> None:
        self.sent.append(intent)
        self.flying.append(intent)
        self.progress.sending = tuple(WIRE_NAME[type(i)] for i in self.flying)

    def land(self) -> None:
        """Bo is back: what was sent is delivered, in order."""
        self.progress = Progress()
        for intent in self.flying:
            self.table.do(intent)  # type: ignore[arg-type]
        self.flying = []


async def test_R5_a_move_sent_while_the_table_waits_holds_the_next_keys_until_it_counts() -> None:
    """Ana draws while Bo is away: her draw is sent but counts only once Bo is back (no
    message is ordered meanwhile), and the screen says so. Pressed again, the key is
    not sent a second time (it used to be, and then refused in every log as a draw with
    a card in hand, R5): it waits for the draw to count, and is judged then."""
    session = AwayTable(ScriptedTable(3, {0: [4, 6, 0, 2]}, discard=10, draw=[0, 2]))
    ui, press = pressing(session)

    press("x")
    assert session.sent == [Draw(0)]
    assert ui.message is not None and ui.message.text == "Your draw is sent: it counts once Bo is back."
    press("x")
    assert session.sent == [Draw(0)]  # held, not sent again
    assert ui.message.text.endswith("The keys you type meanwhile wait for it (Esc drops them).")
    session.land()
    settle(ui, session)  # (the screen looks again)
    assert session.sent == [Draw(0)]  # judged now: a second draw is no move, and says why
    assert ui.message is not None and ui.message.kind == "error", ui.message


@pytest.mark.parametrize("away", [False, True])
def test_R5_esc_drops_keys_typed_ahead_and_says_so(away: bool) -> None:
    """Ana's z and q, typed while her drawn card was turned over for her (or while her
    draw was on its way to Bo, away), were played once it was done, Esc or not: Esc
    dropped only a move kept for the first turn. It drops whatever is typed ahead, saying
    so, and her turn waits for her next keys."""
    table = ScriptedTable(3, {0: [4, 6, 0, 2]}, discard=10, draw=[0, 2])
    session = AwayTable(table) if away else SlowTable(table)
    ui, press = pressing(session)
    press("x")
    press("z")
    press("q")
    assert session.sent == [Draw(0)]  # (z and q wait for the draw)
    press("esc")
    assert ui.message is not None and ui.message.text == "Cancelled: z and q, typed ahead, are not played."
    if isinstance(session, AwayTable):
        session.land()
    else:
        session.serve()
    settle(ui, session)
    assert session.sent == [Draw(0)] and session.table.game.phase is Phase.DRAWN
    press("z")
    assert session.sent == [Draw(0), Discard(0)]


async def test_R5_a_move_sent_while_the_table_waits_is_no_longer_said_on_its_way_once_the_others_are_back() -> None:
    """Bo drew while Ann and Cy were away: once they were back and the draw had counted,
    the prompt still said "Your draw is sent: it counts once Ann and Cy are back." for
    seconds, over what to do with the drawn card. A message on who is awaited goes when
    nobody is."""
    from cli.tui.table_view import prompt_lines

    session = AwayTable(ScriptedTable(3, {0: [4, 6, 0, 2]}, discard=10, draw=[0, 2]))
    ui, press = pressing(session)
    press("x")
    assert [line.text for line in prompt_lines(ui.scene())] == ["Your draw is sent: it counts once Bo is back."]
    session.land()
    ui.update(TableModel.capture(session))  # type: ignore[arg-type]
    shown = [line.text for line in prompt_lines(ui.scene())]
    assert len(shown) == 1 and shown[0].startswith("You drew a 0:"), shown


async def test_s7_4_a_move_that_does_not_come_back_at_once_names_whom_the_order_waits_for() -> None:
    """Ana pressed x while Bo's program had stopped, before anyone knew his
    link was gone (that takes seconds, §11.3): nothing happened and the prompt still said
    "Your turn: x draw". A move not ordered within a second names whose word it waits for
    (§7.4); one that comes back at once changes nothing on the screen."""
    from cli.tui.table_view import prompt_text

    session = AwayTable(ScriptedTable(3, {0: [4, 6, 0, 2]}, discard=10, draw=[0, 2]))
    session.progress = Progress()  # (every link is up)
    ui, press = pressing(session)
    press("x")
    assert session.sent == [Draw(0)]
    session.progress.held_by, session.progress.sending_for = (1,), 0.3
    ui.update(TableModel.capture(session))  # type: ignore[arg-type]
    assert prompt_text(ui.scene()).startswith("Your turn: {x} draw")  # (a moment: nothing to say yet)
    session.progress.held_by, session.progress.sending_for = (1, 2), 3.2
    ui.update(TableModel.capture(session))  # type: ignore[arg-type]
    assert prompt_text(ui.scene()) == "Your draw is sent and waits for Bo and Cy to answer (3 s); it counts once they do."
    session.flying, session.progress = [], Progress()  # (a snap, out of turn, likewise)
    session.submit(Snap(0, 10, 0, 0))
    session.progress.held_by, session.progress.sending_for = (2,), 2.0
    ui.update(TableModel.capture(session))  # type: ignore[arg-type]
    assert prompt_text(ui.scene()) == "Your snap is sent and waits for Cy to answer (2 s); it counts once they do."


@pytest.mark.parametrize("batch", [False, True])
async def test_R5_keys_typed_while_a_move_is_on_its_way_go_one_move_at_a_time(batch: bool) -> None:
    """x z z while Bo is away: the draw goes, both z wait for it; once it counts, the first
    z discards and the second waits for that discard in turn (both used to go at once,
    the second to be refused in every log). The same for keys the client reads in one
    batch, before the model changes (`batch`)."""
    session = AwayTable(ScriptedTable(3, {0: [4, 6, 0, 2]}, discard=10, draw=[0, 2]))
    ui, press = pressing(session)
    for key in ("x", "z", "z"):
        if batch:  # (the screen does not look again between the keys)
            for intent in ui.press(key, ui.scene()):
                session.submit(intent)
        else:
            press(key)
    assert session.sent == [Draw(0)]
    session.land()
    settle(ui, session)
    assert session.sent == [Draw(0), Discard(0)]  # the second z waits for the discard
    session.land()
    settle(ui, session)
    assert session.sent == [Draw(0), Discard(0)]  # judged now, it is no move: explained, not sent
    assert ui.message is not None and ui.message.kind == "error"


async def test_R6_a_second_snap_while_the_first_is_on_its_way_is_explained_not_sent() -> None:
    """The explanation fits a line of 80 columns (it was cut), and once it is gone the
    prompt goes on saying that the snap counts once Bo is back (nothing said it)."""
    from cli.tui.table_view import prompt_text

    session = AwayTable(ScriptedTable(3, {0: [10, 6, 0, 2]}, discard=10, draw=[0, 2], first=1))
    ui = TableUi(0)
    ui.update(TableModel.capture(session))  # type: ignore[arg-type]
    for key in ("space", "q", "space"):
        for intent in ui.press(key, ui.scene()):
            session.submit(intent)
        ui.update(TableModel.capture(session))  # type: ignore[arg-type]
    assert [type(i) for i in session.sent] == [Snap] and ui.pending is None
    assert ui.message is not None and ui.message.text == (
        "One snap per turn (R6). Your snap is sent: it counts once Bo is back.")
    assert len(ui.message.text) <= 78
    assert prompt_text(ui.scene()) == "Your snap is sent: it counts once Bo is back."
    session.land()
    ui.update(TableModel.capture(session))  # type: ignore[arg-type]
    assert "is sent" not in prompt_text(ui.scene())


# --- R10: a screen opened on a table in play (a resumed seat, §11.3) -----------------------


async def test_R10_a_screen_opened_on_a_table_in_play_shows_none_of_the_cards_seen_before(mock_clock: trio.testing.MockClock) -> None:
    """The cards a player saw before the screen opened (the bottom cards, a peek) stay
    unseen on it: a restart is no second look (without --memory-aid)."""
    async with table({0: [4, 6, 0, 2]}, discard=12, draw=[6]) as t:
        await power(t)
        assert await t.press("q") == [Peek(0, 0)]
        assert "[ 4]" in my_box(t.text())[0]  # the peek itself is shown, for a few seconds
        again = UiDriver(t.session)
        await again.settle()
        assert [row.strip() for row in my_box(again.text())] == ["q[••] w[░░]", "a[••] s[••]"]


async def test_R4_a_screen_opened_after_the_bottom_cards_were_confirmed_does_not_show_them_again(
    mock_clock: trio.testing.MockClock,
) -> None:
    async with table({0: [4, 6, 8, 2]}, discard=10, ready=False) as t:
        assert await t.press("enter") == [Ready(0)]
        again = UiDriver(t.session)
        await again.settle()
        assert again.scene.model.view.phase is Phase.PEEK  # the others are still looking
        assert my_box(again.text())[1].strip() == "a[••] s[••]" and "remember them" not in again.text()
        mock_clock.jump(BOTTOM_PEEK_S)
        await again.settle()
        assert again.sent == []  # confirmed once, before


async def test_R4_a_screen_opened_before_the_bottom_cards_were_confirmed_shows_them(mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 8, 2]}, discard=10, ready=False) as t:
        again = UiDriver(t.session)
        await again.settle()
        assert my_box(again.text())[1].strip() == "a[ 8] s[ 2]" and "remember them" in again.text()
        assert await again.press("enter") == [Ready(0)]


async def test_R4_a_look_taken_back_after_a_restart_shows_only_the_time_it_has_left(
        mock_clock: trio.testing.MockClock) -> None:
    """A seat restarted 6 s into its look (its journal says so: `LookSeen`) is shown its
    bottom cards for the 4 s left of R4's 10 s, not 10 s again; its countdown runs though
    the table's barrier has no countdown after a restart (time left unknown)."""
    async with table({0: [4, 6, 8, 2]}, discard=10, ready=False) as t:
        again = UiDriver(t.session)
        again.ui = TableUi(0, seen=LookSeen(t.scene.model.view.round, 6.0))
        t.session._deadlines.peek, t.session._deadlines.unknown = None, True  # (as a resumed seat's)
        await again.settle()
        assert my_box(again.text())[1].strip() == "a[ 8] s[ 2]" and "when done (0:04)" in again.text()
        began = again.ui.look_began
        assert began is not None and began[1] == trio.current_time() - 6.0  # (what the journal keeps)
        mock_clock.jump(0.5)
        await again.settle()
        assert again.ui.wakeup() == trio.current_time() + 0.5  # the countdown's next second
        mock_clock.jump(3.5)
        await again.settle()
        assert again.sent == [Ready(0)] and my_box(again.text())[1].strip() == "a[••] s[••]"


async def test_R4_a_look_that_ran_out_before_a_restart_is_not_shown_again(mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 8, 2]}, discard=10, ready=False) as t:
        again = UiDriver(t.session)
        again.ui = TableUi(0, seen=LookSeen(t.scene.model.view.round, 10.5))
        await again.settle()
        assert again.sent == [Ready(0)] and my_box(again.text())[1].strip() == "a[••] s[••]"
        assert again.message == "Your look at your bottom cards is over: its 10 s ran out before this program restarted (R4)."


async def test_R4_a_look_whose_ready_was_sent_before_a_restart_is_not_shown_again(mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 8, 2]}, discard=10, ready=False) as t:
        t.session.progress.sending = ("ready",)  # (sent before the restart, not yet in the agreed order)
        again = UiDriver(t.session)
        await again.settle()
        assert my_box(again.text())[1].strip() == "a[••] s[••]" and "remember them" not in again.text()
        assert again.ui.wakeup() == trio.current_time() + 1.0  # (the barrier's countdown: no look to count)
        mock_clock.jump(BOTTOM_PEEK_S)
        await again.settle()
        assert again.sent == []  # (no second "ready")


async def test_R4_the_start_of_the_look_kept_for_a_restart_leaves_out_the_time_this_program_stood(
        mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 8, 2]}, discard=10, ready=False) as t:
        began = t.ui.look_began
        assert began is not None and began[1] == trio.current_time()
        mock_clock.jump(2)
        t.session.progress.stopped_s += 5.0
        await t.settle()
        assert t.ui.look_began == (began[0], began[1] + 5.0)


async def test_s11_3_back_from_a_stop_past_the_grace_period_no_key_plays_a_move(mock_clock: trio.testing.MockClock) -> None:
    """A seat back from a stop longer than the grace period reaches the others, who have
    likely ended the game (§11.3): a snap half-typed before the stop is dropped, the
    prompt offers no move and says why, and move keys play nothing; the look at the bottom
    cards of a round dealt meanwhile still shows, under the prompt."""
    async with table({0: [4, 6, 8, 2]}, discard=4, first=0) as t:
        await t.press("space")
        assert t.scene.pending is not None
        t.session.progress.stopped_past_grace = 60  # (as `TablePeer` tells it, back from such a stop)
        await t.settle()
        assert t.scene.pending is None
        said = "Stopped 60 s, longer than the table waits for you: reaching the others."
        assert prompt_line(t) == said
        for key in ("x", "c", "b", "space", "a"):
            assert await t.press(key) == []
            assert t.message.startswith("No move plays yet: your program was stopped for 60 s, longer than the "
                                        "table waits for you"), (key, t.message)
        t.session.progress.stopped_past_grace = None  # (every seat answered: the game goes on)
        mock_clock.jump(MESSAGE_S)
        await t.settle()
        assert prompt_line(t).startswith("Your turn: x draw")
        assert await t.press("x") == [Draw(0)]
    async with table({0: [4, 6, 8, 2]}, discard=10, ready=False) as t:
        t.session.progress.stopped_past_grace = 60
        await t.settle()
        rows = t.text().splitlines()
        assert rows[PROMPT_ROW].strip() == said and "[ 8]" in my_box(t.text())[1]
        assert rows[PROMPT_ROW + 1].strip().startswith("Your two bottom cards — remember them!")


async def test_s11_3_back_from_a_stop_past_the_grace_period_the_help_bar_offers_no_move_key(
        mock_clock: trio.testing.MockClock) -> None:
    """While no move plays after a stop past the grace period (§11.3), the help bar still
    offered Space, x, z, c and b, which play nothing then. It names the keys that still
    act, and offers the moves again once the table answers."""
    async with table({0: [4, 6, 8, 2]}, discard=4, first=0) as t:
        t.session.progress.stopped_past_grace = 60
        await t.settle()
        bar = t.text().splitlines()[-1].strip()
        assert bar == "No move plays till the others answer · PgUp/PgDn log · ? help · ^C quit", bar
        t.session.progress.stopped_past_grace = None  # (every seat answered: the game goes on)
        await t.settle()
        assert t.text().splitlines()[-1].strip().startswith("Space snap · x draw")


async def test_s11_3_the_game_end_screen_says_whom_the_last_round_s_check_waits_for_and_how_long(
        mock_clock: trio.testing.MockClock) -> None:
    """Bo's program stops as the last turn is played: the result waits for his openings
    (§8.9), and the game-end screen says so, counting the grace period down (§11.3),
    instead of only "checking the last round's shuffles"; back, the check goes on."""
    async with table({0: [0, 0, 2, 2], 1: [18, 16, 14, 12]}, discard=4, draw=[0, 2, 0], players=2,
                     target=20) as t:
        await t.press("b", "x", "z")
        await t.other(Draw(1), Discard(1))
        await t.press("enter")
        assert t.scene.overlay is Overlay.GAME
        t.session._progress.waiting_for = (1,)  # Bo's link is down (§11.3)
        t.session._deadlines.grace = trio.current_time() + 20  # the game ends then unless Bo is back
        t.refresh()
        said = " ".join(t.text().split())
        assert ("Game over — the result waits for Bo (away) to open the last round's shuffles: 0:20 left, then the "
                "game ends without that round…") in said, t.text()
        t.session._deadlines.grace = trio.current_time() + 9  # (as the time runs out)
        t.refresh()
        assert "0:09 left" in " ".join(t.text().split())
        t.session._progress.waiting_for = ()  # (Bo is back)
        t.refresh()
        assert "checking the last round's shuffles before the result stands" in t.text()


async def test_s11_3_a_turn_whose_player_is_away_says_the_table_waits_for_them(mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 0, 2]}, discard=12, first=1) as t:
        assert "Bo is playing" in t.text()
        t.session._progress.waiting_for = (1,)  # Bo's link is down (§11.3)
        t.session._deadlines.grace = trio.current_time() + 90  # the game ends then unless Bo is back
        t.refresh()
        assert "Waiting for Bo to come back" in t.text() and "Bo is playing" not in t.text()
        assert "waiting for Bo (game ends in 1:30)" in t.text().splitlines()[0]
        mock_clock.jump(30)
        await t.settle()
        assert "waiting for Bo (game ends in 1:00)" in t.text().splitlines()[0]


async def test_s9_8_a_turn_whose_player_left_says_whom_the_table_waits_for(mock_clock: trio.testing.MockClock) -> None:
    """Cy left while Bo was away: her turn will not be played (the game ends at her leave
    once Bo is back), but the header still read "Cy's turn"."""
    async with table({0: [4, 6, 0, 2]}, discard=12, first=2) as t:
        assert "Cy's turn" in t.text().splitlines()[0]
        t.session._progress.waiting_for = (1,)  # Bo's link is down (§11.3)
        t.session._progress.gone = (2,)  # Cy left, her link down, her leave not yet delivered (§9.8)
        t.session._deadlines.grace = trio.current_time() + 90  # the game ends then unless Bo is back
        t.refresh()
        status = t.text().splitlines()[0]
        assert "Cy's turn" not in status and "Cy left the table · waiting for Bo (game ends in 1:30)" in status, status
        assert prompt_line(t) == "Cy left the table; the game ends when Bo is back.", prompt_line(t)
        assert "Cy 0 (left)" in t.text()


def test_R1_equal_totals_share_their_place_in_the_standings() -> None:
    """Two seats on 14 were ranked 2 and 3, as if one had done better."""
    from types import SimpleNamespace

    from cli.tui.canvas import Canvas
    from cli.tui.round_view import draw_game_end

    names = ("You", "Ada", "Cy", "Bo")
    view = SimpleNamespace(totals=(14, 14, 4, 32), winners=(2,), history=((14, 14, 4, 32),), target=30)
    model = SimpleNamespace(view=view, me=0, players=4, name=lambda s: names[s], ended=True, finished=True,
                            ended_why=None, log_path=None)
    canvas = Canvas(80, 24)
    draw_game_end(canvas, model)  # type: ignore[arg-type]
    rows = [canvas.row_text(y).split() for y in range(3, 7)]
    assert [(row[0], row[1], row[2]) for row in rows] == [("1.", "Cy", "4"), ("2.", "You", "14"), ("2.", "Ada", "14"),
                                                          ("4.", "Bo", "32")]
    assert "Game over — Cy wins with 4 points" in canvas.text()


@pytest.mark.parametrize(("rounds", "note"), [(6, "(r1 not shown)"), (8, "(r1–r3 not shown)"), (5, "")])
def test_R1_standings_too_narrow_for_every_round_say_which_rounds_they_leave_out(rounds: int, note: str) -> None:
    """At 60 columns the final standings showed rounds 2 to 6 under "r2 … r6" and nothing
    said that round 1 was left out: a player adding the columns up missed its points."""
    from types import SimpleNamespace

    from cli.tui.canvas import Canvas
    from cli.tui.round_view import draw_small_game_end

    history = tuple((10 * r, 20 * r) for r in range(1, rounds + 1))
    totals = tuple(sum(scores[s] for scores in history) for s in range(2))
    view = SimpleNamespace(totals=totals, winners=(0,), history=history, target=100)
    model = SimpleNamespace(view=view, me=0, players=2, name=lambda s: ("Ann", "Bo")[s], ended=True, finished=True,
                            ended_why=None, log_path=None)
    canvas = Canvas(60, 20)
    assert draw_small_game_end(canvas, model, "", "Enter: leave")  # type: ignore[arg-type]
    header = next(canvas.row_text(y) for y in range(20) if " total" in canvas.row_text(y))
    shown = header.split()[-5:]
    assert shown == [f"r{r}" for r in range(rounds - 4, rounds + 1)], header
    assert header.strip().startswith(note + " " if note else "total"), header


@pytest.mark.parametrize(("columns", "rounds"), [(80, 5), (80, 8), (60, 3)])
def test_R1_the_standings_show_every_round_where_the_width_holds_them(columns: int, rounds: int) -> None:
    """At 80 columns the standings of an eight-round game showed round 8 alone, "(r1–r7 not
    shown)", where nine rounds fit: a game of fewer rounds than the width holds shows
    them all."""
    from types import SimpleNamespace

    from cli.tui.canvas import Canvas
    from cli.tui.round_view import draw_game_end

    history = tuple((r, 2 * r) for r in range(1, rounds + 1))
    totals = tuple(sum(scores[s] for scores in history) for s in range(2))
    view = SimpleNamespace(totals=totals, winners=(0,), history=history, target=totals[1])
    model = SimpleNamespace(view=view, me=0, players=2, name=lambda s: ("Ann", "Bo")[s], ended=True, finished=True,
                            ended_why=None, log_path=None)
    canvas = Canvas(columns, 24)
    draw_game_end(canvas, model)  # type: ignore[arg-type]
    header = next(canvas.row_text(y) for y in range(24) if " total" in canvas.row_text(y))
    assert header.split() == ["total", *(f"r{r}" for r in range(1, rounds + 1))], header
    row = next(canvas.row_text(y) for y in range(24) if "  Bo " in canvas.row_text(y))
    assert row.split()[3:] == [str(2 * r) for r in range(1, rounds + 1)], row


@pytest.mark.parametrize("folder", ["logs/a-folder-whose-name-is-long-enough-to-fill", "logs/a-folder-name-long-enough1",
                                    "logs/short"])
def test_R1_the_audit_command_on_the_game_end_screen_stays_on_one_row_at_80_columns(folder: str) -> None:
    """At 80 columns the game-end screen wrapped `bandit-lan audit <path>` over two rows,
    which copy as two commands: it is written on one row when the screen holds it, and
    else says that it is printed on one line as the player leaves."""
    from types import SimpleNamespace

    from cli.tui.canvas import Canvas
    from cli.tui.round_view import PRINTED_WHOLE, draw_game_end

    path = f"{folder}/0a1b2c3d4e5f-seat1.bandit-log"
    view = SimpleNamespace(totals=(4, 120), winners=(0,), history=((4, 120),), target=100)
    model = SimpleNamespace(view=view, me=0, players=2, name=lambda s: ("Ann", "Bo")[s], ended=True, finished=True,
                            ended_why=None, log_path=path, logs_beside=())
    canvas = Canvas(80, 24)
    draw_game_end(canvas, model)  # type: ignore[arg-type]
    rows = [canvas.row_text(y).strip() for y in range(24)]
    command = f"bandit-lan audit {path}"
    if len(command) <= 78:
        assert command in rows, rows
        assert PRINTED_WHOLE not in rows
    else:
        assert PRINTED_WHOLE in rows and command.replace(" ", "") in "".join(rows).replace(" ", ""), rows


def test_R9_the_round_screen_tags_every_lowest_sum_of_the_round() -> None:
    """"lowest" marked the lowest total, so of two players with the round's
    lowest sum (12) only one was tagged. The tag is the round's lowest sum (R9: the Bandit
    caller's -10 needs it strictly), on every player who has it."""
    from types import SimpleNamespace

    from cli.tui.canvas import Canvas
    from cli.tui.round_view import draw_round_end
    from engine.skills import DEFAULT_SKILLS
    from p2p.session import RoundReport

    face = {value: face for face, value in enumerate(DEFAULT_SKILLS.values)}
    hands = ((8, 8), (6, 6), (10, 10), (6, 6))  # sums 16, 12, 20, 12
    report = RoundReport(2, (16, 12, 20, 12), (20, 40, 30, 50), None, False,
                         tuple(((0, face[a]), (1, face[b])) for a, b in hands))
    names = ("Ann", "bob", "cy", "dan")
    model = SimpleNamespace(reports=[report], skills=DEFAULT_SKILLS, me=0, players=4, ended=False,
                            view=SimpleNamespace(round=2, target=100), name=lambda s: names[s])
    canvas = Canvas(80, 24)
    draw_round_end(canvas, model, 0)  # type: ignore[arg-type]
    rows = {row.split()[0]: row for row in canvas.text().splitlines() if row.split()[:1] in (["You"], ["bob"], ["cy"],
                                                                                           ["dan"])}
    assert {name for name, row in rows.items() if row.endswith(" lowest sum")} == {"bob", "dan"}, rows
    assert "lowest" not in rows["You"]  # (the lowest total)


@pytest.mark.parametrize("columns", [7, 10])
def test_R6_R9_a_wide_tableau_is_read_whole_on_the_round_screen_at_80_columns(columns: int) -> None:
    """Nia's tableau had six columns of cards (R6: penalty slots): at 80 columns the
    figures were written over its last cards ("[ 0] [ 8] [1  104"). A tableau too wide
    for the room left of the figures goes on in rows under itself: every card, the sum
    and the total are read whole, the figures of every seat in one column."""
    from types import SimpleNamespace

    from cli.tui.canvas import Canvas
    from cli.tui.keymap import slot_position
    from cli.tui.round_view import draw_round_end
    from engine.skills import DEFAULT_SKILLS
    from p2p.session import RoundReport

    face = {value: face for face, value in enumerate(DEFAULT_SKILLS.values)}
    values = [4, 16, 0, 8, 14, 8, 2, 6, 10, 12, 18, -2, 20, 0, 4, 6, 8, 10, 12, 14]
    wide = tuple((slot, face[values[slot]]) for slot in range(2 * columns) if slot != 2)  # (slot 2 snapped away)
    square = tuple((slot, face[v]) for slot, v in enumerate((0, 2, 4, 6)))
    tableaus = (square, wide, square, square, square, square)
    sums = tuple(sum(DEFAULT_SKILLS.values[f] for _, f in tableau) for tableau in tableaus)
    report = RoundReport(3, sums, tuple(s + 40 for s in sums), None, False, tableaus)
    names = ("Ann", "Nia", "Cy", "Di", "Ed", "Flo")
    model = SimpleNamespace(reports=[report], skills=DEFAULT_SKILLS, me=0, players=6, ended=False,
                            view=SimpleNamespace(round=3, target=200), name=lambda s: names[s])
    canvas = Canvas(80, 24)
    draw_round_end(canvas, model, 0)  # type: ignore[arg-type]
    rows = [canvas.row_text(y) for y in range(24)]
    top = next(y for y, row in enumerate(rows) if row.startswith("  Nia "))
    end = next(y for y, row in enumerate(rows) if row.startswith("  Cy "))
    block = rows[top:end]
    cells = [re.findall(r"\[\s*-?\d+\]| ·· ", row[14:]) for row in block]
    per_row = max(map(len, cells))
    # (the cards in the order the tableau lays them out: column by column, two rows each)
    read = {}
    for chunk in range(len(block) // 2):
        for row in range(2):
            for i, cell in enumerate(cells[2 * chunk + row]):
                read[(chunk * per_row + i, row)] = cell.strip()
    expected = {slot_position(slot): f"[{DEFAULT_SKILLS.values[f]:>2}]" for slot, f in wide}
    expected[slot_position(2)] = "··"
    assert read == expected, block
    figures = block[0].split()[-3:]
    assert figures == [str(sums[1]), str(sums[1]), str(sums[1] + 40)], block[0]
    end_of_sum = next(row for row in rows if " sum  Bandit" in row).index(" sum  Bandit") + 4
    seat_rows = [row for row in rows if row[:3] == "  " + row[2:3] and row[2:3].isalpha()]
    assert [row[end_of_sum - 5:end_of_sum].strip() for row in seat_rows] == [str(s) for s in sums], rows
    assert all(len(row.rstrip()) <= 80 for row in rows)
    assert rows[-1].startswith(" Enter")


@pytest.mark.parametrize("wide", [(1, 3), (0, 1, 2, 3, 4, 5)])
def test_R4_R9_the_round_screen_of_six_with_wrapped_tableaux_draws_nothing_over_the_audit_at_80x24(
        wide: tuple[int, ...]) -> None:
    """At 80×24, a table of six with two tableaux wrapped under themselves (R6: penalty
    columns): the live countdown of the next round's look (R4) was drawn over the last
    row of the round's audit verdict. Rows too few leave out what matters least (the
    blank rows, the caller's words, a tableau's last rows of cards, the verdict's words
    past its first row), and the footer says what a larger terminal shows."""
    from types import SimpleNamespace

    from cli.tui.round_view import draw_round_end
    from engine.skills import DEFAULT_SKILLS
    from p2p.session import RoundReport
    from tui_support import OverlapCanvas

    face = {value: face for face, value in enumerate(DEFAULT_SKILLS.values)}
    values = [4, 16, 0, 8, 14, 8, 2, 6, 10, 12, 18, -2, 20, 0, 4, 6, 8, 10, 12, 14] * 2
    slots = 14 if len(wide) == 2 else 24  # (7 columns: two rows of cards; 12: three)
    tableaus = tuple(tuple((slot, face[values[slot]]) for slot in range(slots if seat in wide else 4))
                     for seat in range(6))
    sums = tuple(sum(DEFAULT_SKILLS.values[f] for _, f in tableau) for tableau in tableaus)
    scores = tuple(s + 10 * (seat == 1) for seat, s in enumerate(sums))
    verdict = "every seat showed how it shuffled, and every card was where it should be"
    report = RoundReport(3, scores, scores, 1, False, tableaus, True, verdict)
    names = ("Ann", "Nia", "Cy", "Di", "Ed", "Flo")
    view = SimpleNamespace(round=4, target=200, phase=Phase.PEEK, ready=(False,) * 6)
    model = SimpleNamespace(reports=[report], skills=DEFAULT_SKILLS, me=0, players=6, ended=False, view=view,
                            name=lambda s: names[s], remaining=lambda deadline: 25.0, peek_deadline=30.0)
    canvas = OverlapCanvas(80, 24)
    draw_round_end(canvas, model, 0)  # type: ignore[arg-type]
    rows = [canvas.row_text(y).rstrip() for y in range(24)]
    assert canvas.overlaps == [], "\n".join(rows)
    said = " ".join(" ".join(rows).split())
    assert f"Audit of this round: ✓ {verdict}" in said, rows
    assert ("Round 4 has begun: first turn in 0:25, ready or not (R4). You are not ready: Enter, then look at your "
            "bottom cards.") in said, rows
    assert [row.split()[0] for row in rows if row.startswith("  ") and row[2:3].isalpha()] == ["You", *names[1:]]
    assert all(text_width(row) <= 80 for row in rows)
    left_out = "why Nia scored +10 (R9)" if len(wide) == 2 else "the rest"
    assert rows[-1] == f" Enter: back to the table · a larger terminal shows {left_out}", rows[-1]


def test_R6_R9_a_slot_a_snap_emptied_shows_as_empty_on_the_round_screen() -> None:
    """The round screen left an emptied slot blank, where the table (and
    the README's legend) show ` ·· `."""
    from types import SimpleNamespace

    from cli.tui.canvas import Canvas
    from cli.tui.round_view import draw_round_end
    from engine.skills import DEFAULT_SKILLS
    from p2p.session import RoundReport

    faces = {value: face for face, value in enumerate(DEFAULT_SKILLS.values)}
    report = RoundReport(1, (16, 6), (16, 6), None, False,
                         (((1, faces[16]),), ((0, faces[2]), (1, faces[4]), (2, faces[0]), (3, faces[0]))))
    model = SimpleNamespace(reports=[report], skills=DEFAULT_SKILLS, me=0, players=2, ended=False,
                            view=SimpleNamespace(round=1, target=100), name=lambda s: ("Ann", "Bo")[s])
    canvas = Canvas(80, 24)
    draw_round_end(canvas, model, 0)  # type: ignore[arg-type]
    rows = [canvas.row_text(y) for y in range(canvas.height)]
    mine = next(i for i, row in enumerate(rows) if row.strip().startswith("You"))
    assert "You           ··  [16]" in rows[mine] and rows[mine + 1].split() == ["··", "··"], rows[mine:mine + 2]


async def test_R6_R9_a_penalty_slot_a_snap_emptied_shows_as_empty_on_the_round_screen(
        mock_clock: trio.testing.MockClock) -> None:
    """A penalty card's slot, emptied later by a snap, was left out of the
    round screen (the round's report lists the cards held; the table showed ` ·· `)."""
    async with table({0: [4, 6, 0, 2], 1: [18, 16, 14, 12]}, discard=10, draw=[10, 10, 0, 2], players=2) as t:
        await t.press("b", "space", "q")  # wrong (R6): a penalty card, a 10, into slot e
        await t.press("x", "z", "z")  # a 10 drawn and discarded, its spy skipped
        top = t.scene.top_card
        assert await t.press("space", "e") == [Snap(0, top, 0, 4)]  # (Bo's turn: a snap again)
        await t.other(Draw(1), Discard(1))  # Bo's final turn (R8)
        assert t.scene.overlay is Overlay.ROUND
        mine = next(row for row in t.text().splitlines() if row.startswith("  You "))
        assert "You          [ 4] [ 6]  ··       12" in mine, mine


@pytest.mark.parametrize(("me", "title"), [(2, "Ada and you share the win"), (1, "You and Cy share the win"),
                                           (3, "Ada and Cy share the win")])
def test_R1_a_shared_win_is_told_in_a_sentence(me: int, title: str) -> None:
    """"You, carol share the win", "bob, You share the win"."""
    from types import SimpleNamespace

    from cli.tui.canvas import Canvas
    from cli.tui.round_view import draw_game_end

    names = ["Ann", "Ada", "Cy", "Bo"]
    names[me] = "You"
    view = SimpleNamespace(totals=(9, 4, 4, 32), winners=(1, 2), history=((9, 4, 4, 32),), target=30)
    model = SimpleNamespace(view=view, me=me, players=4, name=lambda s: names[s], ended=True, finished=True,
                            ended_why=None, log_path=None)
    canvas = Canvas(80, 24)
    draw_game_end(canvas, model)  # type: ignore[arg-type]
    assert f"Game over — {title} with 4 points" in canvas.text()


async def test_r6_a_snap_key_typed_before_the_table_is_drawn_claims_nothing_and_crashes_nothing(
        mock_clock: trio.testing.MockClock) -> None:
    """Keys typed ahead as the client starts (after `play --resume`, say) arrive with the
    blank screen, or a lobby's, as what was shown: a Space then is a snap on the top the
    table shows now, not an AttributeError that took the seat down."""
    from cli.tui.terminal import Blank

    async with table({0: [4, 6, 0, 2]}, discard=10) as t:
        assert t.scene.model.can_snap
        t.ui.press("space", Blank())
        assert t.ui.pending is not None and t.ui.pending.action == "snap"


async def test_caps_lock_turn_keys_act_as_the_lower_case_ones(mock_clock: trio.testing.MockClock) -> None:
    """Letters are case-insensitive: with Caps Lock, X draws as x does (slot keys already
    did; X said "No action on that key")."""
    async with table({0: [4, 6, 0, 2]}, discard=12, draw=[0, 2]) as t:
        assert await t.press("X") == [Draw(0)], t.message


async def test_ctrl_c_after_the_game_ended_closes_the_screen_without_a_false_warning(
        mock_clock: trio.testing.MockClock) -> None:
    """On the last round's screen of a finished game, ^C has nothing to leave: it closes
    the screen, instead of warning that leaving voids a round that already counts."""
    async with table({0: [0, 0, 2, 2], 1: [18, 16, 14, 12]}, discard=4, draw=[0, 2, 0], players=2, target=20) as t:
        await t.press("b", "x", "z")
        await t.other(Draw(1), Discard(1))
        mock_clock.jump(1.0)
        await t.settle()
        assert t.scene.model.ended and t.scene.model.finished
        await t.press("ctrl-c")
        assert t.ui.finished and not t.ui.quit_open and "does not count" not in t.text()


async def test_the_log_scrolls_up_no_further_than_its_oldest_line(mock_clock: trio.testing.MockClock) -> None:
    async with table({0: [4, 6, 0, 2]}, discard=12) as t:
        lines = len(t.session.lines)
        await t.press(*["pageup"] * 20)
        assert t.scene.log_scroll <= lines
        await t.press("pagedown")
        assert t.scene.log_scroll <= max(0, lines - 5), "PgDn comes straight back"


async def test_the_log_scrolls_up_to_its_oldest_line_counted_in_wrapped_rows(mock_clock: trio.testing.MockClock) -> None:
    """Lines wrap into several rows, so the limit is in rows, for the screen the key was
    pressed on: PgUp shows the oldest line at the top, no further, and every PgDn moves
    the log at once (the limit was in lines: long lines never reached the oldest, and
    short ones needed PgDn presses that moved nothing)."""
    from p2p.session import Line

    from cli.tui.log_view import LOG_TOP, log_scroll_limit

    async with table({0: [4, 6, 0, 2]}, discard=12) as t:
        t.session._lines[:0] = [Line(f"line {n}: " + "a long story of the table " * 5, "table") for n in range(24)]
        await t.settle()
        for size in ((80, 24), (80, 40), (120, 30)):
            width, height = size
            rows = height - 1 - LOG_TOP - 1  # (the log's rows: below its rule, above the help bar)
            limit = log_scroll_limit(t.session.lines, width, height, 10_000)
            assert limit > len(t.session.lines) - rows  # (more rows than lines: they wrap)
            for _ in range(limit // 5 + 3):
                t.ui.press("pageup", t.ui.scene(), size)
            assert t.scene.log_scroll == limit
            top = t.ui.scene().draw(width, height).text().splitlines()[LOG_TOP + 1]
            assert top.startswith(" line 0:"), top
            assert limit > 5
            t.ui.press("pagedown", t.ui.scene(), size)
            assert f"scrolled up {limit - 5};" in t.ui.scene().draw(width, height).text()
            while t.scene.log_scroll:
                t.ui.press("pagedown", t.ui.scene(), size)


async def test_a_terminal_smaller_than_the_layout_is_asked_to_grow(mock_clock: trio.testing.MockClock) -> None:
    """Below 80×24 the table was drawn over itself (a neighbour's cards under the figures,
    your own cards under the help bar): it asks for room instead; the game goes on."""
    async with table({0: [4, 6, 0, 2]}, discard=12, players=4) as t:
        assert "q[" in t.text(80, 24)
        small = t.text(60, 24)
        assert "This terminal is 60×24; the table needs 80×24." in " ".join(small.split()), small
        for width, height in ((4, 30), (1, 1), (40, 12)):
            t.text(width, height)  # (draws, and returns: a wide name wrapped to one column looped for ever)


async def test_R5_a_terminal_too_small_for_the_table_says_so_in_one_block_with_your_turn_s_time(
        mock_clock: trio.testing.MockClock) -> None:
    """At 70×20 in a player's turn the message's first two lines began in column 1 and
    its last two, each centred alone, in column 21: its lines begin in one column now,
    the block centred as a whole."""
    async with table({0: [4, 6, 0, 2]}, discard=12) as t:
        for width, height in ((70, 20), (100, 12), (30, 20)):
            rows = [row for row in t.text(width, height).splitlines() if row.strip()]
            shown = " ".join(" ".join(rows).split())
            assert shown.endswith("(Ctrl-C still leaves, asking first). It is your turn: 1:00 left."), shown
            starts = {len(row) - len(row.lstrip()) for row in rows}
            widest = max(len(row.strip()) for row in rows)
            assert starts == {(width - widest) // 2}, "\n".join(rows)


BOTS = ("Ada (bot)", "Bo (bot)", "Cy (bot)", "Dee (bot)", "Eve (bot)")


@pytest.mark.parametrize("players", [4, 6])
async def test_bots_names_give_way_whole_in_narrow_columns(mock_clock: trio.testing.MockClock, players: int) -> None:
    """`play` seats bots named "Dee (bot)": the drawn card's label, a column of a dozen
    cells at 80×24, read "Dee (b…'s card" and "Ada …'s card". A name that does not fit
    drops its "(bot)" whole; the headers show every name whole."""
    from dataclasses import replace

    for seat in range(1, players):
        async with table({0: [4, 6, 0, 2]}, discard=12, draw=[0, 2], players=players, first=seat) as t:
            t.session._seats = (t.session._seats[0],
                                *(replace(info, name=BOTS[i]) for i, info in enumerate(t.session._seats[1:])))
            await t.other(Draw(seat))
            bot = BOTS[seat - 1]
            for columns, rows in ((80, 24), (100, 35)):
                text = t.text(columns, rows)
                assert f" {bot}'s card " in text or f" {bot.removesuffix(' (bot)')}'s card " in text, text
                assert not re.search(r"\(b(?!ot\))|… ?\(", text), text  # (no half mark, no cut name)
                for info, name in zip(t.session._seats[1:], BOTS, strict=False):
                    assert f"{t.scene.model.position(info.seat)} {name} 0" in text, text  # (whole, in the headers)

def _named(t: Any, names: Sequence[str]) -> None:
    """`t`'s players renamed `names`, in seat order (seats past them keep their names)."""
    from dataclasses import replace

    t.session._seats = tuple(replace(info, name=name) for info, name in zip(t.session._seats, names))


def _widened(t: Any, seat: int, cards: int, **view: Any) -> None:
    """`t`'s table shown with `cards` more face-down cards on `seat`'s tableau (R6: penalty
    columns), and `view`'s other changes to what it shows."""
    from dataclasses import replace

    from engine.view import CardView

    model = TableModel.capture(t.session)
    extra = tuple(CardView(60 + i, None, None, (), False) for i in range(cards))
    tableaux = tuple(tableau + extra if s == seat else tableau for s, tableau in enumerate(model.view.tableaux))
    t.ui.update(replace(model, view=replace(model.view, tableaux=tableaux, **view)))


async def test_names_cut_in_a_narrow_column_never_read_alike(mock_clock: trio.testing.MockClock) -> None:
    """Two long names that begin alike keep their ends; a bot beside a player of its
    name keeps its name marked as cut rather than reading as the player."""

    names = ("Ada", "Alexandra Konstantinova", "Alexandra Konstantinidis", "Ada (bot)")
    async with table({0: [4, 6, 0, 2]}, discard=12, draw=[0, 2], players=4, first=3) as t:
        _named(t, names)
        await t.other(Draw(3))
        rows = t.text().splitlines()
        assert "2 Alexandr…idis 0" in rows[2] and "1 Alexandr…nova 0" in rows[6], rows  # (13 columns free at 80)
        assert " Ada…'s card " in rows[6], rows[6]
        assert prompt_line(t).startswith("Ada (bot) is playing")


async def test_names_of_up_to_16_columns_are_shown_whole_where_the_screen_has_room(
        mock_clock: trio.testing.MockClock) -> None:
    """"Evangelina-Maxi1" read "Evangelina-…" on the table and in the standings even at
    132×40: a name of up to 16 columns is shown whole where the screen has room (a wide
    one too, never cut inside a character), and shortened only where it has not (six
    players at 80 columns: the tableaux across the table keep clear of each other)."""
    from dataclasses import replace

    names = ("Ana", "Evangelina-Maxi1", "山田太郎山田太郎", "Cy", "Dorothea-Elisabe", "Ed")
    async with table({0: [4, 6, 0, 2]}, discard=12, draw=[0, 2], players=6, first=1) as t:
        _named(t, names)
        await t.settle()
        rows = t.text(132, 40).splitlines()
        assert "2 山田太郎山田太郎 0" in rows[2] and "4 Dorothea-Elisabe 0" in rows[2], rows[2]
        assert "1 Evangelina-Maxi1 0" in rows[6], rows[6]
        rows = t.text(80, 24).splitlines()
        headers = re.findall(r"\d [^\d]+ 0", rows[2])
        assert len(headers) == 3 and all("…" in header for header in headers[::2]), rows[2]
        assert re.search(r"\S {4,}\S.* {4,}\S", rows[2].strip()), rows[2]  # (apart, not run together)
        assert "1 Evangelina-" in rows[6] and "…" in rows[6], rows[6]
    async with table({0: [0, 0, 2, 2], 1: [18, 16, 14, 12]}, discard=4, draw=[0, 2, 0], players=2, target=20) as t:
        t.session._seats = (t.session._seats[0], replace(t.session._seats[1], name=names[1]))
        await t.press("b", "x", "z")
        await t.other(Draw(1), Discard(1))
        assert "  Evangelina-Maxi1 [18] [16]" in t.text(), t.text()  # the round's screen, at 80×24
        await t.press("enter")
        mock_clock.jump(1.0)
        await t.settle()
        assert "2.  Evangelina-Maxi1    60    60" in t.text(), t.text()  # the standings


async def test_names_longer_than_16_columns_are_shown_whole_where_the_screen_has_room(
        mock_clock: trio.testing.MockClock) -> None:
    """"Fayetteville-Annie" (18 characters) read "Fayetteville-An…" even at 132×40, though
    a name may have 24: every name is shown whole up to its full allowed length where the
    screen has room, on the table, the round's screen and the standings."""
    from dataclasses import replace

    long = "Fayetteville-Annie-Marie"  # (24 characters: the most §6.4 allows)
    names = ("Ana", "Fayetteville-Annie", "Cy", long)
    async with table({0: [4, 6, 0, 2]}, discard=12, draw=[0, 2], players=4, first=1) as t:
        _named(t, names)
        await t.settle()
        text = t.text(132, 40)
        assert "1 Fayetteville-Annie 0" in text and f"3 {long} 0" in text, text
    async with table({0: [0, 0, 2, 2], 1: [18, 16, 14, 12]}, discard=4, draw=[0, 2, 0], players=2, target=20) as t:
        t.session._seats = (t.session._seats[0], replace(t.session._seats[1], name=long))
        await t.press("b", "x", "z")
        await t.other(Draw(1), Discard(1))
        assert f"  {long} [18] [16]" in t.text(132, 40), t.text(132, 40)  # the round's screen
        await t.press("enter")
        mock_clock.jump(1.0)
        await t.settle()
        assert f"2.  {long}    60    60" in t.text(132, 40), t.text(132, 40)  # the standings


@pytest.mark.parametrize(("players", "columns"), [(3, 80), (5, 100)])
async def test_a_name_shown_whole_stays_whole_while_its_header_says_a_card_is_drawn(
        mock_clock: trio.testing.MockClock, players: int, columns: int) -> None:
    """A name of 16 columns shown whole keeps its width while its header says " +card"
    (across the table at 80 columns, beside it at 100): the room a name may take is
    measured without the marks that come and go, so no name is cut and whole again at
    every turn."""

    names = ("Ana", "Evangelina-Maxi1", "山田太郎山田太郎", "Cy", "Dorothea-Elisabe")
    async with table({0: [4, 6, 0, 2]}, discard=12, draw=[0, 2], players=players, first=1) as t:
        _named(t, names)
        await t.settle()
        before = t.text(columns, 24)
        await t.other(Draw(1))
        after = t.text(columns, 24)
        assert "1 Evangelina-Maxi1 0 +card" in after, after
        for text in (before, after):
            assert "1 Evangelina-Maxi1 0" in text and "2 山田太郎山田太郎 0" in text, text
            assert players < 5 or "4 Dorothea-Elisabe 0" in text, text


async def test_names_across_the_table_are_shortened_rather_than_push_a_tableau_off_its_place(
        mock_clock: trio.testing.MockClock) -> None:
    """Six players at 80 columns: names of 16 columns across the table would push the
    tableaux there off their shares of the row (each sits where its player sits); they are
    shortened there, and shown whole at 100 columns, each tableau centred on its share of
    the row."""

    names = ("Ana", "Bo", "山田太郎山田太郎", "Cy", "Dorothea-Elisabe", "Ed")
    async with table({0: [4, 6, 0, 2]}, discard=12, draw=[0, 2], players=6, first=1) as t:
        _named(t, names)
        await t.settle()
        row = t.text(80, 24).splitlines()[2]
        assert "2 山田太郎山… 0" in row and "4 Dorothea-El… 0" in row, row  # (never cut inside a character)
        for columns in (80, 100):
            row = t.text(columns, 24).splitlines()[2]
            assert columns == 80 or ("2 山田太郎山田太郎 0" in row and "4 Dorothea-Elisabe 0" in row), row
            for i, key in enumerate("234"):  # (each centred on its quarter of the row: its header, or its cards)
                header = re.search(rf" {key} \D+ 0", row)
                assert header is not None, row
                box = max(len("[░░]  [░░]") + 1, text_width(header.group()))
                assert text_width(row[:header.start()]) + box // 2 == columns * (i + 1) // 4, (key, row)


@pytest.mark.parametrize("columns", [84, 100])
async def test_R6_a_long_name_never_makes_a_wide_tableau_across_the_table_compact(
        mock_clock: trio.testing.MockClock, columns: int) -> None:
    """Three players at 84 columns, nine columns of cards across the table (R6: penalty
    slots): names of 16 columns would leave the tableaux there no room for their slot
    keys' column (drawn compact, cards five columns apart); the names are shortened
    instead, and are whole where the row has room for both."""

    names = ("Ana", "Evangelina-Maxi1", "山田太郎山田太郎")
    async with table({1: [4, 6, 8, 2]}, discard=10, players=3, first=1) as t:
        _named(t, names)
        _widened(t, 2, 14)
        rows = t.ui.scene().draw(columns, 24).text().splitlines()
    cells = [m.start() for m in re.finditer(r"\[░░\]", rows[3])]
    assert len(cells) == 11 and cells[-1] - cells[-2] == 7, rows[3]  # (a key column: "vq" by each card)
    whole = "1 Evangelina-Maxi1 0" in rows[2] and "2 山田太郎山田太郎 0" in rows[2]
    assert whole == (columns == 100) and (whole or rows[2].count("…") == 2), rows[2]


async def test_R6_R8_a_long_name_beside_the_table_never_makes_the_side_tableaux_compact(
        mock_clock: trio.testing.MockClock) -> None:
    """Four players at 82 columns, five columns of cards on my right (R6), BANDIT by the
    name on my left (R8): names of 16 columns would leave the side tableaux no room for
    their slot keys' column beside the piles; the names are shortened instead."""

    names = ("Ana", "Evangelina-Maxi1", "山田太郎山田太郎", "Dorothea-Elisabe")
    async with table({1: [4, 6, 8, 2]}, discard=10, players=4, first=1) as t:
        _named(t, names)
        _widened(t, 3, 6, caller=1)
        rows = t.ui.scene().draw(82, 24).text().splitlines()
    cells = [m.start() for m in re.finditer(r"\[░░\]", rows[MIDDLE + 1])]
    assert len(cells) == 7 and cells[1] - cells[0] == 6 and cells[-1] - cells[-2] == 6, rows[MIDDLE + 1]
    assert "1 Evangelina-" in rows[MIDDLE] and "BANDIT" in rows[MIDDLE] and rows[MIDDLE].count("…") == 2, rows[MIDDLE]
    assert "draw pile" in rows[MIDDLE], rows[MIDDLE]


async def test_R6_side_tableaux_with_no_piles_between_them_keep_apart_for_a_long_name(
        mock_clock: trio.testing.MockClock) -> None:
    """Four players at 80 columns, eleven columns of cards on my right (R6): the piles go
    beside my tableau, and the side tableaux keep four columns apart, as from the piles;
    names of 16 columns would bring them within three, so they are shortened."""

    names = ("Ana", "Evangelina-Maxi1", "山田太郎山田太郎", "Dorothea-Elisabe")
    async with table({1: [4, 6, 8, 2]}, discard=10, players=4, first=1) as t:
        _named(t, names)
        _widened(t, 3, 18)
        rows = t.ui.scene().draw(80, 24).text().splitlines()
    assert "draw pile" in rows[BOTTOM] and len(re.findall(r"\[░░\]", rows[MIDDLE + 1])) == 13, "\n".join(rows)
    header = re.search(r"1 Evangelina-\S* 0( +)3 Dorothea-\S* 0", rows[MIDDLE])
    assert header is not None and len(header.group(1)) >= 4 + 1, rows[MIDDLE]  # (4 clear, then its tag's column)


@pytest.mark.parametrize("columns", [80, 100])
def test_R6_a_long_name_on_the_round_screen_leaves_a_wide_tableau_its_cards_in_one_row(columns: int) -> None:
    """A tableau of five columns of cards (R6: penalty slots) holds in one row of cards
    left of the round screen's figures at 80 columns beside names of 12 columns, not of
    16: a name is shown whole only where no tableau goes on in more rows for it."""
    from types import SimpleNamespace

    from cli.tui.canvas import Canvas
    from cli.tui.round_view import draw_round_end
    from engine.skills import DEFAULT_SKILLS
    from p2p.session import RoundReport

    face = {value: face for face, value in enumerate(DEFAULT_SKILLS.values)}
    wide = tuple((slot, face[value]) for slot, value in enumerate((4, 16, 0, 8, 14, 8, 2, 6, 10, 12)))
    square = tuple((slot, face[value]) for slot, value in enumerate((0, 2, 4, 6)))
    report = RoundReport(3, (12, 80), (12, 80), None, False, (square, wide))
    names = ("Ann", "Evangelina-Maxi1")
    model = SimpleNamespace(reports=[report], skills=DEFAULT_SKILLS, me=0, players=2, ended=False,
                            view=SimpleNamespace(round=3, target=200), name=lambda s: names[s])
    canvas = Canvas(columns, 24)
    draw_round_end(canvas, model, 0)  # type: ignore[arg-type]
    rows = [canvas.row_text(y).rstrip() for y in range(24)]
    top = next(y for y, row in enumerate(rows) if row.startswith("  Evangelina-"))
    assert rows[top].startswith("  Evangelina-Maxi1 " if columns == 100 else "  Evangelina-… "), rows[top]
    assert [len(re.findall(r"\[\s*-?\d+\]", row)) for row in rows[top:top + 3]] == [5, 5, 0], rows[top:top + 3]


@pytest.mark.parametrize(("rounds", "name"), [(8, "Evangelina-Maxi1"), (9, "Evangelina-…")])
def test_R1_a_long_name_in_the_standings_leaves_no_round_out(rounds: int, name: str) -> None:
    """At 80 columns the standings show nine rounds beside names of 12 columns, eight
    beside names of 16: a name is shown whole only where no round is left out for it."""
    from types import SimpleNamespace

    from cli.tui.canvas import Canvas
    from cli.tui.round_view import draw_game_end

    history = tuple((1, 2) for _ in range(rounds))
    view = SimpleNamespace(totals=(rounds, 2 * rounds), winners=(0,), history=history, target=rounds)
    model = SimpleNamespace(view=view, me=0, players=2, name=lambda s: ("Ann", "Evangelina-Maxi1")[s], ended=True,
                            finished=True, ended_why=None, log_path=None)
    canvas = Canvas(80, 24)
    draw_game_end(canvas, model)  # type: ignore[arg-type]
    text = canvas.text()
    assert f"2.  {name} " in text and "(r1 not shown)" not in text and f"r{rounds}" in text, text


@pytest.mark.parametrize("columns", [7, 10])
async def test_R6_a_wide_tableau_on_the_left_keeps_clear_of_the_piles_at_80_columns(
        mock_clock: trio.testing.MockClock, columns: int) -> None:
    """Bo's tableau, on the left, had seven columns of cards (R6: penalty slots): at 80
    columns the draw pile was drawn two columns after its last card, as far as its
    cards are apart, and read as an eighth card of Bo's. The piles keep a clear gap from
    a side tableau, stacked, or beside my tableau, where the middle row has no room."""

    async with table({1: [4, 6, 8, 2]}, discard=10, players=6, first=1) as t:
        _widened(t, 1, 2 * columns - 4)
        rows = t.ui.scene().draw(80, 24).text().splitlines()
    table_rows = rows[2:PROMPT_ROW]
    cell = re.compile(r"\[(?:░░|••| ?-?\d+)\]")
    assert all(row.count("[") == len(cell.findall(row)) for row in table_rows), "\n".join(table_rows)  # (none cut)
    for y in (7, 8):  # Bo's card rows: his cards, then a clear gap
        cells = [m.start() for m in cell.finditer(rows[y])]
        run = 1 + next((i for i, (a, b) in enumerate(zip(cells, cells[1:])) if b - a > 6), len(cells) - 1)
        assert run == columns and cells[run] - (cells[run - 1] + 4) >= 4, rows[y]
    text = "\n".join(table_rows)
    assert "draw pile" in text and "discard" in text and "[10] 1" in text, text


@pytest.mark.parametrize(("players", "position", "columns"), [(6, 2, 7), (6, 3, 7), (6, 4, 12), (5, 2, 10), (3, 2, 12),
                                                             (4, 2, 20), (6, 3, 40)])
async def test_R6_a_wide_tableau_across_the_table_fits_clear_of_the_others_at_80_columns(
        mock_clock: trio.testing.MockClock, players: int, position: int, columns: int) -> None:
    """An opponent across the table had seven columns of cards (R6: penalty slots): at 80
    columns the tableaux there were each centred on their share of the row, so the wide one
    was drawn over its neighbour's cards ("[░░]] [░░]░]"), and with more columns it ran
    past the screen's edge. They are pushed aside, drawn compact, or the widest goes on in
    a row of cards under itself (their row moving up into the blank row under the status
    bar), its last row ending in … where even two rows would not hold it."""

    from cli.tui.table_view import draw_table
    from tui_support import OverlapCanvas

    async with table({1: [4, 6, 8, 2]}, discard=10, players=players, first=1) as t:
        me = TableModel.capture(t.session).me
        _widened(t, (me + position) % players, 2 * columns - 4)
        canvas = OverlapCanvas(80, 24)
        draw_table(canvas, t.ui.scene())
    rows = [canvas.row_text(y).rstrip() for y in range(24)]
    assert canvas.overlaps == [], "\n".join(rows)
    across = rows[1:MIDDLE]
    cells = sum(row.count("[░░]") for row in across)
    top = len(places(players).top)
    if columns <= 2 * 16:
        assert cells == 4 * top + 2 * columns - 4, "\n".join(across)  # (every card, none past the edge)
    else:  # (more than two rows of cards hold: as many as they do, then …)
        assert across[-1].endswith("[░░]…") and across[-2].endswith("[░░]"), "\n".join(across)
    assert all(f"{p} {NAMES[(me + p) % players]} 0" in "\n".join(across) for p in places(players).top), across


@pytest.mark.parametrize("width", range(2, 17))
def test_fitted_names_fit_and_never_read_alike(width: int) -> None:
    from cli.tui.seat_names import fit_names
    from p2p.names import skeleton

    names = ("Ada", "Ada (bot)", "Alexandra Konstantinova", "Alexandra Konstantinidis", "山田太郎" * 3, "山田次郎" * 3)
    fitted = fit_names(names, width)
    assert all(text_width(name) <= width for name in fitted), fitted
    assert len({skeleton(name) for name in fitted}) == len(names) or width < 7, fitted


async def test_a_long_wide_name_leaves_the_header_and_the_prompt_their_keys(mock_clock: trio.testing.MockClock) -> None:
    """A name of 24 wide characters whose turn it is pushed "to 100 · ? help" (now "ends at 100 · ? help") off the
    80-column header and cut the prompt's keys ("… is playing · Space+slot snap…"): the
    name is shortened with … instead. A 12×4 or 40×12 screen says it is too small whole,
    in fewer words when it must."""
    from dataclasses import replace

    wide = "山田太郎" * 6
    async with table({0: [4, 6, 0, 2]}, discard=12, draw=[0, 2], first=1) as t:
        seats = t.session._seats
        t.session._seats = (seats[0], replace(seats[1], name=wide), *seats[2:])
        await t.settle()
        rows = t.text().splitlines()
        assert rows[0].rstrip().endswith("ends at 100 · ? help") and "…'s turn" in rows[0], rows[0]
        assert prompt_line(t).endswith("is playing · Space+slot snaps a card matching the discard."), prompt_line(t)
        assert "…" in prompt_line(t)
        for width, height, said in ((12, 4, "Too small: need 80×24."), (40, 12, "the table needs 80×24.")):
            shown = " ".join(t.text(width, height).split())
            assert said in shown and shown.endswith(said[-6:] if width == 12 else "asking first)."), shown


WIDEST = ("山田太郎山田太郎", "山田次郎山田次郎", "佐藤花子佐藤花子", "鈴木一郎鈴木一郎", "高橋美咲高橋美咲")
"""Five names of 16 columns each, in East Asian wide characters."""


def said_whole(t: UiDriver) -> list[str]:
    """The prompt area's rows at 80×24, checked: every word of what it says is on screen,
    in order, the players' names in it whole."""
    from cli.tui.table_view import prompt_lines, unmarked

    rows = t.text().splitlines()
    end = next(y for y in range(PROMPT_ROW, len(rows)) if rows[y].startswith("──"))
    area = [row.strip() for row in rows[PROMPT_ROW:end]]
    lines = prompt_lines(t.scene)
    said = " ".join(unmarked(line.text) if line.marked else line.text for line in lines)
    assert " ".join(" ".join(area).split()) == " ".join(said.split()), "\n".join(area)
    model = t.scene.model
    named = [name for name in map(model.said_name, range(1, model.players)) if name in said]
    assert named and all(name in " ".join(area) for name in named), "\n".join(area)
    return area


@pytest.mark.parametrize("names", [WIDEST, tuple(name * 3 for name in WIDEST)])
async def test_sentences_naming_players_of_the_widest_names_are_read_whole_at_80_columns(
        mock_clock: trio.testing.MockClock, names: tuple[str, ...]) -> None:
    """With names of 16 columns in wide characters, the prompt line was cut ("Waiting for
    山田太郎山田太郎 to come back · Space+slot snaps a card matc…"), the message naming the
    five players still looking at their bottom cards lost its end (R4), and the status
    bar's list of players waited for ran past the screen's edge. A name in a sentence
    takes 16 columns at most (a longer one ends in …, after a whole character); what does
    not fit a row goes on in the next, the table log giving up rows; the status bar counts
    the players it waits for where their names do not fit."""
    from dataclasses import replace

    async with table({0: [4, 6, 8, 2]}, discard=10, players=6, first=1, ready=False) as t:
        seats = t.session._seats
        t.session._seats = (seats[0], *(replace(info, name=name) for info, name in zip(seats[1:], names, strict=True)))
        assert await t.press("x") == [Ready(0)]  # (the look ends: the first turn waits for the others, R4)
        said_whole(t)
        mock_clock.jump(MESSAGE_S)
        await t.settle()
        assert said_whole(t)[0].startswith("Ready (R4) · waiting for")
        await t.other(*(Ready(s) for s in range(1, 6)))
        await t.press("space", "1", "q", "x")  # (a snap of the first player's card, and a slip)
        assert len(said_whole(t)) == 2
        await t.press("esc")
        t.session._progress.waiting_for = (1, 2, 3)  # (their links are down, §11.3)
        t.session._deadlines.grace = trio.current_time() + 90
        t.refresh()
        assert said_whole(t)[0].startswith("Waiting for")
        assert "· waiting for 3 players (game ends in 1:30)" in t.text().splitlines()[0]
        t.session._progress.reconnecting_after_stop = True  # (this seat's own stop, §11.3)
        t.refresh()
        assert said_whole(t)[0].startswith("Reconnecting to")
        t.session._progress.reconnecting_after_stop = False
        t.session._progress.gone, t.session._progress.waiting_for = (1,), (2, 3)  # (§9.8)
        t.refresh()
        assert " left the table; the game ends when " in " ".join(said_whole(t))


BRACED = ("{x}", "a{b}c", "}{Space}{")
"""Names holding braces, as the key marks of prompts write keys ("{x} draw")."""


def prompt_area(t: UiDriver) -> str:
    """The prompt area's rows at 80×24, joined into one line."""
    rows = t.text().splitlines()
    end = next(y for y in range(PROMPT_ROW, len(rows)) if rows[y].startswith("──"))
    return " ".join(" ".join(row.strip() for row in rows[PROMPT_ROW:end]).split())


@given(st.text(alphabet="{}ab 山", max_size=12), st.sampled_from(["{x}", "{Space}+slot", "{Esc}"]))
def test_a_name_put_into_marked_text_reads_as_written_beside_any_key(name: str, key: str) -> None:
    """Whatever a name holds, marked text with it drawn reads the name as written and
    marks only the key beside it, before or after it."""
    from cli.tui.marks import literal, marked_parts, unmarked

    for text in (f"{literal(name)}{key}", f"{key}{literal(name)}", f"{key} {literal(name)}'s card"):
        assert [part for part, is_key in marked_parts(text) if is_key] == [key[1:key.index("}")]]
        assert unmarked(text) == text.replace(literal(name), name).replace(key, unmarked(key))
        assert unmarked(literal(name)) == name


async def test_a_name_holding_braces_is_drawn_as_written_in_every_prompt_that_marks_keys(
        mock_clock: trio.testing.MockClock) -> None:
    """A player called "{x}" was drawn as "x" in the prompt line, as if it were the key
    x ("waiting for x · Space+slot snaps …"), and "a{b}c" as "abc". A name put into a
    prompt that marks keys is written as it is, in every such prompt; the keys around it
    are still keys."""
    from dataclasses import replace

    from cli.tui.marks import marked_parts, unmarked
    from cli.tui.table_view import prompt_lines, prompt_text

    def keys(line: str) -> list[str]:
        return [part for part, key in marked_parts(line) if key]

    async with table({0: [4, 6, 8, 2]}, discard=10, players=4, first=1, ready=False) as t:
        _named(t, ("Ada", *BRACED))
        assert await t.press("x") == [Ready(0)]
        mock_clock.jump(MESSAGE_S)
        await t.settle()
        assert prompt_area(t) == "Ready (R4) · waiting for {x}, a{b}c and }{Space}{ · Space+slot snaps a matching card."
        await t.other(*(Ready(s) for s in range(1, 4)))
        assert prompt_area(t).startswith("{x} is playing · Space+slot snaps")
        assert keys(prompt_text(t.scene)) == ["Space"]
        for seat, name in enumerate(BRACED, start=1):
            await t.press("space", str(seat))
            assert prompt_area(t).startswith(f"Snap the 10 with {name}'s card: slot which one? · Esc cancel."), prompt_area(t)
            await t.press("q")
            assert prompt_area(t).startswith(f"…and give {name} which card of yours?"), prompt_area(t)
            await t.press("esc")
        t.session._progress.waiting_for = (1, 2)  # (their links are down, §11.3)
        t.session._deadlines.grace = trio.current_time() + 90
        t.refresh()
        assert prompt_area(t).startswith("Waiting for {x} to come back · Space+slot snaps")
        t.session._progress.reconnecting_after_stop = True
        t.refresh()
        assert prompt_area(t).startswith("Reconnecting to {x} · Space+slot snaps")
        t.session._progress.reconnecting_after_stop = False
        t.session._progress.gone = (1,)  # (§9.8)
        t.refresh()
        assert prompt_area(t) == "{x} left the table; the game ends when {x} and a{b}c are back."
        scene = t.scene  # (the look at the bottom cards going on in {x}'s turn: Space snaps, R6)
        looking = replace(scene, message=None, bottom_until=scene.model.now + 5,
                          model=replace(scene.model, gone=(), waiting_for=()))
        snap_line = prompt_lines(looking)[1]
        assert snap_line.text.endswith("your one snap in {{x}}'s turn (R6).") and keys(snap_line.text) == ["Space"]
        sent = replace(scene, message=None, model=replace(scene.model, gone=(), sending=("snap",)))
        assert unmarked(prompt_text(sent)) == "Your snap is sent: it counts once {x} and a{b}c are back."


async def test_R5_keys_pressed_while_the_table_is_not_on_screen_do_nothing(mock_clock: trio.testing.MockClock) -> None:
    """At a terminal too small for the table, x drew a card nobody could
    see. While the table is not shown its keys do nothing, and the screen says so;
    Ctrl-C still asks to leave."""
    async with table({0: [4, 6, 0, 2]}, discard=12, draw=[0, 2]) as t:
        small = (60, 24)
        for key in ("x", "c", "q", "space", "enter", "?"):
            assert t.ui.press(key, t.ui.scene(), small) == []
        assert t.scene.pending is None and t.scene.overlay is None
        assert "Keys do nothing until the table is shown" in " ".join(t.text(*small).split())
        t.ui.press("ctrl-c", t.ui.scene(), small)
        assert t.scene.quitting and "Leave the table?" in t.text(*small)
        t.ui.press("n", t.ui.scene(), small)
        assert not t.scene.quitting
        assert t.ui.press("x", t.ui.scene(), (80, 24)) == [Draw(0)]


async def test_R4_the_look_at_the_bottom_cards_waits_while_the_table_is_not_on_screen(
        mock_clock: trio.testing.MockClock) -> None:
    """The look at the bottom cards is 10 s of being shown (R4.3): while the terminal is
    too small for the table it does not run, and the screen says how long it has left."""
    async with table({0: [4, 6, 8, 2]}, discard=10, ready=False) as t:
        mock_clock.jump(3)
        await t.settle()
        t.ui.resize((60, 20))
        for _ in range(2):  # (within the table's 30 s ready barrier)
            mock_clock.jump(5)
            await t.settle()
            assert "Your look at your bottom cards waits for it (7 s)." in " ".join(t.text(60, 20).split())
        assert t.sent == []
        t.ui.resize((80, 24))
        await t.settle()
        assert "[ 8]" in my_box(t.text())[1]
        mock_clock.jump(6.5)
        await t.settle()
        assert "[ 8]" in my_box(t.text())[1] and t.sent == []
        mock_clock.jump(0.5)
        await t.settle()
        assert t.sent == [Ready(0)] and "[ 8]" not in my_box(t.text())[1]


async def test_R4_the_look_at_the_bottom_cards_starts_once_the_table_is_on_screen(
        mock_clock: trio.testing.MockClock) -> None:
    session = LocalSession(3, 0, script=Script([arranged(3, {0: [4, 6, 8, 2]}, discard=10)], [0]), bots_play=False)
    async with trio.open_nursery() as nursery:
        await nursery.start(session.run)
        t = UiDriver(session)
        t.ui.resize((80, 20))
        await t.settle()
        mock_clock.jump(20)
        await t.settle()
        assert "Your look at your bottom cards waits for it (10 s)." in " ".join(t.text(80, 20).split())
        t.ui.resize((80, 24))
        assert t.scene.bottom_until == trio.current_time() + BOTTOM_PEEK_S
        assert "[ 8]" in my_box(t.text())[1]
        nursery.cancel_scope.cancel()


async def test_text_pasted_on_the_table_is_no_move(mock_clock: trio.testing.MockClock) -> None:
    """A paste is text for a field being typed: on the table it plays nothing (pasting
    "xz" by mistake must not draw and pass)."""
    from cli.tui.terminal import PASTE

    async with table({0: [4, 6, 0, 2]}, discard=12, draw=[0, 2]) as t:
        assert await t.press(PASTE + "xz") == []
        assert await t.press("x") == [Draw(0)]


@pytest.mark.parametrize(("mine", "said"), [(8, "but you have 8"), (20, "but you also have 20")])
def test_R9_the_round_screen_says_you_have_when_you_beat_the_caller(mine: int, said: str) -> None:
    from cli.tui.round_view import caller_words
    from engine import DEFAULT_SKILLS

    def face(value: int) -> int:  # (a card id of that value)
        return DEFAULT_SKILLS.values.index(value)

    report = RoundReport(1, (0, 0), (0, 0), caller=1, exhausted=False,
                         tableaus=(((0, face(mine // 2)), (1, face(mine // 2))), ((0, face(10)), (1, face(10)))))
    assert caller_words(report, DEFAULT_SKILLS, ["You", "Bo"], 0) == (
        f"Bo announced Bandit with 20, {said}: not strictly the lowest, +10 (R9).")


def test_s11_3_a_turn_begun_before_a_restart_says_its_time_left_is_unknown() -> None:
    """A resumed seat shows no countdown for the turn under way (the others' clocks know
    how long ago it began): the status line says the clock runs, time left unknown, and
    names the player as they typed it."""
    session = SlowTable(ScriptedTable(3, {0: [4, 6, 0, 2]}, discard=10, draw=[0, 2], first=1))
    session.seats = tuple(SeatInfo(s, name, "TEST") for s, name in enumerate(("ana", "bo", "cy")))
    session.deadlines.unknown = True
    ui = TableUi(0)
    ui.update(TableModel.capture(session))  # type: ignore[arg-type]
    status = ui.scene().draw(80, 24).row_text(0)
    assert "bo's turn (time left unknown)" in status, status


def test_R1_a_game_that_ended_before_any_score_ranks_nobody_and_its_log_path_is_whole_at_80_columns() -> None:
    """A game left before its first round was scored has no standings to rank (it showed
    everyone "1." with 0), and the log's path and audit command wrap rather than being
    cut at 80 columns: they are there to be copied."""
    session = SlowTable(ScriptedTable(3, {0: [4, 6, 0, 2]}, discard=10, draw=[0, 2]))
    folder = "/home/someone/.local/share/bandit-lan/logs/a-rather-long-folder-name"
    session.progress = Progress(ended=True, ended_why="Bo left the table (the player chose to leave)",
                                log_path=f"{folder}/0a1b2c3d4e5f-seat1.bandit-log")
    ui = TableUi(0)
    ui.update(TableModel.capture(session))  # type: ignore[arg-type]
    text = ui.scene().draw(80, 24).text()
    assert "Game ended: Bo left the table" in text and "No round was scored before the game ended." in text
    assert " 1. " not in text and "…" not in text, text
    assert "0a1b2c3d4e5f-seat1.bandit-log" in text.replace("\n", "").replace(" ", "")


def test_R1_the_game_end_screen_never_breaks_its_log_s_path_inside_a_name_at_80_columns() -> None:
    """The log's path, too long for a row, was cut inside its file's name
    ("…-seat1.bandit-l" / "og"): it breaks after a "/" only, each name whole on its row,
    and the screen says that it is printed whole as the player leaves; the audit command
    too, its own path broken the same way."""
    from cli.tui.round_view import PRINTED_WHOLE

    session = SlowTable(ScriptedTable(3, {0: [4, 6, 0, 2]}, discard=10, draw=[0, 2]))
    folder = "/home/someone-with-a-long-name/.local/share/bandit-lan/logs/friday-night-at-the-lan-party"
    path = f"{folder}/7027a81d97ad-seat1.bandit-log"
    session.progress = Progress(ended=True, ended_why="Bo left the table (the player chose to leave)", log_path=path)
    ui = TableUi(0)
    ui.update(TableModel.capture(session))  # type: ignore[arg-type]
    canvas = ui.scene().draw(80, 24)
    rows = [canvas.row_text(y).strip() for y in range(24)]
    start = rows.index("Your fairness log of this game:") + 1
    broken = rows[start:start + 2]
    assert "".join(broken) == path and broken[0].endswith("/") and broken[1].endswith("/7027a81d97ad-seat1.bandit-log")
    assert PRINTED_WHOLE in rows
    command = rows[rows.index(PRINTED_WHOLE) - 1]  # (the audit command's last row)
    assert command.endswith("7027a81d97ad-seat1.bandit-log") and command.split("/")[-1] == "7027a81d97ad-seat1.bandit-log"


def test_s11_3_why_a_game_ended_wraps_on_the_final_screen_rather_than_being_cut() -> None:
    """A long reason (a program stopped past the grace period) is read whole at 100
    columns: it was cut after "the o…", before what the player most needs to read."""
    session = SlowTable(ScriptedTable(3, {0: [4, 6, 0, 2]}, discard=10, draw=[0, 2]))
    why = ("your program was stopped for 32 s, longer than the table's grace period (15 s): the others have "
           "ended the game, naming you away")
    session.progress = Progress(ended=True, ended_why=why, log_path="/home/someone/logs/0a1b2c3d4e5f-seat1.bandit-log")
    ui = TableUi(0)
    ui.update(TableModel.capture(session))  # type: ignore[arg-type]
    canvas = ui.scene().draw(100, 24)
    text = canvas.text()
    assert "…" not in text, text
    assert f"Game ended: {why}" in " ".join(canvas.row_text(y).strip() for y in range(3)), text
    assert "No round was scored before the game ended." in text and "Enter: leave" in text


async def test_R4_a_ready_sent_while_the_table_waits_is_said_to_count_once_they_are_back() -> None:
    """Ana is done with her look at the bottom cards while Bo is away: her "ready" is
    sent and counts once Bo is back, and the prompt says so (it asked for Enter again,
    which did nothing)."""
    from cli.tui.table_view import prompt_text

    session = AwayTable(ScriptedTable(3, {0: [4, 6, 0, 2]}, discard=10, draw=[0, 2], ready=False))
    ui = TableUi(0)
    ui.update(TableModel.capture(session))  # type: ignore[arg-type]
    assert ui.press("enter", ui.scene()) == [Ready(0)]  # (done looking at the bottom cards)
    session.submit(Ready(0))
    ui.update(TableModel.capture(session))  # type: ignore[arg-type]
    assert prompt_text(ui.scene()) == 'Your "ready" is sent: it counts once Bo is back.'


def test_R1_why_the_game_ended_writes_each_name_as_its_player_wrote_it() -> None:
    """The R1 line begins with a capital only where it begins with "you": a name is the
    player's own ("eve" is not "Eve", "ßtefan" not "SStefan")."""
    from cli.tui.round_view import why_the_game_ended

    names = ["eve", "ßtefan", "Bo"]
    assert why_the_game_ended((120, 101, 30), 100, names, me=2) == (
        "eve (120) and ßtefan (101) reached 100, so the game ends (R1): the lowest total wins.")
    assert why_the_game_ended((120, 101, 30), 100, names, me=0) == (
        "You (120) and ßtefan (101) reached 100, so the game ends (R1): the lowest total wins.")
    assert why_the_game_ended((20, 101, 130), 100, names, me=1) == (
        "Bo (130) and you (101) reached 100, so the game ends (R1): the lowest total wins.")
    assert why_the_game_ended((20, 10, 30), 100, names, me=1) is None


def test_fitted_names_that_differ_only_in_the_middle_never_read_alike() -> None:
    """Names of 24 letters alike at both ends ("Christopher A Williamson", "… B …") show
    where they differ; names alike but for lookalike letters end in their seats' numbers."""
    from cli.tui.seat_names import fit_names

    assert fit_names(["Christopher A Williamson", "Christopher B Williamson"], 12) == ("…pher A Wil…", "…pher B Wil…")
    twins = ["A" * 10 + "B" + "A" * 13, "A" * 5 + "a" + "A" * 4 + "C" + "A" * 13]  # (first differ by case only)
    assert fit_names([*twins, "Bo"], 5) == ("AA…#1", "AA…#2", "Bo")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(st.sampled_from("AaBb oO0l1I(bot)山"), min_size=1, max_size=24), min_size=2, max_size=6),
       st.integers(min_value=4, max_value=16))
def test_fitted_names_of_distinct_players_never_read_alike(names: list[str], width: int) -> None:
    """Any names a table may seat (no two alike, §6.4), at any width from 4: each fits,
    and no two read alike."""
    from cli.tui.seat_names import fit_names
    from p2p.names import skeleton

    assume(len({skeleton(name) for name in names}) == len(names))
    fitted = fit_names(names, width)
    assert all(text_width(name) <= width for name in fitted), fitted
    assert len({skeleton(name) for name in fitted}) == len(names), fitted



def reconnecting_in_bo_s_turn(t: UiDriver, status: str) -> None:
    """In Bo's turn, the link to Bo not made again yet, 7 s of grace left: the status bar
    says `status`, nobody is blamed as away, and the prompt says this seat reconnects."""
    t.session._progress.waiting_for = (1,)
    t.session._deadlines.grace = trio.current_time() + 7
    t.refresh()
    text = t.text()
    assert status in text.splitlines()[0], text
    assert "waiting for Bo" not in text and "(away)" not in text and "Waiting for Bo" not in text, text
    assert prompt_line(t) == "Reconnecting to Bo · Space+slot snaps a card matching the discard.", prompt_line(t)

async def test_s11_3_back_from_its_own_stop_the_screen_says_this_seat_reconnects_and_blames_nobody(
        mock_clock: trio.testing.MockClock) -> None:
    """Back from a stop, this seat re-makes the links the others closed meanwhile
    (`Progress.reconnecting_after_stop`): the status bar, Bo's header, the prompt in Bo's
    turn and a move sent meanwhile said Bo was away. They say that this seat reconnects."""
    async with table({0: [4, 6, 0, 2]}, discard=12, first=1) as t:
        t.session._progress.reconnecting_after_stop = True
        reconnecting_in_bo_s_turn(t, "reconnecting after your stop (0:07 to get back)")
    async with table({0: [4, 6, 0, 2]}, discard=12, first=0) as t:
        t.session._progress.waiting_for = (1,)
        t.session._progress.reconnecting_after_stop = True
        t.refresh()
        assert await t.press("x") == [Draw(0)]
        assert t.message == "Your draw is sent: it counts once you reach Bo again.", t.message


async def test_s11_3_a_seat_resumed_after_a_crash_says_it_reconnects_and_blames_nobody(
        mock_clock: trio.testing.MockClock) -> None:
    """A seat taken back with `--resume` re-makes its links to the others
    (`TablePeer.rejoining`): its status bar, Bo's header, the prompt in Bo's turn and a
    move sent meanwhile said Bo was away. They say that this seat reconnects, as after
    a stop; a link lost once every seat was reached again is Bo's absence."""
    from p2p.peer import TablePeer

    assert isinstance(TablePeer.rejoining, property)  # (what `TableModel.capture` reads, as the fixture sets it)
    async with table({0: [4, 6, 0, 2]}, discard=12, first=1) as t:
        t.session.rejoining = True
        reconnecting_in_bo_s_turn(t, "reconnecting after resuming (0:07 to get back)")
        t.session.rejoining = False  # (every seat reached again: then Bo's link went down)
        t.refresh()
        assert "waiting for Bo (game ends in 0:07)" in t.text().splitlines()[0] and "(away)" in t.text()
    async with table({0: [4, 6, 0, 2]}, discard=12, first=0) as t:
        t.session._progress.waiting_for = (1,)
        t.session.rejoining = True
        t.refresh()
        assert await t.press("x") == [Draw(0)]
        assert t.message == "Your draw is sent: it counts once you reach Bo again.", t.message


def test_R5_esc_cancels_a_move_kept_for_the_first_turn() -> None:
    """Ana's x, typed as her first turn is about to begin, is kept for it; Esc did not
    drop it, and the draw was played as the turn began. Esc cancels it and says so."""
    session = AwayTable(ScriptedTable(3, {0: [4, 6, 0, 2]}, discard=10, draw=[0, 2], ready=False))
    session.table.do(Ready(1))
    session.table.do(Ready(2))
    ui, press = pressing(session)
    press("enter")
    press("x")
    assert ui.message is not None and ui.message.text == "Your draw (x) is played as your first turn begins, in a moment (R5)."
    press("esc")
    assert ui.message is not None and ui.message.text == "Cancelled: your draw (x) is not played as your first turn begins."
    session.land()
    settle(ui, session)
    assert session.sent == [Ready(0)]


async def test_R10_esc_after_v_says_the_presses_of_v_were_dropped(mock_clock: trio.testing.MockClock) -> None:
    """v v v v said "the next slot key names a card 20 columns further right"; Esc dropped
    those presses but left that message up, so q, which plays slot 0, seemed to name slot 20."""
    async with table({0: [4, 6, 0, 2]}, discard=12, draw=[0, 2]) as t:
        assert await t.press("v", "v", "v", "v") == []
        assert t.message == "v v v v: the next slot key names a card 20 columns further right."
        assert await t.press("esc") == []
        assert t.message == "Cancelled: v v v v: the next slot key names a card of the first five columns again."


@pytest.mark.parametrize(("presses", "key", "said"), [
    (("v",), "enter", "Enter is not a slot key: the v before it is dropped."),
    (("v", "v"), "pageup", "PgUp is not a slot key: the v v before it are dropped."),
])
async def test_R10_a_key_after_v_that_is_not_a_slot_key_says_the_v_is_dropped(
        mock_clock: trio.testing.MockClock, presses: tuple[str, ...], key: str, said: str) -> None:
    """v said "the next slot key names a card 5 columns further right"; Enter (or PgUp)
    after it, no slot key, dropped the v but left that message on the prompt line, so the
    slot key typed next seemed to name a card five columns on. The screen says the v is
    dropped, and the slot key typed next names its own slot."""
    async with table({0: [4, 6, 0, 2]}, discard=12, draw=[0, 2]) as t:
        assert await t.press("x") == [Draw(0)]
        assert await t.press(*presses, key) == []
        assert prompt_line(t) == said
        assert await t.press("q") == [Exchange(0, 0)]
