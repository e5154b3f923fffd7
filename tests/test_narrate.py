"""The narrator: plain words for events, faces only where the listening seat may know them (R3, R10)."""

from __future__ import annotations

import re

import pytest
from engine_support import ScriptedTable

from engine import (
    CallBandit,
    DecideSwap,
    Discard,
    Draw,
    Event,
    Exchange,
    LookSwap,
    Peek,
    Prng,
    Ready,
    RoundStarted,
    RuleViolation,
    Simulation,
    SkipPower,
    Snap,
    Spy,
    Swap,
    TakeDiscard,
    TurnTimedOut,
    make_bot,
)
from cli.tui.keymap import slot_label
from engine.narrate import Narrator, Told, card_words, slot_words, value_words
from engine.skills import DEFAULT_SKILLS, CardKind, Skills

NAMES = ("Ana", "Bo", "Cy")


class Told3:
    """A scripted three-seat table told by one narrator per seat plus a public one."""

    def __init__(self, table: ScriptedTable, private_faces: bool = False) -> None:
        self.t = table
        n = table.game.players
        self.seats = [Narrator(NAMES[:n], seat, private_faces=private_faces) for seat in range(n)]
        self.public = Narrator(NAMES[:n], None)

    def do(self, event: Event, stamp: int | None = None) -> dict[int | None, list[Told]]:
        """Apply `event` (its message stamped `stamp`, §7.3) and every fact it needs; the
        lines each narrator told."""
        out: dict[int | None, list[Told]] = {s: [] for s in range(len(self.seats))}
        out[None] = []
        game = self.t.game
        pending = [event]
        while pending:
            ev = pending.pop()
            notes = game.apply(ev)
            at = stamp if ev is event else None  # (a fact the table answers has no message of its own)
            for seat, narrator in enumerate(self.seats):
                out[seat] += narrator.narrate(game, ev, notes, at)
            out[None] += self.public.narrate(game, ev, notes, at)
            if (need := game.next_need) is not None:
                pending.append(self.t.oracle.answer(need))
        return out


def texts(lines: list[Told]) -> list[str]:
    return [line.text for line in lines]


def scripted(players: int = 3, **kw) -> Told3:  # type: ignore[no-untyped-def]
    return Told3(ScriptedTable(players, **kw))


def test_a_seat_without_a_name_is_refused_counting_seats_from_1() -> None:
    with pytest.raises(ValueError, match=r"^seat 4 is not one of the 3 named seats$"):
        Narrator(NAMES, 3)


def test_words_for_cards_and_slots() -> None:
    faces = {v: DEFAULT_SKILLS.values.index(v) for v in (0, 2, 8, 10, 18, -2, 20)}
    assert card_words(DEFAULT_SKILLS, faces[8]) == "an 8"
    assert card_words(DEFAULT_SKILLS, faces[18]) == "an 18"
    assert card_words(DEFAULT_SKILLS, faces[10]) == "a 10"
    assert card_words(DEFAULT_SKILLS, faces[0]) == "a 0"
    assert card_words(DEFAULT_SKILLS, faces[-2]) == "a green Bandit (-2)"
    assert value_words(DEFAULT_SKILLS, faces[20]) == "red Bandit (+20)"
    assert [slot_words(s) for s in range(6)] == ["top-left", "top-right", "bottom-left", "bottom-right",
                                                 "slot 4", "slot 5"]


def test_R6_snap_that_matches_is_told_with_the_card_and_the_gift() -> None:
    # Bo's bottom-right is a 10 like the first discard; Ana snaps it, giving her top-left
    table = scripted(tableaux={0: [2, 0, 4, 6], 1: [0, 2, 4, 10]}, discard=10)
    out = table.do(Snap(0, table.t.top(), 1, 3, give=0))
    assert texts(out[None]) == ["Ana snapped a 10 from Bo's bottom-right slot — it matched; "
                                "Ana's top-left card went to Bo, unseen."]
    assert texts(out[1]) == ["Ana snapped a 10 from your bottom-right slot — it matched; "
                             "Ana's top-left card went to you, unseen."]
    assert texts(out[0]) == ["You snapped a 10 from Bo's bottom-right slot — it matched; "
                             "your top-left card went to Bo, unseen."]
    assert out[0][0].kind == "snap" and out[0][0].seat == 0


def test_R6_wrong_snap_is_told_with_both_cards_and_the_penalty_slot() -> None:
    table = scripted(tableaux={2: [6, 0, 0, 0]}, discard=10)
    out = table.do(Snap(2, table.t.top(), 2, 0))
    assert texts(out[None]) == ["Cy tried a 6 from their top-left slot on a 10 — wrong (R6): it went back face down, penalty card (into slot 4)."]


def test_R6_a_screen_names_a_penalty_slot_by_the_key_that_plays_it() -> None:
    # the terminal client's keys: slot 4 is `e`, beside the square's top row
    table = scripted(tableaux={2: [6, 0, 0, 0]}, discard=10, draw=[0, 2])
    screen = Narrator(NAMES, 2, slot_label=slot_label)
    table.seats[2] = screen
    out = table.do(Snap(2, table.t.top(), 2, 0))
    assert texts(out[2]) == ["You tried a 6 from your top-left slot on a 10 — wrong (R6): it went back face down, penalty card (into slot e)."]
    assert texts(out[None])[0].endswith("(into slot 4).")  # the words everywhere else keep the number
    seat = table.t.game.turn_seat  # a turn passes: one snap per player per turn
    table.do(Draw(seat))
    table.do(Discard(seat))
    out = table.do(Snap(2, table.t.top(), 2, 4))
    assert "from your slot e on" in texts(out[2])[0] and "from their slot 4 on" in texts(out[None])[0]


def test_R6_not_the_fastest_names_no_card() -> None:
    table = scripted(tableaux={0: [10, 0, 2, 4], 1: [10, 2, 4, 6]}, discard=10)
    top = table.t.top()
    table.do(Snap(0, top, 0, 0))
    out = table.do(Snap(1, top, 1, 0))
    assert texts(out[None]) == ["Bo tried their top-left slot on a 10 — not the fastest (R6; Ana's snap of a 10 "
                                "covered it first): it stayed face down, unseen, penalty card (into slot 4)."]


def test_s7_4_not_the_fastest_at_the_same_stamp_says_the_lot_put_the_other_first() -> None:
    """§7.4, R6: two snaps of one Lamport stamp were made without either seeing the other;
    the salted tie-break put Ana's first. Bo was not slower: his line says the lot decided,
    not speed. A claim of an earlier stamp still covered it "first"."""
    table = scripted(tableaux={0: [10, 0, 2, 4], 1: [10, 2, 4, 6]}, discard=10)
    top = table.t.top()
    table.do(Snap(0, top, 0, 0), stamp=7)
    out = table.do(Snap(1, top, 1, 0), stamp=7)
    assert texts(out[None]) == ["Bo tried their top-left slot on a 10 — not the fastest (R6, §7.4; at the same moment as "
                                "Ana's snap of a 10, which covered it: the lot put Ana first): it stayed face "
                                "down, unseen, penalty card (into slot 4)."], texts(out[None])
    assert texts(out[1])[0].startswith("You tried your top-left slot on a 10 — not the fastest (R6, §7.4; at the same moment "
                                       "as Ana's snap of a 10, which covered it: the lot put Ana first)")
    assert "(R6, §7.4; at the same moment as your snap of a 10, which covered it: the lot put you first)" in \
        texts(out[0])[0]
    late = scripted(tableaux={0: [10, 0, 2, 4], 1: [10, 2, 4, 6]}, discard=10)
    top = late.t.top()
    late.do(Snap(0, top, 0, 0), stamp=6)
    out = late.do(Snap(1, top, 1, 0), stamp=7)
    assert "(R6; Ana's snap of a 10 covered it first)" in texts(out[None])[0], texts(out[None])


def test_s7_4_not_the_fastest_on_a_card_snapped_away_at_the_same_stamp_says_the_lot_decided() -> None:
    """§7.4, R6: Ana and Bo snapped Ana's top-left 10 at one stamp; the lot put Ana's claim
    first, which took the card away (and a card given away the same way is told alike)."""
    table = scripted(tableaux={0: [10, 0, 2, 4], 1: [10, 2, 4, 6]}, discard=10)
    top = table.t.top()
    table.do(Snap(0, top, 0, 0), stamp=3)
    out = table.do(Snap(1, top, 0, 0, give=1), stamp=3)
    assert texts(out[None]) == ["Bo tried Ana's top-left slot on a 10 — not the fastest (R6, §7.4; at the same moment as "
                                "Ana's snap, which took that card away: the lot put Ana first): penalty card "
                                "(into slot 4)."], texts(out[None])
    given = scripted(tableaux={0: [10, 0, 2, 4], 1: [10, 2, 4, 6]}, discard=10)
    top = given.t.top()
    given.do(Snap(0, top, 1, 0, give=0), stamp=3)
    out = given.do(Snap(2, top, 0, 0, give=1), stamp=3)
    assert "(R6, §7.4; at the same moment as Ana's snap, which gave that card to you: the lot put Ana first)" in \
        texts(out[1])[0], texts(out[1])


def test_R6_not_the_fastest_names_what_covered_its_top_first() -> None:
    """R6: a snap on a top card that was covered loses to what covered it: another
    player's snap, or a discard. The line names it (a public card) for every listener."""
    table = scripted(tableaux={0: [10, 0, 2, 4], 1: [10, 2, 4, 6], 2: [2, 2, 2, 0]}, discard=10,
                     draw=[0, 6])  # (Bo's penalty card, then Ana's draw)
    top = table.t.top()
    out = table.do(Snap(0, top, 0, 0))
    out = table.do(Snap(1, top, 1, 0))
    assert texts(out[0]) == ["Bo tried their top-left slot on a 10 — not the fastest (R6; your snap of a 10 covered "
                             "it first): it stayed face down, unseen, penalty card (into slot 4)."]
    snapped = table.t.top()
    table.do(Draw(0))
    table.do(Discard(0))  # Ana's 6 covers her snapped 10
    out = table.do(Snap(2, snapped, 2, 0))
    assert texts(out[None]) == ["Cy tried their top-left slot on a 10 — not the fastest (R6; Ana's discard of a 6 "
                                "covered it first): it stayed face down, unseen, penalty card (into slot 4)."]


def test_R6_not_the_fastest_names_the_card_that_covered_its_top_first_not_what_lies_on_it_now() -> None:
    """The 6 Ana discarded covered the first discard's 10; Bo then took the 6 (R5 C) and
    his 2 went where it was. Cy's late snap on the 10 lost to Ana's 6, which came first,
    not to Bo's 2, the card on it now."""
    table = scripted(tableaux={0: [0, 0, 2, 4], 1: [2, 2, 4, 6], 2: [10, 2, 2, 0]}, discard=10, draw=[6, 0])
    first = table.t.top()
    table.do(Draw(0))
    table.do(Discard(0))  # (Ana's 6 on the 10)
    table.do(SkipPower(0))
    table.do(TakeDiscard(1, table.t.top(), 0))  # (Bo takes the 6: his 2 lies on the 10 now)
    out = table.do(Snap(2, first, 2, 0))
    assert texts(out[None]) == ["Cy tried their top-left slot on a 10 — not the fastest (R6; Ana's discard of a 6 "
                                "covered it first): it stayed face down, unseen, penalty card (into slot 4)."], texts(out[None])


def test_R6_not_the_fastest_on_a_card_snapped_away_first_says_so() -> None:
    """R6: Ana snapped her top-left 10 away; Bo's late snap named that same slot, now
    empty. "It stayed face down, unseen" would speak of a card that is no longer there:
    the line says Ana had snapped that card away first, for every listener and in the
    audit's report alike."""
    table = scripted(tableaux={0: [10, 0, 2, 4], 1: [10, 2, 4, 6]}, discard=10)
    audit = len(table.seats)
    auditor(table).opened = dict(enumerate(table.t.oracle.faces))
    top = table.t.top()
    table.do(Snap(0, top, 0, 0))
    out = table.do(Snap(1, top, 0, 0, give=1))
    assert texts(out[None]) == ["Bo tried Ana's top-left slot on a 10 — not the fastest (R6; Ana had snapped that "
                                "card away first): penalty card (into slot 4)."], texts(out[None])
    assert texts(out[0]) == ["Bo tried your top-left slot on a 10 — not the fastest (R6; you had snapped that "
                             "card away first): penalty card (into slot 4)."], texts(out[0])
    assert texts(out[audit])[0].startswith(f"Bo tried Ana's top-left slot on a 10 [card {table.t.oracle.faces[top]}] — "
                                           "not the fastest (R6; Ana had snapped that card away first): penalty card "
                                           "(into slot 4: "), texts(out[audit])


def test_R6_not_the_fastest_on_a_card_given_away_first_says_so() -> None:
    """R6: Ana snapped Bo's 10 and gave him her top-left card; Cy's late snap named Ana's
    top-left slot: that card went to Bo first."""
    table = scripted(tableaux={0: [10, 0, 2, 4], 1: [10, 2, 4, 6]}, discard=10)
    top = table.t.top()
    table.do(Snap(0, top, 1, 0, give=0))
    out = table.do(Snap(2, top, 0, 0, give=1))
    assert texts(out[None]) == ["Cy tried Ana's top-left slot on a 10 — not the fastest (R6; Ana had given that "
                                "card to Bo first): penalty card (into slot 4)."], texts(out[None])
    assert texts(out[1])[0].startswith("Cy tried Ana's top-left slot on a 10 — not the fastest (R6; Ana had given "
                                       "that card to you first)"), texts(out[1])


def test_R6_not_the_fastest_on_a_card_snapped_away_since_its_top_was_covered_says_both() -> None:
    """R6: Ana's discarded 10 covered the first discard's 10, then Bo snapped his top-left
    10 on Ana's; Cy's late snap on the first 10 named Bo's top-left slot."""
    table = scripted(tableaux={0: [0, 0, 2, 4], 1: [10, 2, 4, 6], 2: [2, 2, 2, 0]}, discard=10, draw=[10, 0])
    first = table.t.top()
    table.do(Draw(0))
    table.do(Discard(0))
    table.do(Snap(1, table.t.top(), 1, 0))
    out = table.do(Snap(2, first, 1, 0, give=0))
    assert texts(out[None]) == ["Cy tried Bo's top-left slot on a 10 — not the fastest (R6; Ana's discard of a 10 "
                                "covered it first, and Bo had snapped that card away since): penalty card (into slot 4)."]


def test_R6_not_the_fastest_on_a_card_a_swap_moved_away_says_so() -> None:
    """R3, R6: Ana's discarded 12 covered the first discard's 10, and her swap took Bo's
    top-left card; Cy's late snap on the 10 named that slot. "It stayed face down" spoke
    of a card no longer there: the line says Ana's power swapped it away, on the screen,
    in line mode (its faces) and in the audit's report alike."""
    table = Told3(ScriptedTable(3, tableaux={0: [0, 0, 2, 4], 1: [10, 2, 4, 6], 2: [2, 2, 2, 0]}, discard=10,
                                draw=[12, 0]), private_faces=True)  # (each seat as line mode tells it)
    audit = len(table.seats)
    auditor(table)
    screen = len(table.seats)
    table.seats.append(Narrator(NAMES, 1))  # (Bo's full screen)
    first = table.t.top()
    table.do(Draw(0))
    table.do(Discard(0))  # (a 12: swap)
    table.do(Swap(0, 1, 1, 0))
    out = table.do(Snap(2, first, 1, 0, give=0))
    bracket = "(R6; Ana's discard of a 12 covered it first, and that card had been swapped away by {} power)"
    anas = bracket.format("Ana's")
    assert texts(out[None]) == [f"Cy tried Bo's top-left slot on a 10 — not the fastest {anas}: "
                                "penalty card (into slot 4)."], texts(out[None])
    assert texts(out[1]) == texts(out[screen]) == [
        f"Cy tried your top-left slot on a 10 — not the fastest {anas}: penalty card (into slot 4)."]
    assert out[1][0].yours  # (line mode prints it: Bo's card)
    assert texts(out[0]) == ["Cy tried Bo's top-left slot on a 10 — not the fastest (R6; your discard of a 12 "
                             "covered it first, and that card had been swapped away by your power): penalty card "
                             "(into slot 4)."]
    assert re.fullmatch(r"Cy tried Bo's top-left slot on a 10 \[card \d+\] — not the fastest \(R6; Ana's discard of "
                        r"a 12 \[card \d+\] covered it first, and that card had been swapped away by Ana's power\): "
                        r"penalty card \(into slot 4.*", texts(out[audit])[0]), texts(out[audit])


def test_R6_not_the_fastest_on_a_card_a_look_and_swap_exchanged_says_so() -> None:
    """R3, R6: Ana looked at her top-right card and Bo's top-left one (a 16); Cy snapped a
    16 on it, then Ana exchanged the two cards. Bo's late snap of his top-left card on
    the 16 aimed at a card Ana's power had swapped away."""
    table = scripted(tableaux={0: [0, 0, 2, 4], 1: [16, 2, 4, 6], 2: [16, 2, 2, 0]}, discard=10, draw=[16, 0])
    table.do(Draw(0))
    table.do(Discard(0))  # (a 16: look & swap)
    sixteen = table.t.top()
    table.do(LookSwap(0, 1, 1, 0))
    table.do(Snap(2, sixteen, 2, 0))
    table.do(DecideSwap(0, True))
    out = table.do(Snap(1, sixteen, 1, 0))
    assert texts(out[1]) == ["You tried your top-left slot on a 16 — not the fastest (R6; Cy's snap of a 16 covered "
                             "it first, and that card had been swapped away by Ana's power): penalty card (into slot "
                             "4)."]


def test_moves_the_game_ended_before_they_were_ordered_are_told_as_not_counted() -> None:
    """A seat's moves sent but never put in the table's order (the game ended first) never
    count: the seat's own log says so, with why the game ended when it ended early."""
    me = Narrator(NAMES, 1)
    told = me.unordered([Draw, Snap], "Cy was away for more than 120 s; round 2 is void")
    assert told == Told("Your draw and immediate discard did not count: the game ended before the table put them in "
                        "order (Cy was away for more than 120 s; round 2 is void); no card was turned, no penalty card "
                        "drawn.", "warning", 1)
    assert me.unordered([CallBandit], None).text == ("Your Bandit announcement did not count: the game ended before "
                                                     "the table put it in order.")


def test_R6_not_the_fastest_on_a_slot_emptied_before_its_top_card_says_the_slot_was_empty() -> None:
    """R6: Ana snapped her top-left 10 on the first discard, then discarded a 0 on her own
    10; Bo's late snap on that 10 named Ana's top-left slot, empty since before it."""
    table = scripted(tableaux={0: [10, 0, 2, 4], 1: [10, 2, 4, 6]}, discard=10, draw=[0])
    table.do(Snap(0, table.t.top(), 0, 0))
    snapped = table.t.top()
    table.do(Draw(0))
    table.do(Discard(0))
    out = table.do(Snap(1, snapped, 0, 0, give=1))
    assert texts(out[None]) == ["Bo tried Ana's top-left slot on a 10 — not the fastest (R6; Ana's discard of a 0 "
                                "covered it first): that slot was already empty, penalty card (into slot 4)."]


def auditor(table: Told3) -> Narrator:
    """The audit's narrator (every face, every card by its number), listening as one more seat."""
    narrator = Narrator(NAMES[:len(table.seats)], None, private_faces=True, card_ids=True)
    table.seats.append(narrator)
    return narrator


def test_R6_the_audit_names_the_top_card_a_matched_snap_was_made_on() -> None:
    """Two 10s snapped one after the other both match, each on another physical 10: the
    audit's line names the top card each was made on, so that the second is seen to aim
    at the first (the new top), not at the card the first one beat (R6: not the fastest)."""
    table = scripted(tableaux={0: [10, 0, 2, 4], 1: [10, 2, 4, 6]}, discard=10)
    audit = len(table.seats)
    auditor(table)
    first = table.t.top()
    faces = table.t.oracle.faces
    out = table.do(Snap(0, first, 0, 0))
    ana = table.t.top()
    assert texts(out[audit]) == [f"Ana snapped a 10 [card {faces[ana]}] from their top-left slot on a 10 "
                                 f"[card {faces[first]}] — it matched."]
    assert texts(out[None]) == ["Ana snapped a 10 from their top-left slot — it matched."]  # (the table's words)
    out = table.do(Snap(1, ana, 1, 0))
    assert f"on a 10 [card {faces[ana]}] — it matched" in texts(out[audit])[0]


def test_R6_the_audit_says_a_card_not_the_fastest_stayed_face_down() -> None:
    """R6: a claim that was not the fastest leaves its card unrevealed. The audit names
    that card (its owner had seen it, or the openings tell it), and says it stayed face
    down, so that naming it is not read as its having been turned up."""
    table = scripted(tableaux={0: [10, 0, 2, 4], 1: [10, 2, 4, 6]}, discard=10)
    audit = len(table.seats)
    auditor(table).opened = dict(enumerate(table.t.oracle.faces))
    top = table.t.top()
    table.do(Snap(0, top, 0, 0))
    late = table.t.card(1, 0)
    out = table.do(Snap(1, top, 1, 0))
    face = table.t.oracle.faces[late]
    assert texts(out[audit]) == [f"Bo tried their top-left slot (a 10 [card {face}], known from the shuffles shown "
                                 f"at the round's end; it stayed face down) on a 10 [card {table.t.oracle.faces[top]}] — not the fastest (R6; Ana's "
                                 f"snap of a 10 [card {table.t.oracle.faces[table.t.top()]}] covered it first): penalty card "
                                 "(into slot 4: a 2 [card "
                                 f"{table.t.oracle.faces[table.t.card(1, 4)]}], known from the shuffles shown at the round's "
                                 "end)."], texts(out[audit])
    assert texts(out[None]) == ["Bo tried their top-left slot on a 10 — not the fastest (R6; Ana's snap of a 10 "
                                "covered it first): it stayed face down, unseen, penalty card (into slot 4)."]


def test_s10_2_a_card_moved_unseen_is_named_from_the_openings() -> None:
    """R3, R6: a swapped card, a card given by a snap and a penalty card move unseen. The
    audit's narrator, given the round's faces from its openings (§9.7), names each, and
    marks those that nobody had seen as known from the shuffles shown at the round's end
    (the openings); a card its owner had
    seen (a bottom card) is named plainly. Nobody else's narration names them (R10)."""
    table = scripted(tableaux={0: [12, 14, 0, 2], 1: [0, 18, 6, 8], 2: [4, 4, 6, 4]}, discard=8, draw=[12, 2])
    audit = len(table.seats)
    auditor(table).opened = dict(enumerate(table.t.oracle.faces))

    def named(seat: int, slot: int, *, seen: bool = False) -> str:
        face = table.t.oracle.faces[table.t.card(seat, slot)]
        return f"{card_words(DEFAULT_SKILLS, face)} [card {face}]" + (
            "" if seen else ", known from the shuffles shown at the round's end")

    def public(out: dict[int | None, list[Told]]) -> list[str]:
        return [line for seat in (None, 0, 1, 2) for line in texts(out[seat])]

    ana_top_left, bo_top_right = named(0, 0), named(1, 1)
    table.do(Draw(0))
    table.do(Discard(0))  # a 12: swap
    out = table.do(Swap(0, 0, 1, 1))
    assert texts(out[audit]) == [f"Ana swapped their top-left card ({ana_top_left}) with Bo's top-right card "
                                 f"({bo_top_right}), unseen."]
    assert not any("[card" in line or "(a" in line for line in public(out))
    cy_bottom_left = named(2, 2, seen=True)  # (Cy saw it at the deal)
    out = table.do(Snap(2, table.t.top(), 1, 1, give=2))  # Bo's top-right is Ana's 12 now
    assert texts(out[audit])[0].endswith(f"; Cy's bottom-left card ({cy_bottom_left}) went to Bo, unseen.")
    assert not any("[card" in line or "(a" in line or "(an" in line for line in public(out))
    out = table.do(Snap(1, table.t.top(), 1, 0))  # a 0 on a 12: wrong
    assert texts(out[audit])[0].endswith(f"penalty card (into slot 4: {named(1, 4)}).")
    assert texts(out[None])[0].endswith("penalty card (into slot 4).") and not any("[card" in line for line in public(out))


def test_R6_snapping_your_last_card_is_told_with_its_penalty() -> None:
    fours = Skills((CardKind(4, 30), CardKind(0, 10)))
    table = Told3(ScriptedTable(2, {0: [4, 4, 4, 4]}, discard=4, draw=[4] * 8, skills=fours))
    told = []
    for slot in range(4):  # one snap per turn: each turn ends with another 4 on the discard pile
        told.append(texts(table.do(Snap(0, table.t.top(), 0, slot))[1]))
        seat = table.t.game.turn_seat
        table.do(Draw(seat))
        table.do(Discard(seat))
    assert told[0] == ["Ana snapped a 4 from their top-left slot — it matched."]
    assert told[3] == ["Ana snapped a 4 from their bottom-right slot — it matched; "
                       "no cards left (R6), so a penalty card (into slot 4)."]


def test_R5_options_are_told_with_public_cards_only() -> None:
    table = scripted(tableaux={0: [12, 14, 0, 2]}, discard=6, draw=[8, 14, 0])
    out = table.do(TakeDiscard(0, table.t.top(), 1))
    assert texts(out[None]) == ["Ana took a 6 from the discard pile into their top-right slot and discarded a 14."]
    table.do(Draw(1))
    out = table.do(Exchange(1, 2))
    assert texts(out[None]) == ["Bo kept the drawn card in their bottom-left slot and discarded a 0."]
    assert "14" not in out[1][0].text  # Bo's own narrator does not name the kept card either
    out = table.do(Draw(2))
    assert out[None] == [] and out[2] == []
    out = table.do(Discard(2))
    assert texts(out[2]) == ["You drew and discarded a 14 (swap)."]


def test_R3_private_looks_are_told_without_faces_unless_asked() -> None:
    table = Told3(ScriptedTable(3, {0: [12, 14, 0, 2], 1: [0, 18, 6, 8]}, draw=[8, 4, 0]), private_faces=True)
    public = Narrator(NAMES, 2)  # Cy listens without private faces
    table.seats.append(public)  # told like a fourth listener at seat 2
    table.do(Draw(0))
    out = table.do(Discard(0))
    out = table.do(Spy(0, 1, 1))
    assert texts(out[0]) == ["You spied on Bo's top-right card: an 18."]
    assert texts(out[1]) == ["Ana spied on your top-right card."]  # Bo was looked at; he does not learn it
    assert texts(out[2]) == ["Ana spied on Bo's top-right card."]
    assert texts(out[3]) == ["Ana spied on Bo's top-right card."]
    assert out[0][0].kind == "private" and out[2][0].kind == "power"
    table.do(Draw(1))
    table.do(Discard(1))
    out = table.do(Peek(1, 0))
    assert texts(out[1]) == ["You peeked at your top-left card: a 0."]
    assert texts(out[0]) == ["Bo peeked at their top-left card."]


def test_R3_a_bot_s_possessive_is_written_on_its_name_not_on_its_mark() -> None:
    """"spied on Ada (bot)'s bottom-left card": the possessive goes on the name ("Ada's"),
    "(bot)" staying where the name is said ("Ada (bot) spied on …"); a table where another
    seat is called by the name without the mark keeps it."""
    from engine.narrate import possessive

    table = ScriptedTable(3, {0: [12, 14, 0, 2], 1: [0, 18, 6, 8]}, draw=[8, 4, 0])
    names = ("Ana", "Ada (bot)", "Cy")
    seats = [Narrator(names, seat) for seat in range(3)]

    def told(event: Event) -> list[list[str]]:
        out: list[list[str]] = [[] for _ in seats]
        pending = [event]
        while pending:
            ev = pending.pop()
            notes = table.game.apply(ev)
            for seat, narrator in enumerate(seats):
                out[seat] += texts(narrator.narrate(table.game, ev, notes))
            if (need := table.game.next_need) is not None:
                pending.append(table.oracle.answer(need))
        return out

    told(Draw(0))
    told(Discard(0))
    assert told(Spy(0, 1, 2))[2] == ["Ana spied on Ada's bottom-left card."]
    assert possessive("Ada (bot)", names) == "Ada's" and possessive("Ana", names) == "Ana's"
    assert possessive("Ada (bot)", ("Ada", "Ada (bot)")) == "Ada (bot)'s"  # (two Adas: the mark tells them apart)


@pytest.mark.parametrize(("name", "whose"), [
    ("Jess", "Jess's"),  # (English writes it so: kept)
    ("Jess'", "Jess'"),  # an apostrophe ends it: "Jess''s" read as a typo
    ("Mum's", "Mum's"),  # a possessive already: not "Mum's's"
    ("MUM'S", "MUM'S"),
    ("Mum\u2019s", "Mum\u2019s"),  # (typeset)
    ("Jess\u2019", "Jess\u2019"),
    ("Mum's (bot)", "Mum's"),  # (its mark left out, as any bot's)
    ("Bo ", "Bo's"),  # a space at its end: not "Bo 's"
    ("R2-D2", "R2-D2's"),  # a name ending in no letter takes "'s" as any
    ("Zoë🎲", "Zoë🎲's"),
    ("'", "''s"),  # (nothing but the apostrophe: no name would be left)
    ("Ana…", "Ana…'s"),  # (cut short on a screen)
    ("O'Neil", "O'Neil's"),
])
def test_R3_a_possessive_of_a_name_that_ends_in_an_apostrophe_or_a_space_reads_sanely(name: str, whose: str) -> None:
    """"Mum's's turn", "Jess''s card", "Bo 's turn": "'s" was added to every name as it
    was. A name that is a possessive already stays as it is, a space at its end goes."""
    from engine.narrate import possessive

    assert possessive(name) == whose


def test_R10_a_seat_without_private_faces_never_reads_a_private_face() -> None:
    """R10 for the log: over whole simulated games, every number in a line told to a seat
    without private faces belongs to a card that was face up for everyone at that time."""
    names = ("Ana", "Bo", "Cy", "Di")
    narrators = [Narrator(names, seat) for seat in range(4)]
    told: list[tuple[Told, set[str]]] = []

    def observe(event: Event, notes: list) -> None:  # type: ignore[type-arg]
        game = sim.game
        view = game.view(0)
        zones = game.zones()
        public = {value_words(game.skills, f) for c in zones.cards()
                  if view.is_public(c) and (f := game.known_face(c)) is not None}
        for narrator in narrators:
            for line in narrator.narrate(game, event, notes):
                told.append((line, public | {str(v) for v in game.totals} | {str(s) for h in game.history for s in h}))

    sim = Simulation([make_bot("normal") for _ in range(4)], Prng(11), target=60, observer=observe)
    sim.play()
    assert len(told) > 100
    for line, allowed in told:
        assert line.kind != "private", line
        shown = re.findall(r"\b(?:an?|discarded|snapped|tried) ((?:green |red )?(?:Bandit \()?[+-]?\d+)", line.text)
        for words in shown:
            assert any(words in a for a in allowed), (line.text, words)


def test_R6_R7_a_penalty_with_nothing_left_to_draw_is_told_as_not_drawn() -> None:
    # ten cards: Ana's wrong snap takes the last card to draw; Bo's finds none (the discard
    # pile is its top card alone, nothing to reshuffle), so R7 ends the round instead
    ten = Skills((CardKind(6, 2), CardKind(0, 6), CardKind(10, 1), CardKind(4, 1)))
    table = Told3(ScriptedTable(2, {0: [6, 0, 0, 0], 1: [6, 0, 0, 0]}, discard=10, draw=[4], skills=ten))
    out = table.do(Snap(0, table.t.top(), 0, 0))
    assert texts(out[None]) == ["Ana tried a 6 from their top-left slot on a 10 — wrong (R6): it went back face down, penalty card (into slot 4)."]
    out = table.do(Snap(1, table.t.top(), 1, 0))
    assert texts(out[None]) == ["Bo tried a 6 from their top-left slot on a 10 — wrong (R6): it went back face down, but "
                                "nothing was left to draw for the penalty (R7).", "Round 1 is over — nothing left to draw (R7): Ana 10, Bo 6."]


def test_R3_swap_and_look_and_swap_are_told() -> None:
    table = scripted(tableaux={0: [12, 14, 0, 2], 1: [0, 18, 6, 8]}, draw=[12, 0, 0, 16, 0])
    table.do(Draw(0))
    table.do(Discard(0))
    out = table.do(Swap(0, 0, 1, 3))
    assert texts(out[None]) == ["Ana swapped their top-left card with Bo's bottom-right card, unseen."]
    assert texts(out[1]) == ["Ana swapped their top-left card with your bottom-right card, unseen."]
    table.do(Draw(1))
    table.do(Exchange(1, 0))
    table.do(Draw(2))
    table.do(Discard(2))  # a 0: no power
    table.do(Draw(0))
    out = table.do(Discard(0))
    assert texts(out[None]) == ["Ana drew and discarded a 16 (look & swap)."]
    out = table.do(LookSwap(0, 1, 2, 2))
    assert texts(out[None]) == ["Ana looked at their top-right card and Cy's bottom-left card."]
    out = table.do(DecideSwap(0, True))
    assert texts(out[2]) == ["Ana exchanged their top-right card with your bottom-left card."]


def test_R3_a_look_and_swap_kept_because_a_looked_card_was_snapped_away_is_told_so() -> None:
    """"carl left both cards where they were", though one of them was
    already on the discard pile (Bo snapped it while Ana decided)."""
    table = scripted(tableaux={0: [12, 14, 0, 2], 1: [0, 16, 6, 8]}, draw=[16, 0, 0])
    table.do(Draw(0))
    table.do(Discard(0))
    table.do(LookSwap(0, 0, 1, 1))
    table.do(Snap(1, table.t.top(), 1, 1))  # Bo's 16 on the 16: it matched, the card left his slot
    out = table.do(DecideSwap(0, False))
    assert texts(out[None]) == ["Ana could not exchange: a card they looked at was snapped away."]
    assert texts(out[0]) == ["You could not exchange: a card you looked at was snapped away."]


def test_R3_skipping_a_power_and_R8_bandit_are_told() -> None:
    table = scripted(players=2, tableaux={0: [0, 0, -2, -2]}, draw=[8, 0, 2])
    out = table.do(CallBandit(0))
    assert texts(out[0]) == ["You announced Bandit! This turn, then Bo plays one final turn."]
    assert texts(out[1]) == ["Ana announced Bandit! This turn, then you play one final turn."]
    table.do(Draw(0))
    table.do(Discard(0))
    out = table.do(SkipPower(0))
    assert texts(out[None]) == ["Ana did not use the power."]
    table.do(Draw(1))
    out = table.do(Discard(1))
    lines = texts(out[0])
    assert lines[0] == "Bo drew and discarded a 0."
    assert re.fullmatch(r"Round 1 is over: You -14 \(Bandit -10\), Bo \d+\.", lines[1])


def test_R8_bandit_names_the_two_players_of_the_final_turns_in_turn_order() -> None:
    """"This turn, then two final turns." left each player to work out whose they were:
    at three players or more they are the next two seats, around the table from the caller."""
    table = scripted(players=3, tableaux={1: [0, 0, -2, -2]}, first=1)
    out = table.do(CallBandit(1))
    assert texts(out[1]) == ["You announced Bandit! This turn, then Cy and Ana play one final turn each."]
    assert texts(out[2]) == ["Bo announced Bandit! This turn, then you and Ana play one final turn each."]
    assert texts(out[0]) == ["Bo announced Bandit! This turn, then Cy and you play one final turn each."]
    assert texts(out[None]) == ["Bo announced Bandit! This turn, then Cy and Ana play one final turn each."]


def test_R5_R6_a_table_log_tells_where_each_turn_begins() -> None:
    """Ana's two snaps are in two turns (R6: one per player per turn): the table's log
    says whose turn begins between them; a narrator not asked to (the audit's report,
    which numbers every line by its turn) does not."""
    table = scripted(tableaux={0: [4, 0, 6, 6]}, discard=10, draw=[6, 2])
    table.seats[1] = Narrator(NAMES, 1, turns=True)
    table.public = Narrator(NAMES, None, turns=True)
    told: dict[int | None, list[str]] = {0: [], 1: [], 2: [], None: []}
    for make in (lambda: Draw(0), lambda: Discard(0), lambda: Snap(0, table.t.top(), 0, 2), lambda: Peek(0, 0),
                 lambda: Snap(0, table.t.top(), 0, 3)):
        for seat, lines in table.do(make()).items():
            told[seat] += texts(lines)
    story = ["Ana drew and discarded a 6 (peek).", "Ana snapped a 6 from their bottom-left slot — it matched.",
             "Ana peeked at their top-left card.", "Bo's turn.",
             "Ana snapped a 6 from their bottom-right slot — it matched."]
    assert told[None] == story
    assert told[1] == [line.replace("Bo's turn", "Your turn") for line in story]
    assert told[0] == [line.replace("Ana", "You").replace("their", "your") for line in story if line != "Bo's turn."]


def test_R5_timer_fallback_is_told() -> None:
    table = scripted(players=2, draw=[10, 0, 0])
    out = table.do(TurnTimedOut(table.t.game.turn))
    assert texts(out[0]) == ["Your time ran out: a 10 was discarded for you (R5)."]
    assert texts(out[1]) == ["Ana's time ran out: a 10 was discarded for them (R5)."]
    table.do(Draw(1))
    table.do(Discard(1))  # a 0
    table.do(Draw(0))
    table.do(Discard(0))  # a 0
    table.do(Draw(1))
    table.do(Discard(1))


def test_R5_a_timer_that_runs_out_after_a_look_and_swap_is_told_as_no_exchange() -> None:
    """The two cards were seen; what lapsed is the exchange, not the power."""
    table = scripted(tableaux={0: [12, 14, 0, 2], 1: [0, 18, 6, 8]}, draw=[16, 0, 0, 16])
    table.do(Draw(0))
    table.do(Discard(0))
    table.do(LookSwap(0, 1, 1, 2))
    out = table.do(TurnTimedOut(table.t.game.turn))
    assert texts(out[None]) == ["Ana's time ran out: the two cards stayed where they were (R5)."]
    assert texts(out[0]) == ["Your time ran out: the two cards stayed where they were (R5)."]
    for seat in (1, 2):
        table.do(Draw(seat))
        table.do(Discard(seat))
    table.do(Draw(0))
    table.do(Discard(0))  # another look & swap, left unused this time
    out = table.do(TurnTimedOut(table.t.game.turn))
    assert texts(out[None]) == ["Ana's time ran out: the power was not used (R5)."]


def test_R4_round_start_and_R9_round_end_are_told() -> None:
    t = ScriptedTable(2, {0: [0, 0, 0, 0], 1: [2, 2, 2, 2]}, discard=8, ready=False)
    narrator = Narrator(("Ana", "Bo"), 1)
    t.game = type(t.game)(2)
    lines: list[Told] = []
    pending: list[Event] = [RoundStarted(1)]
    t.oracle.deal(t.oracle.faces)
    while pending:
        ev = pending.pop()
        lines += narrator.narrate(t.game, ev, t.game.apply(ev))
        if (need := t.game.next_need) is not None:
            pending.append(t.oracle.answer(need))
    assert texts(lines) == ["Round 1: You play first. The first discard is an 8. Everyone looks at their two bottom cards."]
    assert narrator.narrate(t.game, Ready(0), t.game.apply(Ready(0))) == []


def test_refusals_name_the_rule() -> None:
    narrator = Narrator(NAMES, 1)
    told = narrator.refusal(Snap(1, 9, 1, 0), "R6", "one immediate discard per player per turn")
    assert told == Told("Your immediate discard did not count (R6: one immediate discard per player per turn): no card was "
                        "turned, no penalty card drawn.", "error", 1)
    other = narrator.refusal(Draw(2), "R5", "it is seat 0's turn")
    assert other == Told("Cy's draw did not count (R5: it is seat 0's turn).", "table", 2)
    lower = Narrator(("ana", "bo", "cy"), 1).refusal(Draw(2), "R5", "it is seat 0's turn")
    assert lower.text == "cy's draw did not count (R5: it is seat 0's turn)."  # (a name as its player typed it)


def test_R3_R5_R6_a_refusal_names_players_and_slots_as_the_table_does_where_the_log_has_numbers() -> None:
    """The engine's reasons keep seats and slots by number for the logs; told to a
    player, the same reason names them: "you" for the listener, "they" for the player
    whose move it was, everyone else by name, slots by their place."""
    t = ScriptedTable(3, {1: [0, 2, 10, 4]}, discard=10)
    refused = []
    for intent in (Draw(1), Snap(2, t.top(), 1, 0), Spy(1, 1, 0)):
        with pytest.raises(RuleViolation) as info:
            t.do(intent)
        refused.append((intent, info.value))
    assert [error.message for _, error in refused] == [
        "cannot draw: it is seat 1's turn",
        "an immediate discard of seat 2's card must name one of seat 3's slots to give",
        "cannot spy: it is seat 1's turn",
    ]
    told = {me: [Narrator(NAMES, me).refusal(i, e.rule, e.words).text for i, e in refused] for me in (0, 1, 2)}
    assert told[0] == [
        "Bo's draw did not count (R5: cannot draw: it is your turn).",
        "Cy's immediate discard did not count (R6: an immediate discard of Bo's card must name one of their slots to give): "
        "no card was turned, no penalty card drawn.",
        "Bo's spy did not count (R3: cannot spy: it is your turn).",
    ]
    assert told[1][1] == ("Cy's immediate discard did not count (R6: an immediate discard of your card must name one "
                          "of their slots to give): no card was turned, no penalty card drawn.")
    assert told[2][0] == "Bo's draw did not count (R5: cannot draw: it is Ana's turn)."
    assert told[2][1] == ("Your immediate discard did not count (R6: an immediate discard of Bo's card must name one "
                          "of your slots to give): no card was turned, no penalty card drawn.")
    with_spy = ScriptedTable(3, {1: [0, 2, 10, 4]}, draw=[8, 0, 0])
    with_spy.do(Draw(0))
    with_spy.do(Discard(0))
    for intent in (Spy(0, 0, 1), Spy(0, 1, 7)):
        with pytest.raises(RuleViolation) as info:
            with_spy.do(intent)
        assert Narrator(NAMES, 2).refusal(intent, "R3", info.value.words).text == {
            0: "Ana's spy did not count (R3: cannot spy: it must target another player's card, not their own).",
            1: "Ana's spy did not count (R3: cannot spy: there is no card in Bo's slot 7).",
        }[intent.owner]


def test_R6_a_snap_that_raced_the_end_of_the_game_is_told_as_play_and_a_table_refusal_as_a_warning() -> None:
    narrator = Narrator(NAMES, 1)
    late = narrator.refusal(Snap(0, 9, 0, 0), "R6", "no immediate discard after the game has ended")
    assert late == Told("Ana's immediate discard did not count (R6: no immediate discard after the game has ended): no card "
                        "was turned, no penalty card drawn.",
                        "table", 0)
    unseen = narrator.refusal(Snap(2, 9, 2, 0), "§9.5", "a snap on a card its sender had not seen turned face up")
    assert unseen.kind == "warning" and "(§9.5: " in unseen.text


def test_narrator_rejects_a_seat_without_a_name() -> None:
    with pytest.raises(ValueError):
        Narrator(NAMES, 3)


def test_R7_a_reshuffle_is_told_before_the_card_drawn_from_it() -> None:
    """The draw pile runs out as a player draws: the discards are shuffled into a new
    pile first, then the card is drawn from it (R7), and that is the order the player,
    the others and an all-knowing narrator (the audit) tell it in. (The player's own
    narrator names the drawn card once, with what they do with it.)"""
    plain = Skills((CardKind(0, 6), CardKind(2, 6)))  # 12 cards: 8 dealt, 1 discard, 3 to draw
    table = Told3(ScriptedTable(2, skills=plain), private_faces=True)
    table.seats.append(Narrator(NAMES[:2], None, private_faces=True, card_ids=True))  # (the audit's)
    for seat in (0, 1, 0):
        table.do(Draw(seat))
        table.do(Discard(seat))
    out = table.do(Draw(1))
    reshuffle = "The draw pile ran out: 3 discarded cards were shuffled into a new one (R7)."
    assert texts(out[1]) == [reshuffle] and texts(out[0]) == [reshuffle]  # (what Bo does with it is told once he has)
    assert re.fullmatch(r"You drew and discarded a [02]\.", texts(table.do(Discard(1))[1])[0])
    assert texts(out[2])[0] == reshuffle and texts(out[2])[1].startswith("Bo drew "), texts(out[2])


def test_a_seat_s_lines_on_its_own_cards_are_marked_yours_and_no_other() -> None:
    """A line-mode seat prints the table log's lines on its own cards (`Told.yours`): its
    own moves, and another's power, swap or snap on one of its cards (R3, R6); a move of
    another player's on their own cards is not one of them."""
    table = scripted(tableaux={0: [12, 14, 0, 2], 1: [0, 18, 6, 8], 2: [10, 4, 4, 4]}, discard=10,
                     draw=[12, 0, 8, 16, 0, 0])
    bo = 1

    def yours(event: Event) -> list[tuple[str, bool]]:
        return [(told.text, told.yours) for told in table.do(event)[bo]]

    assert yours(Snap(0, table.t.top(), 2, 0, give=0)) == [  # Ana snaps Cy's 10: not Bo's cards
        ("Ana snapped a 10 from Cy's top-left slot — it matched; Ana's top-left card went to Cy, unseen.", False)]
    table.do(Draw(0))
    table.do(Discard(0))  # a 12: swap
    assert yours(Swap(0, 1, bo, 3)) == [("Ana swapped their top-right card with your bottom-right card, unseen.", True)]
    assert yours(Draw(bo)) + yours(Exchange(bo, 0)) == [
        ("You kept the drawn card in your top-left slot and discarded a 0.", True)]
    table.do(Draw(2))
    table.do(Discard(2))  # an 8: spy
    assert yours(Spy(2, bo, 1)) == [("Cy spied on your top-right card.", True)]
    table.do(Draw(0))
    table.do(Discard(0))  # a 16: look & swap
    assert yours(LookSwap(0, 1, bo, 2)) == [("Ana looked at their top-right card and your bottom-left card.", True)]
    assert yours(DecideSwap(0, True)) == [("Ana exchanged their top-right card with your bottom-left card.", True)]
    assert yours(Draw(bo)) + yours(Discard(bo)) == [("You drew and discarded a 0.", True)]
    assert yours(Snap(2, table.t.top(), bo, 1, give=0)) == [
        ("Cy tried an 18 from your top-right slot on a 0 — wrong (R6): it went back face down, penalty card (into slot "
         "4).", True)]
