"""`bandit-lan play --headless`: you (a bot here) plus bot peers, each its own process
with its own keys, TLS links and fairness log, over 127.0.0.1."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import pytest

from cli_support import PROGRAM, stopped_journal
from p2p.audit import audit
from p2p.journal import FORGET_AFTER
from p2p.log import read_log

ROOT = Path(__file__).resolve().parent.parent




def run_cli(*args: str, timeout: float = 120, **environ: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), **environ}
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


@contextmanager
def running_cli(*args: str, watch: str, limit: float = 60) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """Start the command with its `watch` stream ("stdout" or "stderr") piped; yields the
    process and that stream. The process is killed after `limit` s in all (a hang fails
    the test) and stopped (SIGTERM, which makes a seat leave) when the block ends."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    pipes = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, watch: subprocess.PIPE}
    process = subprocess.Popen([sys.executable, "-m", "cli", *args], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                               text=True, **pipes)
    watchdog = threading.Timer(limit, process.kill)
    watchdog.start()
    try:
        yield process, getattr(process, watch)
    finally:
        watchdog.cancel()
        process.terminate()
        process.wait(timeout=30)


def line_with(stream: IO[str], words: str) -> str:
    """The first line of `stream` that holds `words` ("" if the stream ended first)."""
    return next((line for line in stream if words in line), "")


def test_play_headless_four_processes_logs_agree_and_audit_clean(tmp_path: Path) -> None:
    day_old = stopped_journal(tmp_path / "state", 1, FORGET_AFTER + 60)  # a game nobody went back to
    recent = stopped_journal(tmp_path / "state", 2, 600)  # (past the grace period: not offered, kept)
    done = run_cli("play", "--headless", "--bots", "3", "--target", "30", "--seed", "5", "--json",
                   "--state-dir", str(tmp_path / "state"), "--log-dir", str(tmp_path / "logs"), "--name", "Zoe")
    assert done.returncode == 0, done.stderr
    assert not day_old.exists() and recent.exists()  # (§11.3: its seat's seed is gone with it)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(result) >= {"game_id", "rounds", "totals", "winners", "logs"}
    assert set(result["totals"]) == {"Zoe", "Ada (bot)", "Bo (bot)", "Cy (bot)"} and result["winners"]
    assert max(result["totals"].values()) >= 30
    logs = [Path(p) for p in result["logs"]]
    assert len(logs) == 4 and all(p.parent == tmp_path / "logs" for p in logs)
    assert [p.name.split("-", 1)[1] for p in logs] == [f"seat{n}.bandit-log" for n in (1, 2, 3, 4)]  # (seat order)
    sequences = {tuple(read_log(p).messages) for p in logs}
    assert len(sequences) == 1  # every peer logged the same messages in the same order
    for path in logs:
        verdict = audit(path)
        assert verdict.ok and verdict.finished, verdict.first_failure
        assert verdict.totals == result["totals"] and verdict.game_id.hex() == result["game_id"]
    shown = run_cli("audit", str(logs[2]))
    assert shown.returncode == 0 and "Verdict: FAIR" in shown.stdout and "snapped" in shown.stdout
    # §10.3: all four together, as an auditor who collected every player's log checks them
    together = run_cli("audit", "--brief", *map(str, logs))
    assert together.returncode == 0, together.stdout
    assert "All 4 logs tell the same game" in together.stdout and "Verdict: FAIR" in together.stdout
    compared = json.loads(run_cli("audit", "--json", *map(str, logs)).stdout.strip().splitlines()[-1])
    assert compared["ok"] and compared["agree"] and compared["parting"] is None
    assert {entry["peer"] for entry in compared["logs"]} == {"Zoe", "Ada (bot)", "Bo (bot)", "Cy (bot)"}
    assert all(entry["ok"] and entry["records"] == compared["records"] for entry in compared["logs"])


@pytest.mark.parametrize(("command", "allowed"), [
    (("play", "--target", "0"), "argument --target: 0 is not a target (1-10,000 points)"),
    (("host", "--target", "0"), "argument --target: 0 is not a target (1-10,000 points)"),
    (("join", "--target", "0"), "argument --target: 0 is not a target (1-10,000 points)"),
    (("host", "--seats", "9"), "argument --seats: 9 is not a number of seats (2-6)"),
    (("play", "--seed", "abc"), "argument --seed: 'abc' is not a whole number"),
    (("host", "--seed", "abc"), "argument --seed: 'abc' is not a whole number"),
    (("join", "--seed", "abc"), "argument --seed: 'abc' is not a whole number"),
    (("play", "--bots", "9"), "argument --bots: 9 is not a number of bots (1-5)"),
    (("host", "--bots", "9"), "argument --bots: 9 is not a number of bots (0-5)"),
    (("play", "--grace", "-1"), "argument --grace: -1 is not a grace period (10-86,400 s)"),
    (("host", "--grace", "-1"), "argument --grace: -1 is not a grace period (10-86,400 s)"),
    (("join", "--grace", "-1"),
     "argument --grace: the grace period is a rule of the table, set by its host (host --grace S)"),
    (("tables", "--timeout", "-1"), "argument --timeout: -1 is not a number of seconds (0 or more)"),
    (("simulate", "--players", "9"), "argument --players: 9 is not a number of players (2-6)"),
    (("simulate", "--games", "0"), "argument --games: 0 is not a count (1 or more)"),
    (("audit",), "the following arguments are required: LOG"),
    *[((name, "--frobnicate", *given), f"unrecognized arguments: --frobnicate (`{PROGRAM} {name} --help` lists its "
                                       "options)")
      for name, given in [("play", ()), ("host", ()), ("join", ()), ("tables", ()), ("audit", ("a.bandit-log",)),
                          ("simulate", ())]],
])
def test_every_usage_error_of_every_command_reads_alike(tmp_path: Path, command: tuple[str, ...], allowed: str) -> None:
    """A wrong value or an unknown option, at any command: its usage line, then `bandit-lan
    COMMAND: error: …` saying what it allows (or where its options are listed), exit 2,
    before anything starts."""
    done = run_cli(*command, COLUMNS="500")  # (argparse's usage line wraps at the terminal's width)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and done.stdout == "", done
    assert lines[0].startswith(f"usage: bandit-lan {command[0]} "), done.stderr
    assert lines[-1] == f"bandit-lan {command[0]}: error: {allowed}", done.stderr


def test_play_rejects_bad_arguments_clearly(tmp_path: Path) -> None:
    """Every value out of range reads alike: play's usage, then the option and its range."""
    for args, words in [(("--bots", "0"), "argument --bots: 0 is not a number of bots (1-5)"),
                        (("--bots", "-1"), "argument --bots: -1 is not a number of bots (1-5)"),
                        (("--target", "0"), "--target")]:
        done = run_cli("play", "--headless", *args, "--state-dir", str(tmp_path))
        assert done.returncode == 2 and words in done.stderr and "bandit-lan play: error: " in done.stderr, done


@pytest.mark.parametrize(("command", "said"), [
    (("play", "--target", "-5"), "argument --target: -5 is not a target (1-10,000 points)"),
    (("host", "--turn-seconds", "0"), "argument --turn-seconds: 0 is not a turn time (5-3600 s)"),
    (("join", "--peer", "10.0.0.2:99999"), "argument --peer: 99999 is not a port (1-65535)"),
    (("join", "--peer", "10.0.0.2"), "argument --peer: expected HOST:PORT, got '10.0.0.2'"),
    (("play", "--frobnicate"), f"bandit-lan play: error: unrecognized arguments: --frobnicate (`{PROGRAM} play --help` "
                               "lists its options)"),  # (play's usage)
    *[((*command, "--name", name), f"argument --name: {name!r} cannot be a player's name: a name ending in \"(bot)\" "
       "is kept for the bots a host seats (play, host --bots), so pick another")
      for command, name in [(("join", "Bots"), "Bo (bot)"), (("play",), "Ada (bot)"), (("host",), "Hal (BOT)")]],
])
def test_a_value_out_of_range_is_refused_in_the_option_s_own_words_before_anything_starts(
        tmp_path: Path, command: tuple[str, ...], said: str) -> None:
    """Without a terminal too: nothing is said about a bot taking the seat first."""
    done = run_cli(*command, "--state-dir", str(tmp_path))
    assert done.returncode == 2 and done.stderr.strip().splitlines()[-1].endswith(said), done.stderr
    assert "no terminal" not in done.stderr and "Traceback" not in done.stderr


def test_s11_3_bandit_lan_resume_says_which_command_takes_a_seat_back() -> None:
    """`resume`, the word other programs use, is no command: refused as any unknown one
    (exit status 2), with the commands that do take a seat back (--resume)."""
    done = run_cli("resume")
    assert done.returncode == 2 and not done.stdout and "Traceback" not in done.stderr, done
    assert done.stderr.strip().splitlines()[-1] == (
        "bandit-lan: error: there is no `resume` command: to take your seat back in the game this program was "
        f"playing, run the command you started it with, adding --resume: `{PROGRAM} join --resume` "
        "(or `host --resume`, `play --resume`)")
    assert "invalid choice: 'resumes'" in run_cli("resumes").stderr  # (another word: argparse's own)


def test_host_bots_and_a_code_on_stdin_are_checked_before_the_lobby(tmp_path: Path) -> None:
    state = ("--state-dir", str(tmp_path))
    full = run_cli("host", "--headless", "--seats", "3", "--bots", "3", "--no-discovery", *state)
    assert full.returncode == 2 and ("bandit-lan host: error: argument --bots: 3 is not a number of bots for 3 seats "
                                     "(0-2: the seats but yours)") in full.stderr, full.stderr
    empty = run_cli("join", "--headless", "--peer", "127.0.0.1:9", "--code", "-", *state)  # (stdin: nothing)
    assert empty.returncode == 2 and "no table code on the standard input" in empty.stderr
    deck = tmp_path / "small.toml"
    deck.write_text("[[card]]\nvalue = 0\ncount = 20\n")  # deals to four players, not to six (R4)
    small = run_cli("host", "--headless", "--seats", "6", "--skills", str(deck), "--no-discovery", *state)
    assert small.returncode == 2 and ("these table rules cannot be played: R4: the deck has 20 cards; 6 players need "
                                      "at least 26") in small.stderr, small.stderr


def test_play_gives_up_at_once_on_a_bot_that_cannot_sit_down(tmp_path: Path) -> None:
    """`play` waits for every bot (nobody else will come): one whose process fails ends
    the table at once with the bot's own words (exit 1) instead of a wait forever. Here
    a file stands where Bo's state folder goes."""
    (tmp_path / "state" / "bots").mkdir(parents=True)
    (tmp_path / "state" / "bots" / "bot2").write_text("in the way")
    done = run_cli("play", "--headless", "--bots", "3", "--state-dir", str(tmp_path / "state"), timeout=60)
    assert done.returncode == 1, done.stderr
    assert ("bandit-lan: Bo (bot) could not sit down (exited with status 2: bandit-lan: cannot keep this player's "
            f"identity in {tmp_path / 'state' / 'bots' / 'bot2'}: it is a file, not a folder; choose another folder "
            "with --state-dir)") in done.stderr
    assert "Traceback" not in done.stderr


def test_a_host_is_told_at_once_that_a_bot_could_not_sit_down_and_its_seat_stays_free(tmp_path: Path) -> None:
    """`host --bots`: a bot that fails in the lobby is reported while the lobby runs (a
    person may still take its seat), not only after the game."""
    (tmp_path / "state" / "bots").mkdir(parents=True)
    (tmp_path / "state" / "bots" / "bot1").write_text("in the way")
    with running_cli("host", "--headless", "--seats", "3", "--bots", "2", "--bind", "127.0.0.1", "--no-discovery",
                     "--name", "Hal", "--state-dir", str(tmp_path / "state"), watch="stderr") as (host, stderr):
        line = line_with(stderr, "could not sit down")
        assert line.startswith("bandit-lan: Ada (bot) could not sit down (exited with status 2: "), line
        assert line.rstrip().endswith("; its seat is free for a player"), line
        assert host.poll() is None  # the table is still open for a player


def test_host_with_bots_plays_a_whole_game_and_reports_every_log(tmp_path: Path) -> None:
    """`host --bots N` seats N bot peers (processes of their own, as `play` does); with
    no seat left for anybody else the game starts at once. The table code reaches the
    bots on their standard input."""
    done = run_cli("host", "--headless", "--seats", "3", "--bots", "2", "--code", "owl", "--target", "5",
                   "--bind", "127.0.0.1", "--no-discovery", "--json", "--name", "Hal",
                   "--state-dir", str(tmp_path / "state"), "--log-dir", str(tmp_path / "logs"))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(result["totals"]) == {"Hal", "Ada (bot)", "Bo (bot)"} and result["winners"]
    assert len(result["logs"]) == 3
    together = json.loads(run_cli("audit", "--json", *result["logs"]).stdout.strip().splitlines()[-1])
    assert together["ok"] and together["agree"] and together["finished"]


def test_s10_1_a_log_that_could_not_be_kept_is_refused_before_anybody_is_seated(tmp_path: Path) -> None:
    """`play`, `host` and `join` check where their log goes before the lobby: a folder
    that cannot be made, or a --log file that exists (a log is never overwritten), is a
    clear error (exit 2) instead of a crash once the game has started. Nothing is left
    behind in a folder that is fine."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    kept = tmp_path / "old.bandit-log"
    kept.write_bytes(b"an earlier game")
    state = ("--state-dir", str(tmp_path / "state"))
    cases = [
        (("play", "--headless", "--log-dir", str(blocker / "logs")),
         f"cannot keep fairness logs in {blocker / 'logs'}: {blocker} is a file, not a folder; choose another folder "
         "with --log-dir"),
        (("host", "--headless", "--log", str(kept)), "is never overwritten"),
        (("join", "--headless", "--peer", "127.0.0.1:9", "--log-dir", str(blocker)),
         f"cannot keep fairness logs in {blocker}: it is a file, not a folder; choose another folder with --log-dir"),
    ]
    for args, words in cases:
        done = run_cli(*args, *state, timeout=30)
        assert done.returncode == 2 and words in done.stderr and "Traceback" not in done.stderr, (args, done.stderr)
    assert kept.read_bytes() == b"an earlier game"
    from cli.game import log_place_problem

    assert log_place_problem(None, None, tmp_path / "fresh") is None
    assert [p.name for p in (tmp_path / "fresh").iterdir()] == []  # the probe file is gone


def test_a_host_s_bots_dial_it_where_the_other_players_do(tmp_path: Path) -> None:
    """A bot's address in the roster is where its connection to the host came from, and
    players in lower seats (or resumed ones) dial it there (§6.5): so the bots dial the
    host's LAN address, which the kernel answers from that address, not 127.0.0.1."""
    import argparse

    from cli.host import _bot_table
    from p2p.identity import load_or_create_identity

    identity = load_or_create_identity(tmp_path / "id")
    args = argparse.Namespace(bind="0.0.0.0", state_dir=tmp_path, log=None, log_dir=None, seed=3, code="owl",
                              lobby_only=False, headless=False)
    table = _bot_table(args, "192.0.2.2", 4000, identity)
    assert (table.host, table.port, table.bind, table.code) == ("192.0.2.2", 4000, "0.0.0.0", "owl")
    assert _bot_table(args, "0.0.0.0", 4000, identity).host == "127.0.0.1"  # (no LAN address: this machine only)


def test_a_host_named_like_a_bot_still_gets_every_bot_it_asked_for() -> None:
    """`play` names its bots as `host --bots` does ("Bo (bot)": `play` said "Bo"); one
    named like the player, with or without "(bot)", gives way."""
    from cli.bots import bot_names

    assert bot_names(5, "Hal") == ["Ada (bot)", "Bo (bot)", "Cy (bot)", "Dee (bot)", "Eve (bot)"]
    assert bot_names(5, "ada (BOT)") == ["Bo (bot)", "Cy (bot)", "Dee (bot)", "Eve (bot)", "Fay (bot)"]
    assert bot_names(3, "bo") == ["Ada (bot)", "Cy (bot)", "Dee (bot)"]


def test_s11_3_a_player_whose_play_process_was_killed_resumes_with_play_resume(tmp_path: Path) -> None:
    """`play` is the README's first command, so "the same command with --resume" is
    `play --resume`: the killed player's bots wait for it (they are peers of their own),
    it rebuilds the game from its log and journal, plays it to the end and its log audits
    clean, as `join --resume` does for any seat."""
    state = ("--state-dir", str(tmp_path / "state"))
    with running_cli("play", "--headless", "--bots", "2", "--target", "10", "--name", "Zoe", *state,
                     watch="stdout") as (first, stdout):
        assert "Round 1:" in line_with(stdout, "Round 1:")  # dealt: the game is on
        first.kill()  # as a crash would: no leave, the log and journal as they were
    again = run_cli("play", "--resume", "--headless", "--json", *state, timeout=180)
    assert again.returncode == 0, again.stderr
    result = json.loads(again.stdout.strip().splitlines()[-1])
    assert result["finished"] and set(result["totals"]) == {"Zoe", "Ada (bot)", "Bo (bot)"}
    verdict = audit(Path(result["log"]))
    assert verdict.ok and verdict.finished and verdict.totals == result["totals"], verdict.first_failure


@pytest.mark.parametrize("args,words", [
    (("tables", "--timeout", "nan"), "argument --timeout: nan is not a number of seconds (0 or more)"),
    (("join", "Friday", "--timeout", "-1"), "argument --timeout: -1 is not a number of seconds"),
    (("tables", "--interface", "notanip"), "argument --interface: 'notanip' is not an IPv4 address"),
    (("host", "--headless", "--interface", "192.0.2.254"),
     "argument --interface: 192.0.2.254 is not an address of this machine (its IPv4 addresses: "),
    (("host", "--headless", "--port", "70000"), "argument --port: 70000 is not a port (0-65535"),
    (("join", "--peer", "127.0.0.1:9", "--port", "-1"), "argument --port: -1 is not a port"),
    (("play", "--headless", "--name", " \t "), "argument --name: ' \\t ' cannot be a player's name: it is blank"),
    (("host", "--headless", "--name", "a\x1bb"),
     "argument --name: 'a\\x1bb' cannot be a player's name: it holds an invisible or control character (U+001B)"),
    (("join", "--peer", "127.0.0.1:9", "--name", "\u0410nn"), "argument --name: '\u0410nn' cannot be a player's "
     "name: it mixes Latin and Cyrillic letters in one word (its \u0410 is Cyrillic capital letter a)"),
    (("host", "--headless", "--table", "Round\u200bTwo"),
     "--table: 'Round\\u200bTwo' cannot be a table's name: it holds an invisible or control character (U+200B)"),
    (("play", "--headless", "--grace", "nan"), "argument --grace: 'nan' is not a number of seconds"),
    (("host", "--headless", "--grace", "5"), "argument --grace: 5 is not a grace period (10-86,400 s)"),
    (("join", "--peer", "127.0.0.1:9", "--grace", "30"),
     "argument --grace: the grace period is a rule of the table, set by its host (host --grace S)"),
    (("play", "--headless", "--target", "\u0664\u0660"), "argument --target: '\u0664\u0660' is not a number of points"),
    (("host", "--headless", "--seats", "1_0"), "argument --seats: '1_0' is not a whole number"),
    (("join", "--peer", "127.0.0.1:\u0664\u0660\u0660\u0660"), "'\u0664\u0660\u0660\u0660' is not a port number"),
    (("play", "--headless", "--seed", "\uff17"), "argument --seed: '\uff17' is not a whole number"),
    (("play", "--resume", "--headless", "--target", "40", "--grace", "30"),
     "--resume takes a game back as its seating was signed (its rules, its seats): --target, --grace are for a new table"),
    (("host", "--resume", "--headless", "--bots", "1"), "--bots is for a new table"),
    (("play", "--resume", "--headless", "--bots", "3"), "--bots is for a new table"),  # (typed, if the default)
    (("join", "Porch", "--resume", "--headless", "--port", "5000"), "TABLE, --port are for a new table"),
])
def test_bad_values_are_refused_before_anything_starts_with_the_option_named(
        tmp_path: Path, args: tuple[str, ...], words: str) -> None:
    """A time that is not a finite number of seconds (`nan` waited forever), a port out of
    range (70000 became 4464), an interface that is no address, a name with control
    characters, digits of another script (Python's `int` reads them), a table's rules
    given to a game taken back (its rules are those it was signed with): each is refused
    with exit status 2, naming the option, and no traceback."""
    state = () if args[0] == "tables" else ("--state-dir", str(tmp_path))
    done = run_cli(*args, *state, timeout=30)
    assert done.returncode == 2 and words in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_skills_files_are_read_and_refused_alike_by_host_and_simulate(tmp_path: Path) -> None:
    """One argument type reads --skills for both commands: each refuses a file that is
    not UTF-8 text, or not a skills table, while reading its arguments (exit 2)."""
    latin1 = tmp_path / "latin1.toml"
    latin1.write_bytes(b'[[card]]\nname = "\xe9"\nvalue = 0\ncount = 40\n')
    fly = tmp_path / "fly.toml"
    fly.write_text('[[card]]\nvalue = 1\ncount = 40\npower = "fly"\n', encoding="utf-8")
    for command in (("simulate", "--games", "1"), ("host", "--headless", "--no-discovery", "--state-dir", str(tmp_path))):
        for deck, words in ((latin1, f"argument --skills: {latin1} is not UTF-8 text"),
                            (fly, "unknown power 'fly'")):
            done = run_cli(*command, "--skills", str(deck), timeout=30)
            assert done.returncode == 2 and words in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_s11_3_a_log_folder_whose_name_is_not_utf8_is_refused_before_the_lobby(tmp_path: Path) -> None:
    """The journal records where the log is, as text: a folder whose name is not UTF-8
    is refused up front (it was a traceback at the start, leaving an empty journal and
    unclosed logs behind)."""
    folder = os.fsdecode(bytes(tmp_path) + b"/logs-caf\xe9")
    done = run_cli("play", "--headless", "--bots", "1", "--state-dir", str(tmp_path / "state"), "--log-dir", folder,
                   timeout=30)
    assert done.returncode == 2 and "its name is not UTF-8 text; choose another place" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not list((tmp_path / "state").glob("games/*"))


def test_play_seats_a_player_whose_login_name_is_a_bot_s_in_another_case(tmp_path: Path) -> None:
    """Names compare as §6.4 says (case and width folded): a player logged in as "bo"
    plays as "bo" against Ada, Cy and Dee (bots): the bot named like the player gives way,
    instead of being refused its seat (or leaving two "Bo"s for a reader to tell apart)."""
    done = run_cli("play", "--headless", "--target", "10", "--state-dir", str(tmp_path), "--json",
                   LOGNAME="bo", USER="bo", LNAME="bo", USERNAME="bo")
    assert done.returncode == 0, done.stderr
    assert sorted(json.loads(done.stdout.splitlines()[-1])["totals"]) == ["Ada (bot)", "Cy (bot)", "Dee (bot)", "bo"]


def test_play_without_a_terminal_has_a_bot_play_the_seat(tmp_path: Path) -> None:
    """No keyboard to play with (input from /dev/null): the seat was taken and left at
    once ("You left the table before the first round ended", exit 0); a bot plays it, at
    a person's pace (only --headless plays at full speed), and says so. (`play` is a
    game against bots only; `host` and `join`, whose tables seat people, refuse.)"""
    _a_bot_plays_the_seat("play", "--bots", "1", "--state-dir", str(tmp_path))


def _a_bot_plays_the_seat(*command: str) -> None:
    """`bandit-lan COMMAND` run with no terminal says that a bot plays its seat, whose
    moves it prints ("You drew …"); stopped then (SIGTERM), the seat leaves (exit 0)."""
    from cli_support import bandit, finish, kill_all, read_until

    proc = bandit(*command)
    seen: list[str] = []
    try:
        read_until(proc, "no terminal to play on: a bot plays your seat at a person's pace "
                         r"\(--headless: as fast as it can\)$", seen)
        read_until(proc, r"^  You drew ", seen)  # (a move of this seat's: its bot plays it)
        proc.terminate()
        status, said = finish(proc, seen)
    finally:
        kill_all([proc])
    assert status == 0 and "You left the table" in said, said


@pytest.mark.parametrize("terminal", [True, False])
def test_a_terminal_that_cannot_draw_has_a_bot_play_the_seat_and_says_why(
        terminal: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`TERM=dumb` (an editor's shell buffer) got the full screen, drawn as codes; now a
    bot plays the seat, as without a terminal, and the player reads why and what to do.
    With no terminal at all (output to a file, CI, an editor's compile buffer), that is
    why, whatever TERM says."""
    import argparse

    from cli import lobby_common
    from cli.game import bot_without_a_terminal

    monkeypatch.setenv("TERM", "dumb")
    monkeypatch.setattr(lobby_common, "terminal_at_hand", lambda: terminal)
    args = argparse.Namespace(headless=False, bot=False, lobby_only=False)
    bot_without_a_terminal(args)
    assert args.headless
    err = capsys.readouterr().err
    assert ("this terminal (TERM=dumb) cannot draw the table: a bot plays your seat" in err) is terminal, err
    fallback = "no terminal to play on: a bot plays your seat at a person's pace (--headless: as fast as it can)\n"
    assert (fallback in err) is not terminal, err


@pytest.mark.parametrize(("said", "command"), [
    ("join", ("join", "--peer", "{where}", "--name", "Fay")),
    ("host", ("host", "--seats", "2", "--bots", "1", "--no-discovery", "--bind", "127.0.0.1")),
    ("join --resume", ("join", "--resume")),
])
def test_host_and_join_without_a_terminal_refuse_before_contacting_anyone(
        tmp_path: Path, said: str, command: tuple[str, ...]) -> None:
    """No keyboard (input from /dev/null, output to a file): a bot took the seat unasked
    (`join Friday --name Fay </dev/null`), filled a table of people and started its game,
    and stopping it ended that game for all. Now `host` and `join` stop at once (exit 2),
    saying how to play (in a terminal) or to let a bot play (--bot, --headless); the
    table `join` names hears nothing, and `host` seats no bot."""
    import socket

    from cli.commands import shell_word

    if "--resume" in command:  # (a game to take back: else there is nothing to play, and it says so)
        stopped_journal(tmp_path, 7, 5, ("127.0.0.1", 4001))
        said = f"{said} --state-dir {shell_word(str(tmp_path))}"
    with socket.socket() as table:  # (what the join would dial)
        table.bind(("127.0.0.1", 0))
        table.listen()
        table.setblocking(False)
        where = f"127.0.0.1:{table.getsockname()[1]}"
        done = run_cli(*(word.format(where=where) for word in command), "--state-dir", str(tmp_path), timeout=30)
        with pytest.raises(BlockingIOError):
            table.accept()  # nobody dialled
    words = f"bandit-lan: no terminal to play on: run `{PROGRAM} {said}` in a terminal "
    assert done.returncode == 2 and done.stderr.startswith(words), done.stderr
    assert ("to play your seat yourself, or add --bot to let a bot play it at a person's pace (--headless: as fast as "
            "it can). Nobody was contacted.") in done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    assert not (tmp_path / "bots").exists() and not (tmp_path / "logs").exists()  # (no bot seated, no log begun)


@pytest.mark.parametrize("command", ["join", "host"])
def test_s11_3_resume_without_a_terminal_and_without_a_game_says_there_is_none(tmp_path: Path, command: str) -> None:
    """`join --resume </dev/null` with no unfinished game: that there is none (exit 1),
    not to go to a terminal, where it would only be told so."""
    done = run_cli(command, "--resume", "--state-dir", str(tmp_path), timeout=30)
    assert done.returncode == 1 and "no unfinished game to resume" in done.stderr, done.stderr
    assert "terminal" not in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_a_host_not_advertised_tells_others_to_join_by_address_only(tmp_path: Path) -> None:
    """With --no-discovery nobody can find the table by name: the hint says only the
    --peer line (joining by name failed with "no table named …")."""
    for discovery, by_name in (("--no-discovery", False), ("--interface", True)):
        extra = ("--interface", "127.0.0.1") if discovery == "--interface" else (discovery,)
        with running_cli("host", "--headless", "--table", "Friday night", "--bind", "127.0.0.1",
                         "--state-dir", str(tmp_path), *extra, watch="stdout") as (_, stdout):
            hint = line_with(stdout, "Others join with:")
        assert f"{PROGRAM} join --peer 127.0.0.1:" in hint, hint  # (started as `python -m cli`: said so)
        assert (f"{PROGRAM} join 'Friday night'   or" in hint) is by_name, hint


def test_s6_3_a_host_with_a_table_code_says_its_players_are_asked_for_it(tmp_path: Path) -> None:
    """A table with a code: the join hint says each joiner is asked for it (the command
    alone does not carry it); a table without one says nothing of a code."""
    for code in (("--code", "sesame"), ()):
        with running_cli("host", "--headless", "--bind", "127.0.0.1", "--no-discovery", *code,
                         "--state-dir", str(tmp_path), watch="stdout") as (_, stdout):
            hint = line_with(stdout, "Others join with:")
        assert hint.rstrip().endswith("(each is asked for the table code)") is bool(code), hint


def test_join_target_leaves_a_table_of_another_target_before_the_seating_is_signed(tmp_path: Path) -> None:
    """Headless `join --target 50` at a table to 100: it leaves as soon as the rules come
    with its first roster, before anything is signed, so the host's lobby goes on (it
    left after the start, ending the host's game before it began). It waits for the
    host's link to say goodbye over it: the host says it left (its dial of the guest
    used to fail, and the host said it lost the connection)."""
    with running_cli("host", "--headless", "--seats", "2", "--no-discovery", "--bind", "127.0.0.1",
                     "--state-dir", str(tmp_path / "host"), watch="stdout") as (host, stdout):
        where = re.search(r"on (127\.0\.0\.1:\d+)", line_with(stdout, "Hosting")).group(1)  # type: ignore[union-attr]
        done = run_cli("join", "--headless", "--peer", where, "--target", "50", "--name", "Ana",
                       "--state-dir", str(tmp_path / "guest"), timeout=60)
        assert done.returncode == 1, done.stderr
        assert "this table plays to 100, not 50; leaving before the seating is signed" in done.stderr
        assert "game id" not in done.stdout and host.poll() is None
        assert line_with(stdout, "Ana l").strip() == "Ana left the table."


def test_11_3_a_journal_whose_seating_does_not_read_is_refused_plainly(tmp_path: Path) -> None:
    """A seat that stopped as the seating was signed is taken back from its journal's R
    alone (§11.3): an R that does not read (the file changed since) is said so, with no
    traceback, and the journal stays for whoever looks into it."""
    journal = stopped_journal(tmp_path / "state", 7, 5, ("127.0.0.1", 4001), began=False)  # (its R: b"R")
    done = run_cli("join", "--resume", "--headless", "--bind", "127.0.0.1", "--state-dir", str(tmp_path / "state"))
    assert done.returncode == 1 and "cannot resume: the seating this seat signed does not read (" in done.stderr, done
    assert "Traceback" not in done.stderr and journal.exists()


@pytest.mark.parametrize("command", [("host", "--no-discovery"), ("join", "--peer", "127.0.0.1:9")])
def test_a_port_taken_or_an_address_not_ours_is_named_with_what_to_choose(tmp_path: Path,
                                                                         command: tuple[str, ...]) -> None:
    """`--port` another program listens on, `--bind` an address of no interface here: the
    address, the port and the option to change, not the system's bare words."""
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = run_cli(*command, "--headless", "--port", str(port), "--state-dir", str(tmp_path))
    assert busy.returncode == 1 and busy.stderr.strip().splitlines()[-1] == (
        f"bandit-lan: another program uses port {port} (at 0.0.0.0): choose another --port, or leave --port out "
        "to let the system choose"), busy.stderr
    elsewhere = run_cli(*command, "--headless", "--bind", "198.51.100.77", "--state-dir", str(tmp_path))
    last = elsewhere.stderr.strip().splitlines()[-1]
    assert elsewhere.returncode == 1 and last.startswith(
        "bandit-lan: 198.51.100.77 is not an address of this machine: choose one of its own with --bind (") and last.endswith(
        "), or leave --bind out to listen on all of them"), elsewhere.stderr


@pytest.mark.parametrize("command", [("play",), ("host", "--no-discovery"), ("join", "--peer", "127.0.0.1:9")])
def test_s10_1_a_state_or_log_folder_that_cannot_be_kept_reads_alike_and_is_a_usage_error(
        tmp_path: Path, command: tuple[str, ...]) -> None:
    """`--state-dir` and `--log-dir` are checked by one checker: the same words, the
    option that chooses another, exit status 2, a file anywhere on the way named."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    for option, keeps in (("--state-dir", "this player's identity"), ("--log-dir", "fairness logs")):
        for folder, why in ((blocker, "it is a file, not a folder"), (blocker / "sub", f"{blocker} is a file, not a folder")):
            state = () if option == "--state-dir" else ("--state-dir", str(tmp_path / "state"))
            done = run_cli(*command, "--headless", *state, option, str(folder), timeout=30)
            assert done.returncode == 2 and done.stderr.strip().splitlines()[-1] == (
                f"bandit-lan: cannot keep {keeps} in {folder}: {why}; choose another folder with {option}"), done.stderr
