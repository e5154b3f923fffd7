"""§6.4: names people read at a table, written plainly, told apart by how they look."""

from __future__ import annotations

import argparse

import pytest

from cli.argtypes import player
from cli.bots import BOT_NAMES, bot_names
from p2p.names import alike, name_problem, plain_name, skeleton

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
         ("Mary Jo", "mary  jo"), ("ONO", "\u039f\u039d\u039f")]


@pytest.mark.parametrize("typed,sent", PLAIN)
def test_s6_4_a_name_is_written_plainly(typed: str, sent: str) -> None:
    assert plain_name(typed) == sent and name_problem(sent, 24) is None


@pytest.mark.parametrize("name,why", REFUSED)
def test_s6_4_a_name_nobody_can_tell_apart_is_refused(name: str, why: str) -> None:
    assert name_problem(plain_name(name), 24) == why


@pytest.mark.parametrize("a,b", ALIKE)
def test_s6_4_names_alike_have_one_skeleton(a: str, b: str) -> None:
    assert alike(a, b), (skeleton(a), skeleton(b))


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
