"""§9.1's public state and its digest: the vector re-derived from the engine (the events
it names) and from the section's own words (the fields, the tag, the encoding), so that a
change of either the text or the code fails."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from engine import (
    CallBandit,
    Draw,
    Event,
    Game,
    Note,
    Ready,
    Revealed,
    RoundEnded,
    RoundStarted,
    Snap,
    SnapOutcome,
    SnapResolved,
)
from engine.needs import Reveal
from engine.skills import load_skills
from p2p.table.messages import state_digest
from p2p.wire import encode
from vectors_support import protocol_vectors

ROOT = Path(__file__).resolve().parent.parent
VECTOR = protocol_vectors()["table-state-digest"]


def _section() -> str:
    text = (ROOT / "protocol.md").read_text(encoding="utf-8")
    return text.split("### 9.1 Engine vocabulary", 1)[1].split("### 9.2", 1)[0]


def _answered(game: Game) -> None:
    """Every need answered in turn with the face 49 − card (the vector's deck)."""
    while game.needs:
        need = game.next_need
        assert isinstance(need, Reveal), need
        game.apply(Revealed(need.card, need.to, 49 - need.card))


def _vector_game() -> Game:
    game = Game(2, target=100)
    game.apply(RoundStarted(0))
    _answered(game)
    game.apply(Ready(0))
    game.apply(Ready(1))
    _answered(game)
    game.apply(Draw(0))
    _answered(game)
    return game


def test_s9_1_the_public_state_vector_from_the_engine() -> None:
    game = _vector_game()
    state = game.public_state()
    assert encode(state).hex() == VECTOR["encoding"]
    assert state_digest(game) == VECTOR["digest"]
    assert state["draw"] == list(range(10, 50)) and state["faces"][8] == 41 and state["seen"][:10] == [0, 0, 1, 1, 0, 0, 2, 2, 3, 1]


def test_s9_1_the_public_state_has_the_fields_the_section_names_and_its_tag() -> None:
    section = _section()
    table = section.split("| field | value |", 1)[1].split("\n\n", 1)[0]
    named = re.findall(r"^\| `(\w+)` \|", table, re.M)
    state = _vector_game().public_state()
    assert named == list(state) and f"a map of these {len(named)}" in " ".join(section.split())
    assert '"bandit-lan/v1/state\\0"' in section
    digest = hashlib.sha256(b"bandit-lan/v1/state\x00" + bytes.fromhex(VECTOR["encoding"])).hexdigest()
    assert digest == VECTOR["digest"]


def test_s9_1_the_digest_ignores_what_a_peer_was_told_privately() -> None:
    """A peer that was not shown a private face holds the same public state."""
    told, blind = _vector_game(), Game(2, target=100)
    blind.apply(RoundStarted(0))
    while blind.needs:
        need = blind.next_need
        assert isinstance(need, Reveal)
        blind.apply(Revealed(need.card, need.to, 49 - need.card if need.to < 0 or need.to == 1 else None))
        if not blind.needs and blind.phase.value == "peek":
            blind.apply(Ready(0))
            blind.apply(Ready(1))
    blind.apply(Draw(0))
    while blind.needs:
        need = blind.next_need
        assert isinstance(need, Reveal)
        blind.apply(Revealed(need.card, need.to, None))
    assert blind.public_state() == told.public_state() and state_digest(blind) == state_digest(told)
    assert blind.state_hash() == told.state_hash() and blind.known_face(9) is None and told.known_face(9) == 40


HELD = protocol_vectors()["table-state-digest-held"]
HELD_DECK = """\
[[card]]
value = 0
count = 4

[[card]]
value = 2
count = 4

[[card]]
value = 4
count = 2
power = "peek"
"""


def _held_game() -> tuple[Game, list[Note]]:
    """The vector `table-state-digest-held`: every need answered with face = card id."""
    game = Game(2, load_skills(HELD_DECK), target=100)
    notes: list[Note] = []

    def apply(event: Event) -> None:
        notes.extend(game.apply(event))
        while game.needs:
            need = game.next_need
            assert isinstance(need, Reveal), need
            notes.extend(game.apply(Revealed(need.card, need.to, need.card)))

    for event in (RoundStarted(0), Ready(0), Ready(1), CallBandit(0), Draw(0)):
        apply(event)
    assert game.public_state()["draw"] == [] and game.public_state()["hand"] == 9
    apply(Snap(1, 8, 1, 0))
    return game, notes


def test_R7_s9_1_a_round_that_ends_with_a_drawn_card_held_keeps_it_in_hand() -> None:
    """R7 ends the round at once when a penalty card finds nothing to draw, here while
    the caller holds the card it drew: §9.1 says that card stays in `hand`, unrevealed and
    counting for nobody, until the next deal, so that every implementation digests the
    same state."""
    game, notes = _held_game()
    wrong, ended = notes[-2:]
    assert isinstance(wrong, SnapResolved) and wrong.outcome is SnapOutcome.WRONG
    assert isinstance(ended, RoundEnded) and ended.exhausted
    assert ended.scores == (-10, 8)  # (the held 4 counts for nobody)
    state = game.public_state()
    assert state["phase"] == "between" and state["hand"] == 9 and state["faces"][9] is None
    assert encode(state).hex() == HELD["encoding"]
    assert state_digest(game) == HELD["digest"]
    row = next(line for line in _section().splitlines() if line.startswith("| `hand` |"))
    assert "until the next round is dealt" in row and "counts for nobody" in row
    game.apply(RoundStarted(1))
    assert game.public_state()["hand"] is None
