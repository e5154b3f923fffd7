"""§6.4: names people read at a table, written plainly, told apart by how they look."""

from __future__ import annotations

import argparse
import sys
from unicodedata import normalize

import pytest

from cli.argtypes import bot_player, player
from cli.bots import BOT_NAMES, bot_names
from p2p.names import _LOOKALIKES, alike, name_problem, plain_name, reads_as_a_bot, skeleton

# (the protocol's examples, §6.4: a name as typed, and as it is sent; or why it is refused)
PLAIN = [("  Ann ", "Ann"), ("Mary\u00a0 Jo", "Mary Jo"), ("Zoe\u0308", "Zo\u00eb")]
REFUSED = [
    ("   ", "is blank"),
    ("An\u200bn", "holds an invisible or control character (U+200B)"),
    ("\u0301\u0301", "shows no letter, digit or sign"),
    ("\u3164", "shows no letter, digit or sign"),
    ("\u0410nn", "mixes Latin and Cyrillic letters in one word (its \u0410 is Cyrillic capital letter a)"),
    ("\u0391nna", "mixes Latin and Greek letters in one word (its \u0391 is Greek capital letter alpha)"),
    ("x" * 25, "is longer than 24 characters"),
]
ALIKE = [("Ann", "ANN"), ("alice", "\uff41\uff4c\uff49\uff43\uff45"), ("ABBA", "\u0410\u0412\u0412\u0410"),
         ("Mary Jo", "mary  jo"), ("ONO", "\u039f\u039d\u039f"),
         ("Pop", "\u0420\u1c82\u0440"), ("coco", "\u1c83\u1c82\u1c83\u1c82"),  # (narrow о, wide с: Cyrillic)
         ("Lea", "\u04c0\u0435\u0430"), ("dao", "\u0500\u0430\u043e"),  # (Cyrillic palochka, Komi de)
         ("Jo\u00eb", "\u0408\u043e\u0451"), ("\u00d3PA", "\u038c\u03a1\u0391")]  # (Cyrillic ё, Greek Ό)


@pytest.mark.parametrize("typed,sent", PLAIN)
def test_s6_4_a_name_is_written_plainly(typed: str, sent: str) -> None:
    assert plain_name(typed) == sent and name_problem(sent, 24) is None


@pytest.mark.parametrize("name,why", REFUSED)
def test_s6_4_a_name_nobody_can_tell_apart_is_refused(name: str, why: str) -> None:
    assert name_problem(plain_name(name), 24) == why


@pytest.mark.parametrize("a,b", ALIKE)
def test_s6_4_names_alike_have_one_skeleton(a: str, b: str) -> None:
    assert alike(a, b), (skeleton(a), skeleton(b))


def test_s6_4_a_skeleton_leaves_no_letter_that_reads_as_latin() -> None:
    """Every character, case folded or not, is read to the end: a letter that reaches a
    lookalike only by folding ("\u1c82", a narrow Cyrillic "о") reads as that letter's
    Latin one too, and so does one under a mark ("\u0451", a Cyrillic "ё"): no skeleton
    keeps a letter the table reads as Latin, not even beneath a mark."""
    lookalikes = {chr(c) for c in _LOOKALIKES}
    left = [c for c in range(sys.maxunicode + 1) if lookalikes.intersection(normalize("NFD", skeleton(chr(c))))]
    assert [f"U+{c:04X}" for c in left] == []


@pytest.mark.parametrize("a,b", [("Ann", "Anna"), ("Bo", "B\u00f6"), ("\u0432\u0430\u043d\u044f", "bahr")])
def test_s6_4_names_that_look_different_are_not_alike(a: str, b: str) -> None:
    assert not alike(a, b)


def test_s6_4_a_joiner_is_told_its_name_is_refused_before_it_dials() -> None:
    """`--name` is checked as it is read: the rules that do not depend on the table."""
    assert player("  Ann  ") == "Ann"
    with pytest.raises(argparse.ArgumentTypeError, match=r"'   ' cannot be a player's name: it is blank"):
        player("   ")
    with pytest.raises(argparse.ArgumentTypeError, match="it mixes Latin and Cyrillic letters in one word"):
        player("\u0410nn")


def test_s6_4_bot_names_pass_the_rules_and_give_way_to_a_lookalike_host() -> None:
    for name in [*BOT_NAMES, *bot_names(6, "Hal")]:
        assert plain_name(name) == name and name_problem(name, 24) is None
    assert "Ada (bot)" not in bot_names(5, "\u0410\u0501\u0430 (bot)")  # (all Cyrillic)


@pytest.mark.parametrize("name", ["Bo (bot)", "Bo (BOT)", "Bo(bot)", "Bo ( bot )", "Bo \uff08bot\uff09",
                                  "Bo (\u0412\u041e\u0422)", "bot (bot)"])
def test_a_person_s_name_may_not_end_as_a_host_s_bot_s_does(name: str) -> None:
    """"(bot)" marks the bots a host seats: `--name` refuses it as it looks (case,
    spacing, full-width brackets, Cyrillic capitals); a host's bot is still given its name."""
    assert reads_as_a_bot(name)
    with pytest.raises(argparse.ArgumentTypeError, match=r"a name ending in \"\(bot\)\" is kept for the bots"):
        player(name)
    assert bot_player(name) == plain_name(name)


@pytest.mark.parametrize("name", ["Bo", "Abbot", "Robot", "bot Bo", "Bo (bots)", "(bot) Bo"])
def test_a_name_that_does_not_end_in_the_bot_mark_is_a_person_s(name: str) -> None:
    assert not reads_as_a_bot(name) and player(name) == name
