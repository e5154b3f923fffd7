"""Command lines the program shows people (the host's join hint, the audit command, the
way back to a game): quoted for people to read aloud and type, and still one word each
for the shell."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from cli.commands import audit_command, shell_word
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
