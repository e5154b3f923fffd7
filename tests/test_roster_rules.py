"""§6.8: the table's rules travel in the roster, are validated, and are signed by everyone."""

from pathlib import Path

import pytest

from p2p.errors import ProtocolError
from p2p.roster import DEFAULT_RULES, Member, Roster, TableRules, game_id_of, parse_canonical
from engine import SkillsError
from tests.vectors_support import fixed_identity

SMALL_SKILLS = """
[[card]]
value = 0
count = 30
[[card]]
value = -2
count = 2
bandit = true
name = "green Bandit"
[[card]]
value = 20
count = 2
bandit = true
name = "red Bandit"
[[card]]
value = 4
count = 6
power = "peek"
"""


def roster(tmp_path: Path, rules: TableRules) -> Roster:
    a, b = fixed_identity(1, tmp_path / "a"), fixed_identity(2, tmp_path / "b")
    n1, n2 = b"\x11" * 32, b"\x22" * 32
    return Roster("Kitchen", n1, 2, (Member(0, "alice", a.certificate, n1), Member(1, "bob", b.certificate, n2)), rules=rules)


def test_rules_default_and_round_trip(tmp_path: Path) -> None:
    rules = TableRules(target=50, turn_s=30, peek_s=10)
    r = roster(tmp_path, rules)
    assert parse_canonical(r.canonical()).rules == rules
    assert Roster.from_wire(r.to_wire()).rules == rules
    assert DEFAULT_RULES.skills.size == 50 and DEFAULT_RULES.target == 100


def test_rules_are_inside_the_game_id(tmp_path: Path) -> None:
    ids = {game_id_of(roster(tmp_path, rules).canonical()) for rules in (DEFAULT_RULES, TableRules(target=99))}
    assert len(ids) == 2


def test_rules_custom_skills_table(tmp_path: Path) -> None:
    try:
        rules = TableRules(skills_text=SMALL_SKILLS)
    except SkillsError as exc:  # the format is the engine's; show what it wants
        pytest.fail(f"test skills table rejected: {exc}")
    assert rules.skills.size == 40
    assert parse_canonical(roster(tmp_path, rules).canonical()).rules.skills.size == 40


def test_rules_invalid_skills_refused_with_section(tmp_path: Path) -> None:
    with pytest.raises(SkillsError):
        TableRules(skills_text='[[card]]\nvalue = 4\ncount = 5\npower = "teleport"\n')
    wire = roster(tmp_path, DEFAULT_RULES).to_wire()
    wire["rules"] = dict(wire["rules"], skills='[[card]]\nvalue = 4\ncount = 5\npower = "teleport"\n')
    with pytest.raises(ProtocolError) as info:
        Roster.from_wire(wire)
    assert info.value.section == "§6.8"


@pytest.mark.parametrize("field,value", [("target", 0), ("turn_s", 1), ("peek_s", 0)])
def test_rules_out_of_range_refused(field: str, value: int) -> None:
    with pytest.raises(ProtocolError):
        TableRules(**{field: value})
