"""§11.3 from the player's side: a new `play`, `host` or `join` first offers the game this
seat stopped in, while the others still wait for it (the grace period)."""

from __future__ import annotations

import argparse
import io
import os
import re
import signal
import time
from pathlib import Path

import pytest

import trio

import cli.resume
from cli_support import stopped_journal as stopped
from cli.resume import find_journal, offer_resume, offer_resume_first, waiting_game
from cli.stopping import INTERRUPTED, leaving_on_stop, run_until_stopped
from p2p.journal import FORGET_AFTER, forget_stale_journals, unfinished_journals
from p2p.log import FairnessLog, Header
from p2p.table.machine import GRACE
from p2p.transport import LinkDown, LinkUp
from tests.ordersim import seeded_identity
from tests.pty_support import reap, read_until

HERE = ("127.0.0.1", 4000)
THERE = ("192.0.2.7", 4000)


def args(state_dir: Path | None = None) -> argparse.Namespace:
    return argparse.Namespace(state_dir=state_dir)


def test_s11_3_only_a_game_stopped_within_the_grace_period_waits(tmp_path: Path) -> None:
    assert waiting_game(tmp_path, local=False) is None  # (no games folder at all)
    stopped(tmp_path, 1, GRACE + 5, HERE)
    assert waiting_game(tmp_path, local=False) is None  # the others have given up on it
    recent = stopped(tmp_path, 2, 30, HERE, HERE)
    waiting = waiting_game(tmp_path, local=True)
    assert waiting is not None and waiting.journal == recent and 29 <= waiting.age <= 60
    assert re.fullmatch(r"your last game stopped (\d+) s ago and its bots wait for you 1 min (\d+) s more",
                        waiting.words(True)), waiting.words(True)  # (what is left of the 2 min, not all of it)
    stopped_for, left = (int(n) for n in re.findall(r"(\d+) s", waiting.words(True)))
    assert 120 <= stopped_for + 60 + left <= 121


def test_s11_3_a_game_whose_terminal_hung_up_is_offered_back_saying_so(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A seat whose terminal was closed went away meaning to come back (its journal says
    why): the next `join` says so as it offers the seat back."""
    from p2p.journal import Journal

    path = stopped(tmp_path, 1, 30, THERE)
    journal, _ = Journal.reopen(path)
    journal.away("their terminal was closed")
    journal.close(finished=False)
    at = time.time() - 30
    os.utime(path, (at, at))

    def yes(prompt: str) -> str:
        return "y"

    assert offer_resume(args(), tmp_path, "join", person=True, ask=yes) == "back"
    said = capsys.readouterr().out
    assert re.search(r"^Your last game stopped 3\d s ago when your terminal was closed and the other players wait "
                     r"for you 1 min [23]\d s more\.$", said, re.M), said


def test_s11_3_a_seat_stopped_after_its_log_was_closed_leaves_no_game_to_go_back_to(tmp_path: Path) -> None:
    """Found by the soak (`bench/soak.py --kind all --seed 640000`, live seed 640052): a
    seat killed at the game's end, after it closed its log but before it removed its
    journal, left a journal behind, so its next `play` offered a game that was over and
    `--resume` failed ("the log was closed"). A journal whose log was closed is that of
    a game that ended: it goes, as the end would have removed it."""
    ended = stopped(tmp_path, 1, 20, HERE, began=False)
    going_on = stopped(tmp_path, 2, 30, HERE, began=False)  # (their logs are written below)
    for game, closed in ((1, True), (2, False)):
        header = Header(bytes([game]) * 8, (bytes(64),) * 2, 0, "bandit-lan (test)")
        log = FairnessLog.create(tmp_path / f"{game}.bandit-log", header, seeded_identity(bytes(32)))
        if closed:
            log.close("the game ended")
    assert unfinished_journals(tmp_path) == [going_on] and not ended.exists()
    waiting = waiting_game(tmp_path, local=True)
    assert waiting is not None and waiting.journal == going_on


def test_s11_3_play_offers_no_game_its_bots_have_left(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The player's `play` was killed, then its terminal closed: its bots left the game
    (§9.8) and closed their logs. The next `play` does not promise that they wait (going
    back would only wait out the grace period): it says how the game ended and starts a
    new one, and `play --resume` says so too."""
    stopped(tmp_path, 3, 10, HERE, HERE)
    header = Header(bytes([3]) * 8, (bytes(64),) * 3, 1, "bandit-lan (test)")
    bot_log = FairnessLog.create(tmp_path / f"{(bytes([3]) * 6).hex()}-seat2.bandit-log", header, seeded_identity(bytes(32)))
    waiting = waiting_game(tmp_path, local=True)
    assert waiting is not None and waiting.over is None  # (its log is open: the bot waits)
    bot_log.close("Bo left the table (their terminal was closed)")
    waiting = waiting_game(tmp_path, local=True)
    assert waiting is not None and waiting.over == "Bo left the table (their terminal was closed)"

    def never(prompt: str) -> str:
        raise AssertionError(f"asked {prompt!r}")

    assert offer_resume(args(tmp_path), tmp_path, "play", person=True, local=True, ask=never) == "new"
    assert capsys.readouterr().out == ("Your last game ended while you were away (Bo left the table (their terminal "
                                       "was closed)); starting a new one.\n")
    from cli.main import main

    assert main(["play", "--resume", "--headless", "--state-dir", str(tmp_path)]) == 1
    assert capsys.readouterr().err == ("bandit-lan: cannot resume: that game ended for its bots while you were away "
                                       "(Bo left the table (their terminal was closed))\n")
    # `join` has no bots: a closed log beside its own is another player's (their log dir shared on one machine)
    assert main(["join", "--resume", "--headless", "--bind", "127.0.0.1", "--state-dir", str(tmp_path)]) == 1
    assert "ended for its bots" not in capsys.readouterr().err
    other = FairnessLog.create(tmp_path / f"{(bytes([4]) * 6).hex()}-seat2.bandit-log", header, seeded_identity(bytes(32)))
    stopped(tmp_path, 4, 5, HERE, HERE)
    other.close("you left the table")  # (the bot's own words, as its screen would say them: not said of it here)
    waiting = waiting_game(tmp_path, local=True)
    assert waiting is not None and waiting.over == "seat 2 left the table"


def test_s11_3_play_resume_tells_the_player_how_their_bots_ended_the_game_as_said_to_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Ann's `play` stopped longer than its grace period: her bots ended the game, their
    logs closed with "Ann was away …". `play --resume` quoted that to Ann, her own name
    and all; it says "you were away …"."""
    from cli.main import main
    from p2p.log import header_for
    from p2p.roster import Member, Roster

    stopped(tmp_path, 5, 10, HERE, HERE)
    names = ("Ann", "Bo (bot)", "Cy (bot)")
    ids = [seeded_identity(bytes([i]) * 32) for i in range(3)]
    members = tuple(Member(i, name, ident.certificate, bytes([i]) * 32) for i, (name, ident) in enumerate(zip(names, ids)))
    roster = Roster("A game on this machine", bytes(32), 3, members)
    bot_log = FairnessLog.create(tmp_path / f"{(bytes([5]) * 6).hex()}-seat2.bandit-log",
                                 header_for(roster.canonical(), (bytes(64),) * 3, 1), ids[1])
    bot_log.close("Ann was away for more than 120 s; round 2 is void")
    assert main(["play", "--resume", "--headless", "--state-dir", str(tmp_path)]) == 1
    assert capsys.readouterr().err == ("bandit-lan: cannot resume: that game ended for its bots while you were away "
                                       "(you were away for more than 120 s; round 2 is void)\n")


def test_s11_3_play_offers_only_a_game_of_this_machine_and_host_or_join_any(tmp_path: Path) -> None:
    stopped(tmp_path, 1, 50, HERE)
    lan = stopped(tmp_path, 2, 10, THERE, HERE)
    local = waiting_game(tmp_path, local=True)
    assert local is not None and local.journal != lan  # (`play --resume` listens on 127.0.0.1 only)
    anywhere = waiting_game(tmp_path, local=False)
    assert anywhere is not None and anywhere.journal == lan
    assert "the other players wait for you" in anywhere.words(False)


def test_s11_3_a_person_is_asked_and_the_answer_decides(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stopped(tmp_path, 1, 20, HERE)
    asked: list[str] = []

    def answers(*given: str):  # type: ignore[no-untyped-def]
        replies = iter(given)

        def ask(prompt: str) -> str:
            asked.append(prompt)
            reply = next(replies)
            if reply == "EOF":
                raise EOFError
            return reply
        return ask

    assert offer_resume(args(), tmp_path, "play", person=True, local=True, ask=answers("")) == "back"
    assert offer_resume(args(), tmp_path, "play", person=True, local=True, ask=answers("maybe", " N ")) == "leave"
    assert offer_resume(args(), tmp_path, "play", person=True, local=True, ask=answers("EOF")) is None
    assert asked == ["Go back to it? (n: leave it, then start a new one) [Y/n] "] * 4
    out = capsys.readouterr().out
    assert out.startswith("Your last game stopped ")
    assert out.endswith("No answer: no new game was started, and that game still waits for you "
                        "(`bandit-lan play --resume` goes back to it).\n")  # (Ctrl-D said nothing)


def test_s11_3_ctrl_c_at_the_question_says_that_nothing_was_done(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stopped(tmp_path, 1, 20, HERE)

    def interrupted(prompt: str) -> str:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        offer_resume(args(tmp_path), tmp_path, "join", person=True, ask=interrupted)
    assert capsys.readouterr().out.endswith(
        f"No answer: no new game was started, and that game still waits for you "
        f"(`bandit-lan join --resume --state-dir {tmp_path}` goes back to it).\n")


def test_s11_3_anyone_else_is_told_the_command_and_a_new_game_starts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def never(prompt: str) -> str:
        raise AssertionError("a seat without a person at the keyboard was asked")

    assert offer_resume(args(tmp_path), tmp_path, "join", person=False, ask=never) == "new"
    assert capsys.readouterr().err == ""  # nothing waits: nothing said
    stopped(tmp_path, 1, 20, THERE)
    assert offer_resume(args(tmp_path), tmp_path, "join", person=False, ask=never) == "new"
    err = capsys.readouterr().err
    assert err.startswith("bandit-lan: your last game stopped ") and "the other players wait for you 1 min 40 s more" in err
    assert f"`bandit-lan join --resume --state-dir {tmp_path}` goes back to it; starting a new game" in err


def test_s11_3_play_resume_passes_over_a_network_game_it_could_not_rejoin(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`play --resume` listens on 127.0.0.1, out of reach of other machines: it takes the
    newest game played on this machine, and a network game only gets the command that
    can resume it."""
    from cli.main import main

    stopped(tmp_path, 1, 20, THERE)
    assert find_journal(tmp_path, None) is not None and find_journal(tmp_path, None, local=True) is None
    assert main(["play", "--resume", "--headless", "--state-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "was played with other machines, which cannot reach 127.0.0.1: resume it with `bandit-lan join --resume`" in err
    here = stopped(tmp_path, 2, 60, HERE)
    assert find_journal(tmp_path, None, local=True) == here


def test_s11_3_the_command_told_can_be_pasted_as_it_is(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "my state"
    stopped(state, 1, 5, HERE)
    offer_resume(args(state), state, "play", person=False, local=True)
    assert f"`bandit-lan play --resume --state-dir '{state}'` goes back to it" in capsys.readouterr().err


def test_s11_3_ctrl_c_while_the_old_game_is_left_starts_no_new_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A player who declines the offer and then presses Ctrl-C while the old seat leaves
    wants to stop, not to play: the command ends there (130) and starts nothing."""
    stopped(tmp_path, 1, 20, HERE)
    monkeypatch.setattr("cli.host.is_person", lambda _args: True)
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n" * 2))  # (the answer, twice)
    reasons: list[str] = []

    def leave_old_seat(_args: argparse.Namespace, heard: list[signal.Signals] | None = None) -> int:
        async def seat() -> int:  # (as the seat taken back to leave: a signal finds it leaving)
            left = trio.Event()

            async def leave(reason: str, within: float) -> None:
                reasons.append(reason)
                left.set()

            with leaving_on_stop(leave), trio.fail_after(10):
                os.kill(os.getpid(), signal.SIGINT)
                await left.wait()
            return 0  # (its leave was delivered: the old game ended as it should)

        return run_until_stopped(seat, heard=heard)

    monkeypatch.setattr(cli.resume, "leave_waiting_game", leave_old_seat)
    command = argparse.Namespace(state_dir=tmp_path, json=False)
    assert offer_resume_first(command, "play", resume=lambda _a: 0) == INTERRUPTED
    assert reasons == ["the player chose to leave"]  # (Ctrl-C: the person at the terminal)
    assert capsys.readouterr().out.endswith("No new game was started.\n")

    def leave_quietly(_args: argparse.Namespace, heard: list[signal.Signals] | None = None) -> int:
        return 1  # (its game had ended meanwhile: nobody waits, so the new game starts)

    monkeypatch.setattr(cli.resume, "leave_waiting_game", leave_quietly)
    assert offer_resume_first(command, "play", resume=lambda _a: 0) is None


def test_s11_3_journals_of_seats_stopped_over_a_day_ago_are_forgotten(tmp_path: Path) -> None:
    """Their logs stay, but for one made and never written (a kill between making it and
    writing its header): it holds nothing, and no game begins with it any more."""
    old = stopped(tmp_path, 1, FORGET_AFTER + 60, HERE)
    kept = stopped(tmp_path, 2, GRACE * 5, HERE)  # (nobody waits, but a --grace may be long)
    unmade = stopped(tmp_path, 3, FORGET_AFTER + 90, HERE, began=False)
    (tmp_path / "3.bandit-log").touch()
    assert sorted(forget_stale_journals(tmp_path)) == sorted([old, unmade])
    assert not old.exists() and kept.exists() and find_journal(tmp_path, None) == kept
    assert (tmp_path / "1.bandit-log").exists() and not (tmp_path / "3.bandit-log").exists()
    assert forget_stale_journals(tmp_path / "none") == []  # (no games folder at all)


def test_s11_3_the_table_s_grace_reaches_the_offer(tmp_path: Path) -> None:
    """`play --grace S` (or `host --grace S`) is how long the table waits for a player
    away, a rule of the table (§6.8) every seat keeps alike. The journal keeps S, so the
    next `play` offers the game while the others wait and says how long (it said "up to
    2 min" and offered it for 120 s)."""
    from cli.resume import waiting_game
    from p2p.journal import Journal

    path = tmp_path / "games" / "g.journal"
    Journal.create(path, game=bytes(32), seat=0, seed=bytes(32), log=tmp_path / "g.log", port=4000,
                   addresses=[None, ("127.0.0.1", 4001)], roster=b"R", grace=600.0).close(finished=False)
    (tmp_path / "g.log").write_bytes(b"not empty")  # (its game had begun)
    long_ago = time.time() - 300  # (past the default 120 s, within the 600 s chosen)
    os.utime(path, (long_ago, long_ago))
    waiting = waiting_game(tmp_path, local=True)
    assert waiting is not None and waiting.words(True).endswith("its bots wait for you 5 min more")


def test_s11_3_a_game_that_stopped_as_its_seating_was_signed_is_offered_as_one_that_may_have_begun(
        tmp_path: Path) -> None:
    """The seat's process stopped as the roster was being signed (its journal, no log):
    the others may have begun the game without it, or their start failed. The offer says
    so, rather than that they wait."""
    stopped(tmp_path, 3, 10, HERE, began=False)
    waiting = waiting_game(tmp_path, local=True)
    assert waiting is not None and re.fullmatch(
        r"your last game stopped as it was about to begin, 1\d s ago: its bots may have begun it without you, and "
        r"then wait for you up to 2 min", waiting.words(True)), waiting.words(True)


def test_s10_3_a_play_game_taken_back_names_every_seat_s_log_to_check_together(tmp_path: Path) -> None:
    """After a game of `play` or `host --bots` is taken back, the report offers to audit
    the logs beside the player's together, as a fresh game does (it said only the
    player's; after `host` it never offered the bots' logs)."""
    from cli.resume import bot_logs
    from p2p.peer import GameSummary

    game = bytes([9]) * 32
    paths = [tmp_path / f"{game[:6].hex()}-seat{seat}.bandit-log" for seat in (1, 2, 3)]
    for path in paths:
        path.touch()
    summary = GameSummary(game, ("Ada (bot)", "you", "Bo (bot)"), 2, {}, [], paths[1], True, "the game ended")
    assert bot_logs(summary) == [paths[1], paths[0], paths[2]]  # (this seat's first)
    summary = GameSummary(game, ("Ada (bot)", "you", "Bo"), 2, {}, [], paths[1], True, "the game ended")
    assert bot_logs(summary) == [paths[1], paths[0]]  # (a host's table: a person's log is theirs, here or not)
    summary = GameSummary(game, ("Ann", "you", "Bo"), 2, {}, [], paths[1], True, "the game ended")
    assert bot_logs(summary) is None


def test_s10_3_a_host_game_taken_back_names_its_bots_logs_beside_a_log_at_a_path_of_its_own(tmp_path: Path) -> None:
    """`host --bots --log PATH`: the bots write their logs in PATH's folder, named by their
    seats, and the game's start names them so (`bot_logs_beside`); taken back, it named
    none, as the host's log was not named by its seat."""
    from cli.resume import bot_logs
    from p2p.peer import GameSummary

    game = bytes([9]) * 32
    own = tmp_path / "friday.bandit-log"
    summary = GameSummary(game, ("you", "Ada (bot)", "Bo"), 2, {}, [], own, True, "the game ended")
    assert bot_logs(summary) == [own, tmp_path / f"{game[:6].hex()}-seat2.bandit-log"]


@pytest.mark.parametrize("command", [["play", "--bots", "2", "--target", "50"], ["host", "--seats", "3", "--grace", "60"]])
def test_s11_3_going_back_from_a_new_game_s_command_is_no_typed_resume_of_its_options(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]) -> None:
    """A new game's options were typed for the new game: going back to the old one from
    its offer must not refuse them as a typed `--resume` would (it did: "y" ended with
    "--bots, --target are for a new table", exit 2, and the old game was never taken back)."""
    import cli.resume
    from cli.main import build_parser
    from cli.resume import offer_resume_first, refuse_new_table

    args = build_parser().parse_args([*command, "--state-dir", str(tmp_path)])
    assert refuse_new_table(argparse.Namespace(**{**vars(args), "resume": True})) == 2  # (as typed: refused)
    monkeypatch.setattr(cli.resume, "offer_resume", lambda *given, **named: "back")
    went: list[argparse.Namespace] = []

    def back(again: argparse.Namespace) -> int:
        went.append(again)
        return refuse_new_table(again) or 0

    assert offer_resume_first(args, command[0], resume=back) == 0
    assert went and went[0].resume


def test_s11_3_the_question_after_a_crash_reads_enter_on_a_terminal_the_crashed_client_left_raw() -> None:
    """A full-screen client that was killed leaves its terminal raw (no echo, Enter read as
    a carriage return). The same command run again there asks whether to go back to the
    game: Enter must answer it, and the keys typed must show, or the player looks stuck
    while the grace period runs out for the whole table; and it is asked on the terminal's
    own screen, not over the dead table."""
    import pty
    import subprocess
    import sys
    import tty

    master, slave = pty.openpty()
    tty.setraw(slave)
    root = Path(__file__).resolve().parent.parent
    child = subprocess.Popen(
        [sys.executable, "-c", "from cli.resume import ask_at_the_terminal as ask; print('got', repr(ask('Go back? ')))"],
        stdin=slave, stdout=slave, stderr=slave, cwd=root, env={**os.environ, "PYTHONPATH": str(root)},
    )
    os.close(slave)
    seen = bytearray()
    try:
        assert read_until(master, b"Go back? ", seen, time.monotonic() + 30), bytes(seen)
        assert seen.index(b"\x1b[?1049l") < seen.index(b"Go back? ")  # (off the dead table's screen first)
        os.write(master, b"y\r")
        assert read_until(master, b"got 'y'", seen, time.monotonic() + 30), bytes(seen)
        assert b"y\r\n" in seen  # (echoed as typed)
        assert child.wait(timeout=30) == 0
    finally:
        reap(child)
        os.close(master)


@pytest.mark.parametrize("client", ["killed", "stopped", "none", "killed-input-piped"])
def test_s11_3_the_question_after_a_kill_leaves_the_screen_a_killed_client_left_up(tmp_path: Path, client: str) -> None:
    """A shell with job control puts the line discipline back after a job killed by a
    signal, but not the screen: the killed client's mark (`full_screen_mark`) says its
    screen was left up on this terminal, and the question is asked off it. A client that
    is only stopped (Ctrl-Z: its screen put away), or none, leaves the screen alone. With
    the standard input a pipe (`join --code -`) the question is asked at /dev/tty, which
    names the same terminal (its mark was not found there)."""
    import pty
    import subprocess
    import sys

    master, slave = pty.openpty()  # (in line mode: as the shell left it)
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root), "TMPDIR": str(tmp_path), "XDG_RUNTIME_DIR": str(tmp_path / "run")}
    piped = client.endswith("-input-piped")
    client = client.removesuffix("-input-piped")
    mark = ("import sys, os, signal; from cli.ttymode import full_screen_mark as mark\n"
            "with mark(sys.stdout): print('UP', flush=True); os.kill(os.getpid(), signal.SIG{})")
    holder = None
    if client != "none":
        holder = subprocess.Popen([sys.executable, "-c", mark.format("KILL" if client == "killed" else "STOP")],
                                  stdin=slave, stdout=slave, stderr=slave, cwd=root, env=env)
        seen = bytearray()
        assert read_until(master, b"UP", seen, time.monotonic() + 30), bytes(seen)
        if client == "killed":
            holder.wait(timeout=30)
    terminal = os.ttyname(slave)

    def own_terminal() -> None:  # (a session of its own, the pty its controlling terminal: /dev/tty is it)
        os.setsid()
        os.close(os.open(terminal, os.O_RDWR))

    child = subprocess.Popen(
        [sys.executable, "-c", "from cli.resume import ask_at_the_terminal as ask; print('got', repr(ask('Go back? ')))"],
        stdin=subprocess.PIPE if piped else slave, stdout=slave, stderr=slave, cwd=root, env=env,
        preexec_fn=own_terminal if piped else None,
    )
    seen = bytearray()
    try:
        assert read_until(master, b"Go back? ", seen, time.monotonic() + 30), bytes(seen)
        assert (b"\x1b[?1049l" in seen) == (client == "killed"), bytes(seen)
        assert (b"\x1b[?7h" in seen) == (client == "killed"), bytes(seen)  # (long lines wrap again)
        os.write(master, b"y\n")
        assert read_until(master, b"got 'y'", seen, time.monotonic() + 30), bytes(seen)
        assert child.wait(timeout=30) == 0
    finally:
        reap(child, holder)
        os.close(slave)
        os.close(master)


def test_s11_3_a_person_is_told_of_the_waiting_game_once_the_terminal_is_ready_to_ask(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The line before the question ("Your last game stopped …") was said on the killed
    client's screen, then lost with it as the question put the terminal's own back."""
    stopped(tmp_path, 1, 20, HERE)
    monkeypatch.setattr(cli.resume, "ready_the_terminal", lambda: print("READY"))
    assert offer_resume(args(), tmp_path, "play", person=True, local=True, ask=lambda prompt: "") == "back"
    assert capsys.readouterr().out.startswith("READY\nYour last game stopped ")


def test_s11_3_a_screen_mark_is_never_written_through_another_s_folder_or_link(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The marks' folder in the shared temporary folder is used only if this user made
    it and no one else may write there, and a mark is never written through a link:
    another user could otherwise have a player's file overwritten by starting a client."""
    import pty
    import tempfile

    from cli import ttymode

    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    master, slave = pty.openpty()
    try:
        with os.fdopen(os.dup(slave), "w") as out:
            folder = tmp_path / f"bandit-lan-{os.getuid()}-screens"
            folder.mkdir(mode=0o777)
            folder.chmod(0o777)  # (open to everyone: not this user's own)
            assert ttymode._mark_path(out) is None
            folder.chmod(0o700)
            path = ttymode._mark_path(out)
            assert path is not None and path.parent == folder
            victim = tmp_path / "notes.txt"
            victim.write_text("mine")
            path.symlink_to(victim)  # (a link left where the mark goes)
            with ttymode.full_screen_mark(out):
                pass
            assert victim.read_text() == "mine"
    finally:
        os.close(slave)
        os.close(master)


def _left_game(state: Path, delivered: bool) -> tuple[Path, object]:
    """A log of Ann's (seat 0) in `state`'s log folder, closed as her terminal was closed:
    her `leave` came back delivered, or (not `delivered`) she went before it did (§9.8)."""
    from p2p.log import header_for
    from p2p.roster import Member, Roster
    from p2p.session import left_the_table
    from p2p.signing import signed_message
    from cli.stopping import TERMINAL_CLOSED

    identities = [seeded_identity(bytes([i]) * 32) for i in range(2)]
    roster = Roster("Friday", bytes(32), 2, tuple(Member(i, name, ident.certificate, bytes([i]) * 32)
                                                  for i, (name, ident) in enumerate(zip(("Ann", "Bo"), identities))))
    path = state / "logs" / "0a0b0c-seat1.bandit-log"
    path.parent.mkdir(parents=True)
    log = FairnessLog.create(path, header_for(roster.canonical(), (bytes(64),) * 2, 0), identities[0])
    if delivered:
        log.append(signed_message(identities[0], {"type": "leave", "v": 1, "from": identities[0].peer_id,
                                                  "reason": TERMINAL_CLOSED}))
    log.close(left_the_table("Ann"), left=None if delivered else TERMINAL_CLOSED)
    return path, identities[0]


@pytest.mark.parametrize("delivered", [True, False])
def test_s11_3_resume_after_your_own_leave_says_which_game_you_left_and_why(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], delivered: bool) -> None:
    """A player whose terminal window closed mid-game at `play` left the table (its bots
    end with it: nothing would wait for the seat); `join --resume`
    then said only "no unfinished game to resume". It says which table's game they
    left, when and why, and that the others' game ended then."""
    log, identity = _left_game(tmp_path, delivered)
    resume_args = argparse.Namespace(state_dir=tmp_path, log=None, log_dir=None, bind="0.0.0.0")
    assert trio.run(cli.resume.resume_seat, resume_args, identity) == 1
    said = " ".join(capsys.readouterr().err.split())
    assert re.search(r"no unfinished game to resume in \S+: you left your last game, at table 'Friday', at "
                     r"\d{4}-\d\d-\d\d \d\d:\d\d \(\d+ s ago\), because your terminal was closed; the game ended "
                     r"for the others then too, so there is no game to go back to \(its log: \S+\)", said), said
    assert str(log) in said
    other = seeded_identity(bytes([9]) * 32)  # (a seat that never sat at that table: nothing of it is said)
    assert trio.run(cli.resume.resume_seat, resume_args, other) == 1
    assert "(a game that ended needs no resuming)" in capsys.readouterr().err


@pytest.mark.parametrize("unanswered", [None, "Bo"], ids=["nobody-reached", "some-reached"])
def test_s9_6_resume_after_a_stop_past_the_grace_period_says_which_game_ended_and_why(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], unanswered: str | None) -> None:
    """A player whose program was stopped (Ctrl-Z) longer than the grace period, back
    too late, left; `join --resume` then said only "a game that ended needs no
    resuming". It names the table, when, and why: the stop, and who ended the game
    (`unanswered`: the seats it could not reach again, where it reached some; else every
    other seat), as its log's end does (it said "the others", naming nobody)."""
    from p2p.session import unanswered_after_stop

    how = "was stopped for 31 s, longer than the table's grace period (10 s)"
    assert _resume_after_a_stop_past_grace(tmp_path, unanswered_after_stop("Ann", how, unanswered),
                                           f"their program {how}") == 1
    said = " ".join(capsys.readouterr().err.split())
    who = ("no other seat answered after it, so Bo and Cy ended the game" if unanswered is None
           else "Bo did not answer after it, so Bo likely ended the game")
    assert re.search(r"no unfinished game to resume in \S+: your last game, at table 'Friday', ended at "
                     r"\d{4}-\d\d-\d\d \d\d:\d\d \(\d+ s ago\): your program was stopped for 31 s, longer than "
                     rf"the table's grace period \(10 s\), and {who}, naming you away; there is "
                     r"no game to go back to \(its log: \S+\)", said), said


def test_s9_6_resume_after_a_stop_past_the_grace_period_with_a_cut_link_says_who_ended_the_game_and_why(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Back from a stop past the grace period, every other seat answered, but one reported
    that it could not reach another: the seat left. `join --resume` then fell back to "a
    game that ended needs no resuming"; it names the table, the stop and the lost link
    the others ended the game for, as the log's end does."""
    from p2p.session import cut_after_stop

    how = "was stopped for 31 s, longer than the table's grace period (10 s)"
    assert _resume_after_a_stop_past_grace(
        tmp_path, cut_after_stop("Ann", how, "Bo could not reach Cy within the grace period"), f"their program {how}") == 1
    said = " ".join(capsys.readouterr().err.split())
    assert re.search(r"no unfinished game to resume in \S+: your last game, at table 'Friday', ended at "
                     r"\d{4}-\d\d-\d\d \d\d:\d\d \(\d+ s ago\): your program was stopped for 31 s, longer than "
                     r"the table's grace period \(10 s\); every other seat answered after it, but Bo could not reach "
                     r"Cy within the grace period, so you left the table and the others ended the game for that lost "
                     r"link; there is no game to go back to \(its log: \S+\)", said), said


def test_s9_6_resume_after_a_stop_past_the_grace_period_says_you_where_the_cut_link_was_to_you(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The lost link the others ended the game for was Bo's to Ann: the log says "Bo could
    not reach Ann", and `join --resume` quoted that to Ann; it says "Bo could not reach you"."""
    from p2p.session import cut_after_stop

    how = "was stopped for 31 s, longer than the table's grace period (10 s)"
    assert _resume_after_a_stop_past_grace(
        tmp_path, cut_after_stop("Ann", how, "Bo could not reach Ann and Cy within the grace period"),
        f"their program {how}") == 1
    said = " ".join(capsys.readouterr().err.split())
    assert ("every other seat answered after it, but Bo could not reach you and Cy within the grace period, so you "
            "left the table" in said), said


def test_s11_3_a_screen_mark_kept_stays_when_its_block_ends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A client whose screen closed in the background with its screen still up (SIGSTOP,
    SIGCONT, SIGTERM) keeps its mark, so that the next question puts the terminal's own
    screen back; a screen put away removes it."""
    import pty
    import tempfile

    from cli import ttymode

    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    master, slave = pty.openpty()
    try:
        with os.fdopen(os.dup(slave), "w") as out:
            with ttymode.full_screen_mark(out):
                path = ttymode._mark_path(out)
                assert path is not None and path.exists()
            assert not path.exists()
            with ttymode.full_screen_mark(out) as mark:
                mark.keep()
            assert ttymode._read_mark(path) == str(os.getpid())
    finally:
        os.close(slave)
        os.close(master)


def _resume_after_a_stop_past_grace(tmp_path: Path, end: str, left: str) -> int:
    """`join --resume`'s status for Ann (seat 1 of Ann, Bo and Cy at 'Friday'), whose log
    ends with `end` and her leave `left`."""
    from p2p.log import header_for
    from p2p.roster import Member, Roster

    names = ("Ann", "Bo", "Cy")
    identities = [seeded_identity(bytes([i]) * 32) for i in range(len(names))]
    roster = Roster("Friday", bytes(32), len(names), tuple(Member(i, name, ident.certificate, bytes([i]) * 32)
                                                           for i, (name, ident) in enumerate(zip(names, identities))))
    path = tmp_path / "logs" / "0a0b0c-seat1.bandit-log"
    path.parent.mkdir(parents=True)
    log = FairnessLog.create(path, header_for(roster.canonical(), (bytes(64),) * len(names), 0), identities[0])
    log.close(end, left=left)
    resume_args = argparse.Namespace(state_dir=tmp_path, log=None, log_dir=None, bind="0.0.0.0")
    return trio.run(cli.resume.resume_seat, resume_args, identities[0])


@pytest.mark.parametrize("option", ["quiet", "json"])
def test_s11_3_a_quiet_or_json_resume_s_warnings_reach_standard_error_and_leave_standard_output_alone(
        capsys: pytest.CaptureFixture[str], option: str) -> None:
    """`--resume --quiet` or `--json` said nothing of what it found wrong (the game stopped
    longer ago than the table waits, its old port taken): each warning goes to standard
    error, one line, standard output keeps the result alone; what is no warning stays
    unsaid, as ever; without either option both are said on standard output."""
    warning = "It stopped 2 min ago, and the table waits for a player away only 1 min: Trying anyway."
    for quiet in (True, False):
        args = argparse.Namespace(quiet=quiet and option == "quiet", json=quiet and option == "json")
        tell = cli.resume.resume_teller(args, False, [], [])
        tell("Resuming game 0a0b0c as Ann (seat 1) from here ...")
        tell(warning, warning=True)
        out, err = capsys.readouterr()
        if quiet:
            assert (out, err) == ("", warning + "\n")
        else:
            assert out.endswith(f"...\n{warning}\n") and err == "", (out, err)
    told: list[str] = []
    warned: list[str] = []
    cli.resume.resume_teller(argparse.Namespace(quiet=False, json=True), True, told, warned)(warning, warning=True)
    assert told == warned == [warning] and capsys.readouterr() == ("", "")  # (a person's screen shows it)


def test_s11_3_a_join_that_finds_no_table_names_the_game_stopped_past_its_grace_period(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A seat stopped longer ago than its table waits for it is offered no more, and the
    same `join --peer` finds nothing at the host's address (the game is over there, the
    host gone): it says that `join --resume` tells what became of that game. Nothing is
    said of a game still waiting (it was offered first), nor where no game stopped."""
    import socket

    from cli.main import main

    with socket.socket() as unused:  # (a port nothing listens at)
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    join = ["join", "--peer", f"127.0.0.1:{port}", "--bind", "127.0.0.1", "--headless", "--state-dir", str(tmp_path)]
    assert main(join) == 1
    assert "--resume" not in capsys.readouterr().err
    stopped(tmp_path, 1, GRACE + 60, THERE)
    assert main(join) == 1
    err = capsys.readouterr().err
    assert f"nothing answers at 127.0.0.1:{port}" in err, err
    assert re.search(rf"\(Your last game stopped 3 min(?: \d+ s)? ago, longer than its table waits for a player away "
                     rf"\(2 min\): `bandit-lan join --resume --state-dir {tmp_path}` tells what became of it\.\)", err), err


class LinkEvents:
    """A mesh as `p2p.lobby_runner.members_linked` sees it: its members, those linked, and
    the link events it hands up, one by one (a link up is linked from then on), then
    nothing more."""

    def __init__(self, members: set[bytes], events: list[object]) -> None:
        self.members, self.events, self.up = frozenset(members), list(events), set()
        self.told: list[object] = []

    def peers(self) -> frozenset[bytes]:
        return self.members

    def linked(self) -> frozenset[bytes]:
        return frozenset(self.up)

    async def receive(self) -> object:
        if not self.events:
            await trio.sleep_forever()
        event = self.events.pop(0)
        self.told.append(event)
        if isinstance(event, LinkUp):
            self.up.add(event.peer)
        return event


async def test_s11_3_a_seat_leaving_its_unbegun_game_waits_for_a_link_still_coming_up_not_for_one_that_cannot(
        autojump_clock: trio.testing.MockClock) -> None:
    """Taken back only to leave (`join`'s player started a new game): it tells every member
    once their links are up. One of two connections crossing may fail while the other is
    still being set up (§4.7): waited on, not taken for the member's absence (that let the
    leave go out before the link came up, and the host waited out its grace period for a
    player who had left: seen once in a full run). A member that said goodbye, or refused
    this seat, is not waited for; one never heard from is waited for `within` seconds."""
    from p2p.errors import ProtocolError
    from p2p.lobby_runner import members_linked

    host, bob = b"h" * 32, b"b" * 32
    crossing = LinkEvents({host, bob}, [LinkUp(bob), LinkDown(host, "link setup failed: connection reset"), LinkUp(host)])
    await members_linked(crossing, crossing.peers(), 10.0)  # type: ignore[arg-type]
    assert crossing.told[-1] == LinkUp(host) and trio.current_time() < 1.0
    gone = LinkEvents({host, bob}, [LinkDown(host, "said goodbye", clean=True),
                                    LinkDown(bob, "refused", ProtocolError("§4.6", "not at this table"))])
    await members_linked(gone, gone.peers(), 10.0)  # type: ignore[arg-type]
    assert len(gone.told) == 2 and trio.current_time() < 1.0
    silent = LinkEvents({host}, [LinkDown(host, "could not connect: connection refused")])
    started = trio.current_time()
    await members_linked(silent, silent.peers(), 10.0)  # type: ignore[arg-type]
    assert trio.current_time() - started == pytest.approx(10.0)
