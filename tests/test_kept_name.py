"""A player's name is kept beside their identity: `join Friday` without --name seats them
under the name they gave last with that identity, not their login name; --name wins."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli.lobby_common import NAME_FILE, player_name, remember_name
from cli.main import build_parser

ROOT = Path(__file__).resolve().parent.parent


def name_at(*argv: str) -> str:
    """The name the command `argv` would sit down under."""
    return player_name(build_parser().parse_args(list(argv)))


def test_the_name_last_given_is_the_default_of_the_next_join_and_name_still_wins(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("USER", "dora")  # (the login name: the default before any --name)
    monkeypatch.setenv("LOGNAME", "dora")
    state = str(tmp_path)
    assert name_at("join", "Friday", "--state-dir", state) == "dora"
    done = subprocess.run([sys.executable, "-m", "cli", "join", "--headless", "--peer", "127.0.0.1:9", "--code", "-",
                           "--name", "Dee", "--state-dir", state], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.DEVNULL, timeout=60)
    assert done.returncode == 2, done.stderr  # (no table code came: it went no further)
    assert (tmp_path / NAME_FILE).read_text(encoding="utf-8") == "Dee\n"  # beside the identity
    assert (tmp_path / "identity.key").exists()
    assert name_at("join", "Friday", "--state-dir", state) == "Dee"
    assert name_at("play", "--state-dir", state) == name_at("host", "--state-dir", state) == "Dee"
    assert name_at("join", "Friday", "--name", "Eve", "--state-dir", state) == "Eve"
    assert name_at("join", "Friday", "--state-dir", str(tmp_path / "another")) == "dora"  # (another identity)


def test_a_bot_s_name_is_not_kept_and_a_kept_name_no_longer_allowed_is_not_used(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("USER", "dora")
    monkeypatch.setenv("LOGNAME", "dora")
    bot = build_parser().parse_args(["join", "--bot-name", "Ada (bot)", "--state-dir", str(tmp_path)])
    remember_name(bot)
    assert not (tmp_path / NAME_FILE).exists()
    (tmp_path / NAME_FILE).write_text("Ada (bot)\n", encoding="utf-8")
    assert name_at("join", "--state-dir", str(tmp_path)) == "dora"
