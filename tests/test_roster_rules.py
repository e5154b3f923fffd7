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


def test_rules_skills_nested_too_deeply_is_a_skills_error() -> None:
    """A skills table of ~500 nested arrays (1,002 characters, inside the field's 4,096)
    makes the TOML parser recurse past Python's limit: it is refused as bad TOML (R2), so
    a roster (or a log's header) holding it is a §6.8 error, never a crash."""
    nested = "x = " + "[" * 500 + "]" * 500
    with pytest.raises(SkillsError) as info:
        TableRules(skills_text=nested)
    assert info.value.rule == "R2" and "nested too deeply" in str(info.value)


def test_s6_8_a_deck_too_small_for_the_table_is_refused(tmp_path: Path) -> None:
    """Every member would sign a roster whose deck cannot deal to its seats, and every
    table would then fail to start (R4): the roster is refused where it is read, on the
    wire (for the table's seats) and signed (for its members), and a host cannot open it."""
    tiny = TableRules(skills_text="[[card]]\nvalue = 0\ncount = 9\n")  # 2 players need 4 × 2 + 2 = 10
    r = roster(tmp_path, tiny)
    with pytest.raises(ProtocolError) as signed:
        parse_canonical(r.canonical())
    with pytest.raises(ProtocolError) as wire:
        Roster.from_wire(r.to_wire())
    assert signed.value.section == wire.value.section == "§6.8"
    assert "the deck has 9 cards; 2 players need at least 10" in signed.value.reason
    five = TableRules(skills_text="[[card]]\nvalue = 0\ncount = 14\n")  # deals to 3, not to 4
    assert Roster.from_wire(dict(r.to_wire(), seats=3, rules=five.to_wire())).seats == 3
    with pytest.raises(ProtocolError):
        Roster.from_wire(dict(r.to_wire(), seats=4, rules=five.to_wire()))
    from p2p.lobby import HostLobby

    with pytest.raises(ProtocolError):
        HostLobby(fixed_identity(1, tmp_path / "h"), name="alice", table="Kitchen", seats=4, table_nonce=b"\x11" * 32,
                  port=1, rules=five)


@pytest.mark.parametrize("second", ["alice", "Alice", "ａｌｉｃｅ", "ALICE"])
def test_s6_4_two_members_named_alike_are_refused_in_any_roster(tmp_path: Path, second: str) -> None:
    """The host refuses a second "alice" (§6.4); a roster that seats two anyway (a host
    that does not) is refused by every guest that reads it and by the audit, so no two
    players of one game share a name in any report or total."""
    r = roster(tmp_path, DEFAULT_RULES)
    bob = r.members[1]
    twins = Roster(r.table, r.table_nonce, 2, (r.members[0], Member(1, second, bob.cert, bob.nonce)))
    for read, section in ((lambda: parse_canonical(twins.canonical()), "§6.6"),
                          (lambda: Roster.from_wire(twins.to_wire()), "§6.5")):
        with pytest.raises(ProtocolError) as info:
            read()
        assert info.value.section == section and "names two players the same" in info.value.reason
