"""What `play`, `host` and `join` print when a game ends, and their exit status."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from cli.game import report
from p2p.peer import GameSummary


def summary(*, finished: bool, why: str, left: bool = False) -> GameSummary:
    return GameSummary(bytes(32), ("Ana", "Bo"), 2, {"Ana": 12, "Bo": 40}, ["Ana"] if finished else [],
                       Path("seat0.bandit-log"), finished, why, left=left)


def test_a_finished_game_prints_the_standings_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert report(summary(finished=True, why="the game ended"), argparse.Namespace(json=False)) == 0
    out = capsys.readouterr().out
    assert "Game over after 2 rounds" in out and "Ana" in out and "winner" in out


def test_leaving_the_table_on_purpose_is_not_a_failure(capsys: pytest.CaptureFixture[str]) -> None:
    assert report(summary(finished=False, why="you left the table", left=True), argparse.Namespace(json=False)) == 0
    printed = capsys.readouterr()
    assert "You left the table after 2 rounds." in printed.out and printed.err == ""


def test_a_game_that_stopped_says_why_and_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    stopped = summary(finished=False, why="Bo is gone (no word for 30 s)")
    assert report(stopped, argparse.Namespace(json=False)) == 1
    assert "the game stopped: Bo is gone" in capsys.readouterr().err


def test_the_json_line_says_whether_this_seat_left(capsys: pytest.CaptureFixture[str]) -> None:
    assert report(summary(finished=False, why="you left the table", left=True), argparse.Namespace(json=True)) == 0
    line = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert line["left"] is True and line["finished"] is False and line["totals"] == {"Ana": 12, "Bo": 40}
