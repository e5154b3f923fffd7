"""§6.4: names people read at a table, written plainly, told apart by how they look."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
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


# letters of other scripts drawn like Latin (or Greek) ones, by script
ALIKE_ACROSS_SCRIPTS = [
    ("Coco", "\u03f9\u03bf\u03f2\u03bf"),  # Greek lunate sigmas "Ϲοϲο"
    ("Jo", "\u037f\u03bf"), ("jo", "\u03f3\u03bf"),  # Greek yot "Ϳο", "ϳο"
    ("Anna", "\u0391\u03b7\u03b7\u03b1"),  # Greek small eta "Αηηα"
    ("Gog", "\u050c\u043e\u050d"), ("Viv", "\u0474\u0456\u0475"),  # Cyrillic Komi sje, izhitsa "Ԍоԍ", "Ѵіѵ"
    ("Fam", "\u03dc\u03b1\u03fb"),  # Greek digamma, small san "Ϝαϻ"
    ("Jake", "\u13ab\u13aa\u13e6\u13ac"), ("Jake", "\uab7b\uab7a\uabb6\uab7c"),  # Cherokee "ᎫᎪᏦᎬ", "ꭻꭺꮶꭼ"
    ("Tom", "\u2ca6\u2c9e\u2c98"), ("Tom", "\u2ca7\u2c9f\u2c99"),  # Coptic "ⲦⲞⲘ", its small "ⲧⲟⲙ"
    ("coco", "\u2ca5\u2c9f\u2ca5\u2c9f"),  # Coptic "ⲥⲟⲥⲟ"
    ("\u03a0\u039f\u03a0", "\u2ca0\u2c9e\u2ca0"),  # Coptic "ⲠⲞⲠ" beside Greek "ΠΟΠ"
    ("Dan", "\ua4d3\ua4ee\ua4e0"),  # Lisu "ꓓꓮꓠ"
    ("IKEA", "\u04c0\u041a\u0415\u0410"), ("Alex", "\u0410\u04cf\u0435\u0445"),  # palochkas "ӀКЕА", "Аӏех"
    ("AI", "\ua4ee\ua4f2"), ("Al", "\ua4ee\ua4f2"), ("Lisa", "\ua4e1\ua4f2\ua4e2\ua4ee"),  # Lisu "ꓮꓲ", "ꓡꓲꓢꓮ"
]


@pytest.mark.parametrize("a,b", ALIKE_ACROSS_SCRIPTS)
def test_s6_4_letters_of_other_scripts_drawn_like_latin_ones_read_as_them(a: str, b: str) -> None:
    """Greek "ϲ Ϲ ϳ Ϳ η", Cherokee, Coptic and Lisu letters drawn like Latin (or Greek)
    ones read as those: each passed for a player's letter, and sat beside the player."""
    assert alike(a, b) and alike(b, a), (skeleton(a), skeleton(b))


def test_s6_4_a_bare_stroke_reads_as_i_or_l_whichever_the_other_name_has() -> None:
    """A palochka "Ӏ" (a Lisu "ꓲ", a Coptic "Ⲓ") is drawn as an "I" or an "l", as the
    font has it: it read as "l" only, so "ӀКЕА" sat beside "IKEA". It reads as either
    now, and "AI" and "Al", drawn apart in Latin letters, stay apart."""
    for stroke in "\u04c0\u04cf\ua4f2\u2c92\u2c93":
        assert alike(f"A{stroke}", "AI") and alike(f"A{stroke}", "Al") and alike(f"A{stroke}", f"A{stroke}")
        assert not alike(f"A{stroke}", "A") and not alike(f"A{stroke}", "AO")
    assert not alike("AI", "Al") and not alike("Ian", "lan")
    assert skeleton("\u04c0\u0435\u0430") == skeleton("Lea") == "lea"  # (a skeleton reads it "l")


def test_s6_4_protocol_md_lists_the_lookalikes_the_code_reads() -> None:
    """§6.4's table of lookalikes ("| script | letters | read as |") is the code's, letter
    for letter: a peer of another program reads names alike as this one does."""
    text = (Path(__file__).resolve().parent.parent / "protocol.md").read_text(encoding="utf-8")
    section = text[text.index("### 6.4"):text.index("### 6.5")]
    listed: dict[str, str] = {}
    for letters, read in re.findall(r"^\| [^|]+ \| ([^|]+) \| ([^|]+) \|$", section, re.M):
        if letters.strip() not in ("letters", "---"):
            letters, read = ([chr(int(c[2:], 16)) if c.startswith("U+") else c for c in cell.split()]
                             for cell in (letters, read))
            assert len(letters) == len(read), letters
            listed.update(zip(letters, read))
    assert listed == {chr(k): v for k, v in _LOOKALIKES.items()}


def test_s6_4_an_iota_subscript_reads_as_the_mark_it_is_not_as_a_letter() -> None:
    """"ᾳ" is an "α" with an iota subscript, a hook beneath it: case folding makes the hook
    the letter "ι", so "ᾳ" read "ai" and "Κᾳ" was alike "Kai". It reads as the ogonek it
    looks like now: "Βᾳκ" is alike "Bąk". (Beside Greek "αι" it stays alike: one roster
    may not seat both, §6.5.)"""
    assert not alike("\u1fb3", "ai") and not alike("\u039a\u1fb3", "Kai") and not alike("\u1fbc", "AI")
    assert skeleton("\u0392\u1fb3\u03ba") == skeleton("B\u0105k") == "b\u0105k"
    assert alike("\u1fb3", "\u03b1\u03b9") and alike("\u1fb3", "\u1fbc")


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
