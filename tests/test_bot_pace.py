"""The bots a table seats play at a person's pace whenever a person may sit there (R6 is a
race, and R10 treats every player's input the same way); only an all-bot table (`play
--headless`, `host --headless --bots`) plays at full speed."""

from __future__ import annotations

import subprocess
from contextlib import AsyncExitStack
from functools import partial
from pathlib import Path
from types import SimpleNamespace

import pytest
import trio

import cli.game
from engine import NormalBot
from engine.events import Snap
from engine.prng import Prng
from engine.view import SeatView
from cli.bots import bot_command
from cli.game import bot_without_a_terminal, seat_pace
from cli.host import _bot_table
from cli.main import build_parser, main
from engine.bots.base import SnapDelay
from p2p.peer import FULL_SPEED, HUMAN_PACE, Pace, TablePeer


def pace_of(command: list[str]) -> Pace:
    """The pace of the seat `command` (`python -m cli join …`) plays."""
    assert command[1:3] == ["-m", "cli"], command
    args = build_parser().parse_args(command[3:])
    assert args.command == "join" and args.bot, command  # (a bot: no full screen)
    return seat_pace(args)


@pytest.fixture
def at_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command runs where a person's full screen could be drawn."""
    monkeypatch.setattr(cli.game, "why_not_full_screen", lambda: None)


@pytest.mark.parametrize(("options", "pace"), [((), HUMAN_PACE), (("--headless",), FULL_SPEED)])
def test_R6_R10_the_bots_of_play_think_and_react_as_a_person_does_unless_every_seat_is_a_bot(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at_a_terminal: None, options: tuple[str, ...],
        pace: Pace) -> None:
    """`play --bots 1` (the quick start) starts its bot at a person's pace; `play
    --headless` (bots only, as the benchmarks play) at full speed. (The bot process is
    not run: it fails at once, so `play` gives up before its game.)"""
    started: list[list[str]] = []

    async def bot_process(command: list[str], **_: object) -> subprocess.CompletedProcess[bytes]:
        started.append(command)
        return subprocess.CompletedProcess(command, 1, b"", b"not run here")

    monkeypatch.setattr(trio, "run_process", bot_process)
    assert main(["play", "--bots", "1", *options, "--state-dir", str(tmp_path)]) == 1
    assert len(started) == 1 and pace_of(started[0]) == pace


def test_R6_R10_play_without_a_terminal_starts_its_bots_at_a_person_s_pace(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """No terminal (the test's output is no terminal): a bot plays the player's seat, at a
    person's pace, and so do the bots `play` seats; only a --headless typed means full
    speed. (It counted as --headless: every bot at full speed.)"""
    started: list[list[str]] = []

    async def bot_process(command: list[str], **_: object) -> subprocess.CompletedProcess[bytes]:
        started.append(command)
        return subprocess.CompletedProcess(command, 1, b"", b"not run here")

    monkeypatch.setattr(trio, "run_process", bot_process)
    assert main(["play", "--bots", "1", "--state-dir", str(tmp_path)]) == 1
    assert len(started) == 1 and pace_of(started[0]) == HUMAN_PACE
    assert ("no terminal to play on: a bot plays your seat at a person's pace (--headless: as fast as it can)"
            in capsys.readouterr().err)


def test_R6_R10_a_host_whose_seat_a_bot_plays_and_its_bots_play_at_a_person_s_pace(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`host --bots --bot` with no terminal (a job whose output goes to a file): a bot
    plays the host's seat, and its table is open to people on the LAN, so that bot and the
    bots it seats play at a person's pace (R6, R10); only a --headless typed means full
    speed. The real bot joins the real host; the host's seat stops once its pace is known,
    as a seat whose log cannot be written does (`unrecorded`: its bot sees it go, and ends)."""
    started: list[list[str]] = []
    paces: list[Pace] = []
    real_run_process = trio.run_process

    async def bot_process(command: list[str], **options: object) -> subprocess.CompletedProcess[bytes]:
        started.append(command)
        return await real_run_process(command, **options)  # type: ignore[arg-type]

    class PaceSeen(cli.game.SeatPeer):
        def __init__(self, *args: object, pace: Pace, **options: object) -> None:
            paces.append(pace)
            raise OSError(28, "not played here")

    monkeypatch.setattr(trio, "run_process", bot_process)
    monkeypatch.setattr(cli.game, "SeatPeer", PaceSeen)
    host = ["host", "--bot", "--seats", "2", "--bots", "1", "--no-discovery", "--bind", "127.0.0.1", "--quiet",
            "--state-dir", str(tmp_path)]
    assert main(host) == 1
    assert len(started) == 1 and pace_of(started[0]) == HUMAN_PACE
    assert paces == [HUMAN_PACE]
    assert "no terminal" not in capsys.readouterr().err  # (a bot was asked for: nothing to say)


@pytest.mark.parametrize(("command", "bots"), [("play", True), ("host", True), ("join", False)])
def test_R6_R10_the_headless_help_says_what_it_does_to_the_pace_of_the_command_s_bots(
        command: str, bots: bool, capsys: pytest.CaptureFixture[str]) -> None:
    """`--headless` sets the pace of the bots `play` and `host --bots` seat too: their help
    says so; `join` seats no bots."""
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--headless no full-screen client: a bot plays this seat as fast as it can, its progress printed" in text
    assert ("so do your bots (--bots), which otherwise play at a person's pace, even where no terminal is at hand"
            in text) is bots, text


@pytest.mark.parametrize(("options", "pace"), [
    ((), HUMAN_PACE),  # a person hosts: people play beside the bots
    (("--bot",), HUMAN_PACE),  # a bot plays the host's seat, at a person's pace, and people may join
    (("--headless",), FULL_SPEED),  # the host chose full speed for its table
])
def test_R6_R10_the_bots_of_host_play_at_the_pace_of_the_host_s_seat(
        tmp_path: Path, at_a_terminal: None, options: tuple[str, ...], pace: Pace) -> None:
    args = build_parser().parse_args(["host", "--bots", "1", *options, "--state-dir", str(tmp_path)])
    bot_without_a_terminal(args)
    table = _bot_table(args, "192.0.2.7", 4000, SimpleNamespace(peer_id=bytes(32)))
    assert pace_of(bot_command(0, "Ada (bot)", table)) == pace


LINK = 0.15  # seconds the links may take from it at the seat that did not cover it (at that seat: none)


class TurnsOnly(NormalBot):
    """The normal bot, but for its snaps: what covers the discard here is a turn's move."""

    def snap(self, view: SeatView, rng: Prng) -> Snap | None:
        return None


async def test_R6_at_a_person_s_pace_a_discard_stays_up_a_reaction_time_before_a_bot_s_turn_covers_it(
        tmp_path: Path) -> None:
    """A live table of two bots at a person's pace: each card turned up on the discard
    pile is on every seat's table for at least a person's reaction time (the bots' median
    `SnapDelay`) before the next turn takes it (R5 C) or discards onto it (A, B), so a
    person who sees a match in that time snaps it first. (At the seat that covered it,
    exactly; at the other, less what its links take.)"""
    from tests.live_support import running, seat_live_lobby, until

    async with AsyncExitStack() as stack:
        lobby = await seat_live_lobby(tmp_path, 2, stack)
        peers = [TablePeer(mesh, result, identity, log_path=tmp_path / f"seat{i + 1}.bandit-log", bot=TurnsOnly(),
                           seed=i, pace=HUMAN_PACE)
                 for i, (mesh, result, identity) in enumerate(zip(lobby.meshes, lobby.results, lobby.ids))]
        tops: list[list[tuple[float, int, int | None]]] = [[], []]  # each seat's: when, round, top face up

        def top_changed(seat: int) -> bool:
            view = peers[seat].view()
            shown = (view.round, view.top if view.top_face is not None else None)
            if not tops[seat] or tops[seat][-1][1:] != shown:
                tops[seat].append((trio.current_time(), *shown))
            return len({(round_, top) for _, round_, top in tops[seat] if top is not None}) > 4  # (four covered)

        with trio.fail_after(60):
            async with running(peers):
                async with trio.open_nursery() as nursery:
                    for seat in (0, 1):
                        nursery.start_soon(until, partial(top_changed, seat), peers[seat])
                await peers[0].leave()
    reaction = SnapDelay().median
    for seen in tops:
        turned_up = [(then - at, (round_, top)) for (at, round_, top), (then, round_then, _) in zip(seen, seen[1:])
                     if top is not None and round_then == round_]  # (a top that went as its round ended: not covered)
        first = [up for i, (up, card) in enumerate(turned_up) if card not in [c for _, c in turned_up[:i]]]
        # (a card uncovered as the one on it is taken, R5 C, and covered again at once, was turned up before)
        assert len(first) >= 3 and min(first) >= reaction - LINK, (first, seen)


class SnapsLate(NormalBot):
    """The normal bot, but it snaps only in the other seat's turn, 1.4 s after the card
    turned up (its turns at full speed): in the middle of that seat's thinking about its
    discard, when that seat thinks at a person's pace (0.9 s to draw, 0.9 s to discard)."""

    def snap(self, view: SeatView, rng: Prng) -> Snap | None:
        return None if view.turn_seat == view.seat else NormalBot.snap(self, view, rng)


async def test_R6_a_card_snapped_while_a_bot_thinks_stays_up_a_whole_thinking_time_before_it_covers_it(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """Bot 1 has drawn and thinks (0.9 s) about its discard; 0.5 s into it, Ann snaps a
    card onto the pile. Bot 1's decision was taken on the card below: it thinks anew,
    and Ann's card stays up 0.9 s before Bot 1 discards onto it (or takes it), not the
    0.4 s its first thinking had left."""
    from tests.live_support import running, seat_live_lobby, until

    async with AsyncExitStack() as stack:
        lobby = await seat_live_lobby(tmp_path, 2, stack)
        bots = [SnapsLate(snap_delay=SnapDelay(median=1.4, spread=0.0, minimum=0.0)), TurnsOnly()]
        paces = [Pace(react=True), HUMAN_PACE]
        peers = [TablePeer(mesh, result, identity, log_path=tmp_path / f"seat{i + 1}.bandit-log", bot=bots[i],
                           seed=i, pace=paces[i])
                 for i, (mesh, result, identity) in enumerate(zip(lobby.meshes, lobby.results, lobby.ids))]
        ann, bot = peers
        seen: list[tuple[float, int, int | None, bool]] = []  # at Bot 1's seat: when, round, top, it holds a card
        covered: list[float] = []  # how long each card snapped while Bot 1 held a drawn card stood

        def changed() -> bool:
            view = bot.view()
            shown = (view.round, view.top, view.turn_seat == bot.me and view.hand is not None)
            if seen and seen[-1][1:] == shown:
                return False
            seen.append((trio.current_time(), *shown))
            if len(seen) >= 3:
                (_, r0, top0, held0), (snapped_at, r1, top1, held1), (at, r2, top2, _) = seen[-3:]
                if r0 == r1 == r2 and held0 and held1 and top0 != top1 and top2 != top1:
                    covered.append(at - snapped_at)  # (Ann's snap, then Bot 1's discard or take)
            return len(covered) >= 1  # (a game may hold only one such card)

        async def clock() -> None:
            while True:
                await trio.testing.wait_all_tasks_blocked()
                mock_clock.jump(0.05)

        with trio.fail_after(600):
            async with running(peers):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(clock)
                    await until(changed, bot)
                    await ann.leave()
                    nursery.cancel_scope.cancel()
    assert min(covered) >= HUMAN_PACE.think, (covered, seen)
