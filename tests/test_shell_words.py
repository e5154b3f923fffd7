"""Command lines the program shows people (the host's join hint, the audit command, the
way back to a game): quoted for people to read aloud and type, and still one word each
for the shell."""

from __future__ import annotations

import shlex
from contextlib import chdir
from pathlib import Path

import pytest

from cli.commands import as_typed, audit_command, shell_word, this_program
from cli.host import join_hint, namesake_gone, namesake_warning
from p2p.discovery import TableAd


@pytest.mark.parametrize(("text", "shown"), [
    ("Friday", "Friday"),  # no quotes needed: none
    ("Ana's table", '"Ana\'s table"'),  # a single quote: in double quotes
    ("Friday night", "'Friday night'"),  # a space: in single quotes
    ('the "Den"', "'the \"Den\"'"),
    ("Ana's $5 table", "'Ana'\"'\"'s $5 table'"),  # $ in double quotes would expand: single quotes, as they must be
    ("Ana's table!", "'Ana'\"'\"'s table!'"),  # (! is history in an interactive bash)
    ("Ana's `x`", "'Ana'\"'\"'s `x`'"),
    ("Ana's \\ table", "'Ana'\"'\"'s \\ table'"),
    ("O'Brien", '"O\'Brien"'),
])
def test_a_word_is_quoted_for_people_and_stays_one_word_for_the_shell(text: str, shown: str) -> None:
    assert shell_word(text) == shown
    assert shlex.split(shell_word(text)) == [text]


def ad(table: str) -> TableAd:
    return TableAd(table=table, host="Ana", seats=4, free=3, proto=1, fingerprint=bytes(32), port=41234,
                   addresses=("192.168.1.20",))


def test_the_host_s_join_hint_for_the_default_table_name_reads_aloud() -> None:
    """`host` names its table "Ana's table" by default: its hint was
    ``bandit-lan join 'Ana'"'"'s table'``."""
    assert join_hint(ad("Ana's table"), "192.168.1.20") == (
        'bandit-lan join "Ana\'s table"   or   bandit-lan join --peer 192.168.1.20:41234')
    namesakes = [ad("Ana's table")]
    assert 'bandit-lan join "Ana\'s table" --fingerprint' in namesake_warning(ad("Ana's table"), namesakes)
    assert '`bandit-lan join "Ana\'s table"` works again' in namesake_gone(ad("Ana's table"))


def test_the_audit_command_quotes_a_folder_for_people_and_leaves_its_pattern_to_the_shell() -> None:
    folder = Path("/home/o'neil/bandit logs")
    logs = [folder / f"0a1b2c3d4e5f-seat{n}.bandit-log" for n in (1, 2)]
    assert audit_command(logs) == 'bandit-lan audit "/home/o\'neil/bandit logs"/0a1b2c3d4e5f-seat*.bandit-log'


def console_script(folder: Path) -> Path:
    """An executable named `bandit-lan` in `folder`, as a venv's bin/ holds."""
    folder.mkdir(parents=True)
    script = folder / "bandit-lan"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    return script


@pytest.fixture
def started_as(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):  # type: ignore[no-untyped-def]
    """Pretend this process is the console script at a path, with PATH as given."""
    import sys
    import types

    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))
    monkeypatch.chdir(tmp_path)

    def start(argv0: str, path: str) -> None:
        monkeypatch.setattr(sys, "argv", [argv0, "play"])
        monkeypatch.setenv("PATH", path)
    return start


def test_printed_commands_name_the_venv_script_the_quick_start_runs(started_as, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """README's quick start runs `.venv/bin/bandit-lan` without activating .venv: every
    printed command names that script, relative to the current folder."""
    script = console_script(tmp_path / ".venv" / "bin")
    started_as(".venv/bin/bandit-lan", "/nowhere")
    assert this_program() == ".venv/bin/bandit-lan"
    assert audit_command([Path("x.bandit-log")]) == ".venv/bin/bandit-lan audit x.bandit-log"
    assert join_hint(ad("Friday"), "10.0.0.2").startswith(".venv/bin/bandit-lan join Friday   or   "
                                                           ".venv/bin/bandit-lan join --peer")
    started_as(str(script), f"/nowhere:{script.parent}")  # (activated: PATH finds this very script)
    assert this_program() == "bandit-lan"


def test_a_script_outside_the_current_folder_is_named_by_its_absolute_path_quoted(
        started_as, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    script = console_script(tmp_path.parent / f"{tmp_path.name} o'env" / "bin")
    other = console_script(tmp_path / "elsewhere")  # (another bandit-lan on PATH: not this one)
    started_as(str(script), str(other.parent))
    assert this_program() == shell_word(str(script)) and shlex.split(this_program()) == [str(script)]


def test_started_as_python_m_cli_the_commands_say_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import subprocess
    import sys

    from tests.cli_support import ROOT

    done = subprocess.run([sys.executable, "-m", "cli", "resume"], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "PATH": str(tmp_path)}, timeout=60)
    monkeypatch.setenv("PATH", str(tmp_path))
    with chdir(ROOT):  # (as the program saw it: its folder, and a PATH that finds no python)
        program = as_typed(sys.executable)
    assert program in (shell_word(sys.executable), shell_word(os.path.relpath(sys.executable, ROOT)))
    assert f"`{program} -m cli join --resume`" in done.stderr, done.stderr


def test_help_names_other_commands_as_the_program_was_started(started_as, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """`join --help`'s "see `… tables`" and `host --help`'s "`… join --peer`" after the
    quick start (`.venv/bin/bandit-lan`, no environment activated): runnable as shown."""
    from cli.main import build_parser

    console_script(tmp_path / ".venv" / "bin")
    started_as(".venv/bin/bandit-lan", "/nowhere")
    monkeypatch.setenv("COLUMNS", "1000")  # (one line each: argparse wraps at the terminal's width)
    commands = next(a for a in build_parser()._actions if a.dest == "command").choices
    assert "(see `.venv/bin/bandit-lan tables`)" in commands["join"].format_help()
    assert "(players join with `.venv/bin/bandit-lan join --peer`)" in commands["host"].format_help()
