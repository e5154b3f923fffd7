"""R2/R3: the deck (skills table) as data, its default and its validation."""

from collections import Counter

import pytest

from engine import DEFAULT_SKILLS, CardKind, Game, Power, SkillsError, Skills, load_skills

DEFAULT_COUNTS = {0: 5, 2: 5, 4: 5, 6: 5, 8: 5, 10: 5, 12: 4, 14: 4, 16: 4, 18: 4, -2: 2, 20: 2}
DEFAULT_POWERS = {
    0: None, 2: None, -2: None, 20: None,
    4: Power.PEEK, 6: Power.PEEK, 8: Power.SPY, 10: Power.SPY,
    12: Power.SWAP, 14: Power.SWAP, 16: Power.LOOK_SWAP, 18: Power.LOOK_SWAP,
}  # fmt: skip


def test_R2_default_deck_has_50_cards_with_the_documented_counts() -> None:
    assert DEFAULT_SKILLS.size == 50
    assert Counter(DEFAULT_SKILLS.values) == DEFAULT_COUNTS


@pytest.mark.parametrize("value,power", sorted(DEFAULT_POWERS.items(), key=lambda kv: kv[0]))
def test_R3_default_powers(value: int, power: Power | None) -> None:
    faces = [f for f, v in enumerate(DEFAULT_SKILLS.values) if v == value]
    assert faces and all(DEFAULT_SKILLS.powers[f] is power for f in faces)


def test_R2_every_card_is_distinct_faces_0_to_49() -> None:
    # each physical card has its own face index even when values repeat
    assert list(range(DEFAULT_SKILLS.size)) == sorted(set(range(len(DEFAULT_SKILLS.values))))
    assert len(DEFAULT_SKILLS.kind_of) == 50


def test_R2_green_and_red_bandit_are_identical_and_nothing_else_matches_them() -> None:
    green = DEFAULT_SKILLS.values.index(-2)
    red = DEFAULT_SKILLS.values.index(20)
    assert DEFAULT_SKILLS.identical(green, red)
    assert DEFAULT_SKILLS.identical(green, green + 1)  # the two green Bandits
    others = [f for f, v in enumerate(DEFAULT_SKILLS.values) if v not in (-2, 20)]
    assert not any(DEFAULT_SKILLS.identical(green, f) or DEFAULT_SKILLS.identical(red, f) for f in others)
    eights = [f for f, v in enumerate(DEFAULT_SKILLS.values) if v == 8]
    assert DEFAULT_SKILLS.identical(eights[0], eights[-1])
    assert DEFAULT_SKILLS.kind(green).label == "green Bandit"


def test_R2_toml_round_trip_of_the_default_table() -> None:
    assert load_skills(DEFAULT_SKILLS.to_toml()) == DEFAULT_SKILLS


def test_R2_a_user_table_replaces_the_deck() -> None:
    text = """
    [[card]]
    value = 1
    count = 10
    power = "spy"
    [[card]]
    value = 3
    count = 10
    [[card]]
    name = "joker"
    value = 30
    count = 2
    bandit = true
    """
    skills = load_skills(text, "box.toml")
    assert skills.size == 22
    assert skills.powers[0] is Power.SPY and skills.powers[10] is None
    game = Game(4, skills)  # 4 * 4 + 2 = 18 <= 22
    assert game.skills is skills
    with pytest.raises(SkillsError, match="R4: the deck has 22 cards; 6 players need at least 26"):
        Game(6, skills)


BAD_TABLES = [
    ("not toml at all [", "R2", "not valid TOML"),
    ("title = 'x'", "R2", "unknown top-level key"),
    ("", "R2", "no \\[\\[card\\]\\] entries"),
    ("[[card]]\nvalue = 1", "R2", "missing 'count'"),
    ("[[card]]\ncount = 1", "R2", "missing 'value'"),
    ("[[card]]\nvalue = 1\ncount = 0", "R2", "count must be a positive integer"),
    ("[[card]]\nvalue = 1\ncount = -3", "R2", "count must be a positive integer"),
    ("[[card]]\nvalue = 1\ncount = 2.5", "R2", "count must be a positive integer"),
    ("[[card]]\nvalue = 'x'\ncount = 2", "R2", "value must be an integer"),
    ("[[card]]\nvalue = true\ncount = 2", "R2", "value must be an integer"),
    ("[[card]]\nvalue = 1\ncount = 2\npower = 'teleport'", "R3", "unknown power 'teleport'"),
    ("[[card]]\nvalue = 1\ncount = 2\ncolour = 'red'", "R2", "unknown key"),
    ("[[card]]\nvalue = 1\ncount = 2\nbandit = 'yes'", "R2", "'bandit' must be true or false"),
    ("[[card]]\nvalue = 1\ncount = 2\nname = 3", "R2", "'name' must be a string"),
    ("[[card]]\nvalue = 1\ncount = 2\n[[card]]\nvalue = 1\ncount = 3", "R2", "value 1 is already used by card entry 1"),
    ("[[card]]\nvalue = 20\ncount = 2\n[[card]]\nvalue = 20\ncount = 2\nbandit = true", "R2", "value 20 is already used"),
    ("[[card]]\nvalue = 5\ncount = 2\nbandit = true\npower = 'peek'", "R3", "a Bandit card has no power"),
    ("[[card]]\nvalue = 5\ncount = 40\nbandit = true", "R2", "Bandit cards only"),
    ("[[card]]\nvalue = 5\ncount = 5000", "R2", "at most 4096"),
    ("[[card]]\nvalue = 5000\ncount = 50", "R2", "outside -1000..1000"),
]


@pytest.mark.parametrize("text,rule,message", BAD_TABLES)
def test_R2_bad_skills_tables_are_refused_with_a_clear_error(text: str, rule: str, message: str) -> None:
    with pytest.raises(SkillsError, match=message) as info:
        load_skills(text, "mine.toml")
    assert info.value.rule == rule
    assert "mine.toml" in str(info.value) or "card entry" in str(info.value) or "deck" in str(info.value)


def test_R2_skills_built_in_python_are_validated_too() -> None:
    with pytest.raises(SkillsError, match="R3"):
        Skills((CardKind(1, 5, power="peek"),))  # type: ignore[arg-type]
    with pytest.raises(SkillsError):
        Skills(())


@pytest.mark.parametrize("players", [0, 1, 7, "4", True])
def test_R1_players_2_to_6(players: object) -> None:
    with pytest.raises(SkillsError, match="R1: Bandit is played by 2 to 6 players"):
        Game(players)  # type: ignore[arg-type]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_R1_every_table_size_from_2_to_6_can_play(players: int) -> None:
    assert Game(players).players == players
