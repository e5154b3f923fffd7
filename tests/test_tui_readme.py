"""The README's key table is the client's keymap (the `?` screen shows the same list)."""

from __future__ import annotations

from pathlib import Path

from cli.tui.keymap import KEYMAP

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_lists_every_key_of_the_keymap() -> None:
    text = README.read_text(encoding="utf-8")
    table = text.split("| keys | action |", 1)[1].split("\n\n", 1)[0]
    rows = [line.strip("|").split("|") for line in table.strip().splitlines()[1:]]
    listed = [(keys.strip().strip("`"), what.strip()) for keys, what in rows]
    assert listed == [(k.keys, k.what) for k in KEYMAP]


def test_readme_shows_the_turn_screen_as_drawn() -> None:
    text = README.read_text(encoding="utf-8")
    block = text.split("## Playing in the terminal", 1)[1].split("```text\n", 1)[1].split("\n```", 1)[0]
    snapshot = (README.parent / "tests" / "snapshots" / "turn.txt").read_text(encoding="utf-8").rstrip("\n")
    assert block == snapshot
