"""Plain-text lines (no full screen) as a terminal shows them: broken at words to its width.

A line wider than the terminal was broken by the terminal itself, mid-word: "…the other
playe / rs wait for you up to 2 min.", "…pick an / other name". `say`, `complain` and
the questions asked at the terminal now break it at spaces (`cli.cells.wrapped`); where
the output is no terminal (a file, a pipe) every line stays whole, for scripts.
"""

from __future__ import annotations

import fcntl
import io
import os
import pty
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

import pytest

from cli.cells import text_width, wrapped
from tests.pty_support import reap, read_until

ROOT = Path(__file__).resolve().parent.parent

QUESTION = ("Your last game stopped 3 min ago when your terminal was closed and the other players wait for you up to "
            "2 min.")
REFUSED = "'Bo' is already seated (seat 2) and 'bo' reads the same (§6.4)"


def words_kept(text: str, lines: list[str]) -> bool:
    """`lines` hold `text`'s words, in order, none split."""
    return " ".join(lines).split() == text.split()


def test_a_line_is_broken_at_words_within_the_width_and_a_word_wider_than_it_stays_whole() -> None:
    lines = wrapped(QUESTION, 80).split("\n")
    assert lines == ["Your last game stopped 3 min ago when your terminal was closed and the other",
                     "players wait for you up to 2 min."], lines  # (not "playe / rs")
    assert words_kept(QUESTION, lines)
    path = "/a" * 60
    assert wrapped(f"Log: {path} (check it)", 40).split("\n") == ["Log:", path, "(check it)"]
    assert wrapped("short line", 80) == "short line"


def test_a_wide_character_is_never_split_and_counts_two_columns() -> None:
    """山田 takes four columns: a line of them is broken by columns, not by characters
    (counted as characters, two names would fit the first line, and overflow it)."""
    text = "Seats: " + " ".join(["山田太郎"] * 6)  # (8 columns a name)
    lines = wrapped(text, 20).split("\n")
    assert all(text_width(line) <= 20 for line in lines) and words_kept(text, lines), lines
    assert lines == ["Seats: 山田太郎", "山田太郎 山田太郎", "山田太郎 山田太郎", "山田太郎"], lines


def test_a_continuation_keeps_the_indent_and_a_prompt_keeps_its_last_space() -> None:
    lines = wrapped("  seat 2  Bo  NW77-F6HD-L3JV-RRPS  host you reconnecting…", 30).split("\n")
    assert lines == ["  seat 2  Bo", "  NW77-F6HD-L3JV-RRPS  host", "  you reconnecting…"], lines
    assert wrapped("Go back to it? (n: leave it, then start a new one) [Y/n] ", 40) == (
        "Go back to it? (n: leave it, then start\na new one) [Y/n] ")


PROMPT = "Go back to it? (n: leave it, then start a new one, and nobody at that table waits for you) [Y/n] "
SAYING = f"""
from cli.lobby_common import complain, explain, say
from cli.resume import ask_at_the_terminal
from p2p.errors import JoinRefused
say({QUESTION!r})
complain(explain(JoinRefused("name-taken", {REFUSED!r})))
print("ANSWER", repr(ask_at_the_terminal({PROMPT!r})))
"""


def _on_a_terminal(columns: int) -> list[str]:
    """What `SAYING` shows on a terminal `columns` wide (its size told by the terminal,
    as a window's is; no $COLUMNS), the question answered with "y"."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    marks = tempfile.mkdtemp()  # (a folder of screen marks of its own: another test's killed client may have
    # left a mark for this pty's name in the shared one, and the question would first put its screen away)
    child = subprocess.Popen([sys.executable, "-c", SAYING], stdin=slave, stdout=slave, stderr=slave, cwd=ROOT,
                             env={**env, "PYTHONPATH": str(ROOT), "XDG_RUNTIME_DIR": marks})
    os.close(slave)
    seen = bytearray()
    deadline = time.monotonic() + 30
    try:
        read_until(master, b"[Y/n] ", seen, deadline)
        os.write(master, b"y\n")
        assert read_until(master, re.compile(rb"ANSWER [^\n]*\n"), seen, deadline), bytes(seen)
        assert child.wait(timeout=30) == 0
    finally:
        reap(child)
        os.close(master)
        shutil.rmtree(marks, ignore_errors=True)
    return seen.decode().replace("\r\n", "\n").split("\n")


def shown_width(line: str) -> int:
    """The columns a line of the program took (the answer typed after the prompt, "y", not)."""
    return text_width(line.removesuffix("[Y/n] y") + "[Y/n] " if line.endswith("[Y/n] y") else line)


def test_the_resume_question_a_refusal_and_a_prompt_break_at_words_on_an_80_column_terminal() -> None:
    """The fault as a player saw it: at 80 columns the question read "…the other playe /
    rs wait for you up to 2 min.", the refusal "…pick an / other name". Every line now
    fits the terminal, broken between words."""
    lines = [line for line in _on_a_terminal(80) if line]
    assert all(shown_width(line) <= 80 for line in lines), lines
    shown = " ".join(lines)
    refusal = ("bandit-lan: the host refused your name: 'Bo' is already seated (seat 2) and 'bo' reads the same; "
               "pick another name with --name")
    for text in (QUESTION, refusal, PROMPT):
        assert " ".join(text.split()) in " ".join(shown.split()), (text, lines)
    assert lines[0] == "Your last game stopped 3 min ago when your terminal was closed and the other", lines
    assert lines[2:4] == ["bandit-lan: the host refused your name: 'Bo' is already seated (seat 2) and 'bo'",
                          "reads the same; pick another name with --name"], lines  # (not "pick an / other name")
    assert lines[4:] == ["Go back to it? (n: leave it, then start a new one, and nobody at that table",
                         "waits for you) [Y/n] y", "ANSWER 'y'"], lines


def test_lines_to_a_file_or_a_pipe_stay_whole(tmp_path: Path) -> None:
    """A script reads the output: no line is broken, whatever the width."""
    done = subprocess.run([sys.executable, "-c", SAYING.replace("print(\"ANSWER\"", "0 and print(\"ANSWER\"")],
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "40"},
                          capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert done.returncode == 0 and done.stdout == QUESTION + "\n", done
    assert done.stderr.count("\n") == 1 and "pick another name with --name" in done.stderr, done.stderr


@pytest.mark.parametrize("columns", [40, 120])
def test_the_width_is_the_terminal_s_own(columns: int) -> None:
    lines = [line for line in _on_a_terminal(columns) if line]
    assert all(shown_width(line) <= columns for line in lines), lines
    assert (len(lines) > 8) is (columns == 40), lines  # (at 120 columns: one line each, as they are)


class _Terminal(io.StringIO):
    """Standard output as a terminal (its width: $COLUMNS)."""

    def isatty(self) -> bool:
        return True


def test_the_host_s_join_commands_are_never_broken_inside_a_command_at_80_columns(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The line-mode host lobby wrapped its second join command mid-command ("… or
    /…/python -m cli" / "join --peer 192.0.2.2:36655"): a line too wide for the terminal
    puts each command on a line of its own, whole; one that fits stays one line, and a
    file or pipe reads it as ever."""
    from cli.host import say_join_hint
    from cli.lobby_common import OR

    program = "/home/someone/projects/bandit-lan/.venv/bin/python -m cli"
    commands = [f"{program} join 'Friday night'", f"{program} join --peer 192.0.2.2:36655"]
    monkeypatch.setenv("COLUMNS", "80")
    for stream in (_Terminal(), io.StringIO()):
        monkeypatch.setattr(sys, "stdout", stream)
        say_join_hint(OR.join(commands), "(each is asked for the table code)")
        lines = stream.getvalue().splitlines()
        if isinstance(stream, _Terminal):
            assert lines == ["Others join with:", f"   {commands[0]}", "or", f"   {commands[1]}",
                             "(each is asked for the table code)"], lines
        else:
            assert lines == [f"Others join with: {OR.join(commands)}   (each is asked for the table code)"], lines
    monkeypatch.setattr(sys, "stdout", stream := _Terminal())
    monkeypatch.setenv("COLUMNS", "100")
    say_join_hint(OR.join(["bandit-lan join Friday", "bandit-lan join --peer 192.0.2.2:36655"]))
    assert stream.getvalue() == "Others join with: bandit-lan join Friday   or   bandit-lan join --peer 192.0.2.2:36655\n"


def test_s5_3_the_namesake_news_never_breaks_its_join_command_at_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """The line-mode host told of another table of its name broke the command with its
    fingerprint between words ("… bandit-lan join Twin" / "--fingerprint NW77-…"), so
    it could not be pasted: the command goes on a line of its own, whole; the news of
    the last namesake gone too (without its backquotes); a file or pipe reads each line
    whole as ever."""
    import argparse
    from dataclasses import replace

    from cli.host import join_hint, namesake_gone, namesake_left, namesake_warning, said_in_lines
    from cli.lobby_common import JoinHint
    from p2p.discovery import TableAd
    from p2p.identity import short_id

    mine = TableAd(table="Friday night", host="cy", seats=4, free=3, proto=1, fingerprint=bytes(range(1, 33)),
                   port=41234, addresses=("192.168.1.20",))
    bob, dan = replace(mine, host="bob", fingerprint=bytes(32)), replace(mine, host="dan", fingerprint=bytes(2) * 16)
    pinned = f"bandit-lan join 'Friday night' --fingerprint {short_id(mine.fingerprint)}"
    quiet = argparse.Namespace(quiet=True, json=False)  # (the news alone: no "Others join with" after it)
    monkeypatch.setenv("COLUMNS", "80")
    for news, command in ((JoinHint(join_hint(mine, "192.168.1.20", namesake=True), namesake_warning(mine, [bob]),
                                    warning=True), pinned),
                          (JoinHint(join_hint(mine, "192.168.1.20", namesake=True), namesake_left(mine, dan, [bob]),
                                    warning=True), pinned),
                          (JoinHint(join_hint(mine, "192.168.1.20"), namesake_gone(mine), warning=False),
                           "bandit-lan join 'Friday night'")):
        monkeypatch.setattr(sys, "stderr", stream := _Terminal())
        said_in_lines(quiet, news)
        lines = stream.getvalue().splitlines()
        assert f"   {command}" in lines and all(shown_width(line) <= 80 for line in lines if command not in line), lines
        assert not any("`" in line or line.strip() == "." for line in lines), lines
        monkeypatch.setattr(sys, "stderr", stream := io.StringIO())
        said_in_lines(quiet, news)
        assert stream.getvalue() == news.news + "\n"
