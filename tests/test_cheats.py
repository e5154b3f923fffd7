"""§11 cheating peers: one seat tries each cheat of the threat model (§11.1, §11.2).

For every cheat, every honest seat detects it and names the culprit and the rule in its
fairness log (and, for live peers, on screen); the honest seats stay consistent with
one another; each follows the documented policy (refuse and play on, or end the game, the
round void); and every honest log audits with the culprit named where the log holds
the proof, and nobody honest blamed anywhere. The criteria are in `tests.cheat_runs`.
The last test prints the table: cheats detected / cheats tried (also `bench/cheats.py`).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import dataclasses

import pytest
import trio

from engine import Draw, EngineError, Game, Ready, RoundStarted, Snap, Swap, TakeDiscard
from engine.errors import Where, Who
from p2p.agreement import compare
from p2p.audit import audit
from p2p.order import Equivocation, StampBackwards, message_hash
from p2p.peer import TablePeer
from p2p.policy import Response, on_refusal
from p2p.plain import verdict
from p2p.report import overall
from p2p.table.machine import Refused
from tests.cheat_runs import (
    CHEATER,
    LIVE,
    MEMORY,
    PLAYERS,
    Judged,
    run_live_frame,
    run_live_last_opening,
    run_live_frozen_acks,
    run_live_late_acks,
    run_live_slow_link,
    run_live_withheld_share,
    say_away,
    run_table,
)
from tests.live_support import running, seat_live_table, shorten_grace, until
from tests.malicious import Cheat, CheatingTable, game_under_way
from tests.test_table_games import SMALL


def tried(name: str, tmp_path: Path, **net: object) -> tuple[CheatingTable, Judged]:
    make, sections, policy = MEMORY[name]
    cheat = make()
    net_, judged = run_table(cheat, sections, policy, tmp_path / "logs", **net)  # type: ignore[arg-type]
    assert judged.ok, judged.explain()
    return net_, judged


def refusals(net: CheatingTable, kind: type) -> list[list[tuple[int, str, int]]]:
    """Per honest seat: (seat, rule, position) of every refused intent of `kind`."""
    return [
        [(r.seat, r.section, r.position) for s in net.tables[i].steps for r in s.refused if isinstance(r.intent, kind)]
        for i in net.honest
    ]


def halts(net: CheatingTable) -> set[tuple[str, int | None, int]]:
    return {(m.halted.section, m.halted.seat, m.position) for i in net.honest if (m := net.tables[i].machine).halted}


def delivered_types(net: CheatingTable, seat: int, sender: int) -> list[str]:
    return [d.envelope.inner["type"] for d in net.tables[seat].log if d.seat == sender]


# -- the rules: refused by every seat at the same place, play goes on ---------------------


def test_R5_out_of_turn_intent_is_refused_everywhere_and_play_goes_on(tmp_path: Path) -> None:
    net, _ = tried("out-of-turn", tmp_path)
    seen = refusals(net, Draw)
    assert seen[0] and all(r == seen[0] for r in seen) and seen[0][0][:2] == (CHEATER, "R5")


def test_R3_illegal_action_is_refused_everywhere_and_play_goes_on(tmp_path: Path) -> None:
    net, _ = tried("illegal-action", tmp_path)
    seen = refusals(net, Swap)
    assert seen[0] and all(r == seen[0] for r in seen) and seen[0][0][:2] == (CHEATER, "R3")


def test_s9_5_snap_on_a_card_not_seen_is_refused_everywhere(tmp_path: Path) -> None:
    net, _ = tried("blind-snap", tmp_path)
    seen = refusals(net, Snap)
    assert all(r == seen[0] for r in seen)
    assert any(seat == CHEATER and rule == "§9.5" for seat, rule, _ in seen[0])


def test_s11_2_a_refusal_after_the_game_ended_is_noted_as_changing_nothing() -> None:
    """A snap that lost its race to the end of the game (R6) is refused like any move;
    its note in the fairness log says it changed nothing, not that the game goes on."""
    late = Refused(812, 4, Snap(4, 9, 4, 0), "R6", "no immediate discard after the game has ended")
    note = on_refusal(late).note(["Ann", "Bo", "Di", "Eve", "Cy", "Flo"])
    assert note == "Cy (seat 5): R6: no immediate discard after the game has ended (refused: it changes nothing)"


def test_s11_2_a_refusal_s_note_names_the_seats_in_its_reason_as_its_culprit_is_named() -> None:
    """The fairness log's note of a refused move (§10.1, quoted by the audit's report)
    names the players its reason speaks of, not their seats counted from 0 beside the
    culprit's seat counted from 1 ("Bo (seat 3): … the card seat 2 chose …")."""
    refused = Refused(87, 2, TakeDiscard(2, 25, 2), "R5", "the card seat 3 chose to take is no longer the discard "
                      "pile's top: an immediate discard covered it first; seat 3 may choose again",
                      ("the card ", Who(2), " chose to take is no longer the discard pile's top: an immediate discard "
                       "covered it first; ", Who(2), " may choose again"))
    assert on_refusal(refused).note(["Ann", "Ada", "Bo", "Cy"]) == (
        "Bo (seat 3): R5: the card Bo chose to take is no longer the discard pile's top: an immediate discard covered "
        "it first; Bo may choose again (refused: it changes nothing)")
    blind = Refused(90, 1, Snap(1, 9, 2, 3, 0), "§9.5", "seat 2 never saw seat 3's bottom-right slot",
                    (Who(1), " never saw ", Where(2, 3), ""))
    assert on_refusal(blind).note(["Ann", "Ada", "Bo"]) == (
        "Ada (seat 2): §9.5: Ada never saw Bo's bottom-right slot (refused: it changes nothing)")


def test_s11_2_a_penalty_slot_is_named_once_as_a_slot() -> None:
    """A penalty slot (R6) in a refusal's words read "Bo's slot 4 slot" in the log's note
    and the audit's report ("seat 3's slot 4 slot" in the bare reason)."""
    from engine.errors import plain

    words = (Who(1), " never saw ", Where(2, 4), "")
    assert plain(words) == "seat 2 never saw seat 3's slot 4"
    blind = Refused(90, 1, Snap(1, 9, 2, 4, 0), "§9.5", plain(words), words)
    assert on_refusal(blind).note(["Ann", "Ada", "Bo"]) == (
        "Ada (seat 2): §9.5: Ada never saw Bo's slot 4 (refused: it changes nothing)")



def test_s11_2_an_engine_reason_that_names_a_seat_is_told_with_its_player() -> None:
    """A move refused while the table owes the engine a private reveal: the engine's
    reason names the seat the card goes to as a seat, which the note tells by its
    player's name ("… to Ann"), not as "seat 0" beside "Cy (seat 3)"."""
    game = Game(3)
    game.apply(RoundStarted(0))  # the bottom cards' reveals, to each seat, are owed
    with pytest.raises(EngineError) as info:
        game.apply(Ready(2))
    error = info.value
    refused = Refused(5, 2, Ready(2), error.rule, error.message, error.words)
    assert on_refusal(refused).note(["Ann", "Bo", "Cy"]) == (
        "Cy (seat 3): §9: confirm being ready must wait: the table owes a reveal of card 2 to Ann "
        "(refused: it changes nothing)")

# -- cards: a violation halts every honest seat at the same place -------------------------


def test_s8_5_wrong_decryption_share_halts_every_honest_seat(tmp_path: Path) -> None:
    net, _ = tried("wrong-share", tmp_path)
    assert halts(net) == {(halts(net).pop()[0], CHEATER, halts(net).pop()[2])}


@pytest.mark.parametrize(
    "name,check", [("wrong-sealed-share", "seal"), ("sealed-to-accomplice", "seal"), ("leaked-share", "wrong-kind")]
)
def test_s8_5_sealed_share_cheats_halt_every_honest_seat_and_name_the_sealer(
    name: str, check: str, tmp_path: Path
) -> None:
    """R10: the share of a card two players saw must travel sealed; a bad seal or the
    share in the clear halts every honest seat at the same place, naming the cheater."""
    net, _ = tried(name, tmp_path)
    assert len(halts(net)) == 1 and next(iter(halts(net)))[:2] == ("§8.5", CHEATER)
    assert all(check in net.tables[i].machine.halted.reason for i in net.honest)  # type: ignore[union-attr]


def test_s8_3_bad_key_proof_halts_before_any_card_is_dealt(tmp_path: Path) -> None:
    net, _ = tried("bad-proof", tmp_path)
    assert all(net.tables[i].machine.round_number == 0 for i in net.honest)


def test_s8_7_shuffle_commitment_that_does_not_open_voids_the_round(tmp_path: Path) -> None:
    net, _ = tried("commitment", tmp_path)
    for i in net.honest:
        m = net.tables[i].machine
        assert m.outcomes == [] and "round 1 is void" in str(m.halted)  # the scored round never became final


@pytest.mark.parametrize("kind", ["not-a-card-public", "not-a-card-private", "duplicate-card", "replaced-card"])
def test_s8_4_a_shuffle_that_invents_copies_or_replaces_a_card_is_refused_on_receipt(
    kind: str, tmp_path: Path
) -> None:
    """§8.4, §8.9: a step whose deck is not its input's cards, shuffled (a non-card, a
    re-randomized copy of another card, a fresh encryption of a card of its choosing)
    cannot prove itself: every honest seat refuses it on receipt and stops, naming the
    shuffler, before any card of that deck is turned over for anyone (§8.9: no cheat of
    the shuffle can win information during the round)."""
    net, _ = tried(kind, tmp_path)
    for i in net.honest:
        m = net.tables[i].machine
        assert m.halted is not None and "shuffle-proof" in m.halted.reason, m.halted
        assert m.outcomes == [] and not any(d.envelope.inner["type"] in ("shares", "challenge") for d in net.tables[i].log)
    assert halts(net) == {("§8.4", CHEATER, halts(net).pop()[2])}


def test_s8_4_shuffle_step_with_a_copied_ciphertext_is_refused_on_receipt(tmp_path: Path) -> None:
    net, _ = tried("copied-ciphertext", tmp_path)
    assert all("duplicate-ciphertext" in str(net.tables[i].machine.halted) for i in net.honest)


def test_s9_10_false_challenge_names_the_challenger(tmp_path: Path) -> None:
    """A challenge voids the round at once and every seat opens; every step opens, so the
    challenger is the culprit."""
    net, _ = tried("false-challenge", tmp_path)
    for i in net.honest:
        m = net.tables[i].machine
        assert m.outcomes == [] and "every shuffle step opened" in str(m.halted)
        assert sum(d.envelope.inner["type"] == "opening" for d in net.tables[i].log) == len(net.peers)


def test_s9_7_different_engine_state_at_round_end_halts_every_honest_seat(tmp_path: Path) -> None:
    net, _ = tried("other-digest", tmp_path)
    assert len(halts(net)) == 1


def test_s9_4_withheld_share_ends_the_game_naming_the_withholder(tmp_path: Path) -> None:
    """Every honest seat waits the stall time (here the table's 60 s turn time, simulated)
    and claims the stall; once every seat but the withholder has claimed it (§9.11), the
    game ends everywhere, naming the withholder."""
    net, judged = tried("withheld-share", tmp_path)
    claims = [d for d in net.tables[0].log if d.envelope.inner["type"] == "stalled"]
    assert sorted(d.seat for d in claims) == sorted(net.honest)
    assert all(d.envelope.inner["seats"] == [CHEATER] and d.envelope.inner["what"] == "shares" for d in claims)
    assert len(halts(net)) == 1 and net.now >= 60.0


@pytest.mark.parametrize(
    "name", ["withheld-key", "withheld-beacon-reveal", "withheld-shuffle-step", "withheld-opening", "withheld-done"]
)
def test_s9_11_withheld_protocol_work_ends_the_game_naming_the_withholder(
    name: str, tmp_path: Path
) -> None:
    """Ordered work (a key, a beacon reveal §8.6, a shuffle step, an opening §8.9 (4), the
    end of the game) that never comes: each honest seat claims the stall after its stall time; each
    claim is judged at its place in the order, where every seat sees the same thing missing, and
    the last honest seat's claim convicts (§9.11)."""
    net, _ = tried(name, tmp_path)
    claims = [d for d in net.tables[0].log if d.envelope.inner["type"] == "stalled"]
    assert sorted(d.seat for d in claims) == sorted(net.honest) and len(halts(net)) == 1
    assert all(d.envelope.inner["seats"] == [CHEATER] for d in claims)
    if name == "withheld-opening":
        assert all(net.tables[i].machine.outcomes == [] for i in net.honest)  # round 1 never became final


# -- the order: seen on receipt, proven by the culprit's own signatures ---------------------


def test_s7_2_equivocation_is_proven_and_neither_side_is_delivered(tmp_path: Path) -> None:
    """The cheater forks its chain at its ``ready``: seat 0 is shown a ``leave`` instead,
    and every later message re-signed to follow. Heads compared across peers expose the
    fork; each honest seat gets the other's copy as evidence (two bodies, one seq, both
    signed by the cheater), and neither copy is ever delivered (§7.10)."""
    net, _ = tried("equivocation", tmp_path)
    cheat = net.cheat
    for i in net.honest:
        errors = [e for e in net.peers[i].errors if isinstance(e, Equivocation)]
        assert errors and len(errors[0].evidence) == 2
        bodies = {e.body for e in errors[0].evidence}
        assert len(bodies) == 2 and {e.sender for e in errors[0].evidence} == {net.peers[CHEATER].identity.peer_id}
        forked_seq = cheat.fork_seq  # type: ignore[attr-defined]
        assert not [d for d in net.tables[i].log if d.seat == CHEATER and d.envelope.inner["seq"] >= forked_seq]
    assert "leave" not in delivered_types(net, 0, CHEATER) and "ready" not in delivered_types(net, 1, CHEATER)


def test_s7_2_equivocation_in_the_side_chain_is_proven(tmp_path: Path) -> None:
    """Shares travel unordered (§7.8), but each sender's side messages are chained: a
    fork there shows in the `sides` of the honest peers' acks, and each gets the other
    side as evidence."""
    net, _ = tried("side-equivocation", tmp_path)
    for i in net.honest:
        errors = [e for e in net.peers[i].errors if isinstance(e, Equivocation)]
        assert errors and "side" in errors[0].reason and len({e.body for e in errors[0].evidence}) == 2


def test_s7_3_backdated_stamp_is_refused_on_receipt(tmp_path: Path) -> None:
    net, _ = tried("backdated-stamp", tmp_path)
    assert all(any(isinstance(e, StampBackwards) for e in net.peers[i].errors) for i in net.honest)


def test_s7_3_a_stamp_above_what_it_names_is_refused_with_its_proof(tmp_path: Path) -> None:
    """A stamp at the top of the range must not enter every honest clock, where the next
    honest stamp would be refused in an honest name: it is refused on receipt, and every
    honest log keeps the proof that names its sender."""
    from p2p.order import StampUnjustified

    net, _ = tried("inflated-stamp", tmp_path)
    assert all(any(isinstance(e, StampUnjustified) for e in net.peers[i].errors) for i in net.honest)
    assert all(p.orderer.clock < 1000 for i, p in enumerate(net.peers) if i in net.honest)


def test_s7_5_claim_to_have_seen_what_it_had_not_halts_every_honest_seat(tmp_path: Path) -> None:
    net, _ = tried("unseen-heads", tmp_path)
    assert len(halts(net)) == 1


def test_s7_2_replayed_copies_of_this_game_change_nothing(tmp_path: Path) -> None:
    """A message of this game sent again, by its author or by anybody else on their link,
    is a retransmission: ignored, and the game ends exactly as without it."""

    class Echo(Cheat):
        name = "replayed copies"

        def act(self, net: CheatingTable, seat: int) -> None:
            if not self.tried and game_under_way(net.tables[seat].machine):
                self.tried = True
                for d in net.tables[seat].log[:20]:  # its own and everybody's, as it received them
                    for dst in net.honest:
                        net.inject(dst, d.envelope)

    cheat = Echo()
    net = CheatingTable(3, 5, cheat, CHEATER, rules=SMALL)
    net.run()
    # (its own moves may lose races as anybody's do, R5/R6; the copies are never judged)
    assert cheat.tried and all(v.section.startswith("R") for i in net.honest for v in net.verdicts[i] if v.seat == CHEATER)
    assert all(net.tables[i].machine.finished for i in range(3))
    assert len({tuple(message_hash(d.envelope.body) for d in t.log) for t in net.tables}) == 1
    delivered = [message_hash(d.envelope.body) for d in net.tables[0].log]
    assert len(set(delivered)) == len(delivered)  # (no copy delivered again: nothing it could be refused for)
    assert all(audit(path).ok for path in net.write_logs(tmp_path))


def test_s7_1_replay_of_another_game_is_refused_and_play_goes_on(tmp_path: Path) -> None:
    net, _ = tried("replay-other-game", tmp_path)
    assert all(net.tables[i].machine.finished for i in net.honest)


def test_s9_3_replay_of_an_earlier_round_halts_every_honest_seat(tmp_path: Path) -> None:
    net, _ = tried("replay-earlier-round", tmp_path)
    assert len(halts(net)) == 1 and all(net.tables[i].machine.round_number == 2 for i in net.honest)


# -- on the wire: live peers over real TLS -----------------------------------------------


@pytest.mark.parametrize("name", ["forged-signature", "impersonation"])
async def test_s4_5_forged_signature_ends_the_game_naming_the_sender(name: str, tmp_path: Path) -> None:
    judged = await run_live_frame(name, tmp_path)
    assert judged.ok, judged.explain()


async def test_s4_2_oversized_frame_ends_the_game_naming_the_sender(tmp_path: Path) -> None:
    judged = await run_live_frame("oversized-frame", tmp_path)
    assert judged.ok, judged.explain()


async def test_s4_3_garbled_frame_ends_the_game_naming_the_sender(tmp_path: Path) -> None:
    """…and the audit of the honest logs together names the sender as both say, by their
    writers' word (no signed record shows a fault on a link), not the honest logs."""
    judged = await run_live_frame("garbled-frame", tmp_path)
    assert judged.ok, judged.explain()
    agreement = compare([audit(tmp_path / f"seat{seat + 1}.bandit-log") for seat in range(PLAYERS) if seat != CHEATER])
    line = overall(agreement)
    culprit, = set(agreement.told.names) - {r.writer_name for r in agreement.logs}  # (seats are not the order of seating)
    # (both logs stop at the garbled frame, one maybe a message or two before the other, as each seat met it)
    told = f"under §4.3, as the one who stopped the table: {culprit} sent bytes that are not a message"
    assert f"independently name {culprit} {told}" in line and "by each writer's word, unsigned" in line, line
    assert "fail" not in line and "fail their own audits" not in agreement.summary(), line


async def test_s4_3_a_log_the_garbled_frame_stopped_sooner_is_told_as_honest_as_the_other(tmp_path: Path) -> None:
    """The cheater sends its garbled frame to one seat, and to the other a few inputs
    later: that one's log holds more of the game. The Overall line named the culprit by
    the longer log alone and said the shorter "fails its own audit"; both are honest logs
    that each name the sender, and the shorter is said to have stopped sooner."""
    tried = []
    for attempt in range(4):
        root = tmp_path / str(attempt)
        judged = await run_live_frame("garbled-frame", root, later=8)
        logs = [audit(root / f"seat{seat + 1}.bandit-log") for seat in range(PLAYERS) if seat != CHEATER]
        held = [len(r.contents.messages) for r in logs if r.contents is not None]
        tried.append((judged.explain() if not judged.ok else "", held))
        # (the later seat's game may end at the first one's leave before the frame reaches it,
        # or both seats meet it at the same message: then the logs do not show it, again)
        if judged.ok and len(set(held)) == 2:
            break
    assert judged.ok and len(set(held)) == 2, tried
    agreement = compare(logs)
    line = overall(agreement)
    culprit, = set(agreement.told.names) - {r.writer_name for r in agreement.logs}
    shorter = min(logs, key=lambda r: len(r.contents.messages))  # type: ignore[union-attr]
    assert f"independently name {culprit} under §4.3, as the one who stopped the table" in line, line
    assert (f"{shorter.writer_name}'s log ({shorter.path.name}) holds {min(held)} of the {max(held)} messages in "
            f"{agreement.told.writer_name}'s log: the fault stopped its writer's table sooner, which is no fault of "
            "that log") in line, line
    assert "fail" not in line, line


async def test_s7_1_a_malformed_header_ends_the_game_naming_the_sender_and_the_audit_says_so(tmp_path: Path) -> None:
    """A correctly signed message whose `lamport` is a string stops the honest tables
    naming its sender (§7.1). The Overall line over the honest logs said they "fail
    their own audits"; it names the sender under §7.1 by their writers' word (the message
    is refused as it arrives, and kept in no log), and each log's verdict says so."""
    judged = await run_live_frame("malformed-header", tmp_path)
    assert judged.ok, judged.explain()
    logs = [audit(tmp_path / f"seat{seat + 1}.bandit-log") for seat in range(PLAYERS) if seat != CHEATER]
    agreement = compare(logs)
    line = overall(agreement)
    culprit, = set(agreement.told.names) - {r.writer_name for r in agreement.logs}
    assert (f"independently name {culprit} under §7.1, as the one who stopped the table: {culprit} sent a message "
            "of the wrong form, by each writer's word, unsigned, since a message refused for its header is kept in "
            "no log; every record they hold checks") in line, line
    assert "fail" not in line and "fail their own audits" not in agreement.summary(), agreement.summary()
    for result in logs:
        assert verdict(result).startswith(f"The table stopped because of {culprit} "), verdict(result)
        assert "refused as it arrives" in verdict(result), verdict(result)


async def test_s7_1_replay_across_links_is_refused_naming_the_link_and_play_goes_on(
    tmp_path: Path
) -> None:
    """The cheater forwards, over its own link, a message another seat genuinely signed at
    another table: refused, blamed on the cheater (the link), not on the signer."""
    judged = await run_live_frame("replay-across-links", tmp_path)
    assert judged.ok, judged.explain()


async def test_s7_2_equivocation_live_is_proven_between_honest_peers(tmp_path: Path) -> None:
    """Live: one honest peer gets the cheater's message, the other a ``leave`` under the
    same seq; their heads disagree, each relays its copy to the other (§7.10), and both
    end the game naming the cheater, the two signed bodies kept in their logs."""
    judged = await run_live_frame("equivocation-live", tmp_path)
    assert judged.ok, judged.explain()


async def test_s4_5_forged_ack_signature_ends_the_game_once_the_ack_is_evidence(tmp_path: Path) -> None:
    """An ack on its signer's own link is taken on the link's word (§4.5); the moment it
    must serve as evidence (the cheater breaks its promise, §7.3) its signature is
    checked, and the forgery ends the game naming the cheater, never blaming the link."""
    judged = await run_live_frame("forged-ack-signature", tmp_path)
    assert judged.ok, judged.explain()


async def test_s7_3_backdated_stamp_live_ends_the_game_naming_the_sender(tmp_path: Path) -> None:
    judged = await run_live_frame("backdated-stamp-live", tmp_path)
    assert judged.ok, judged.explain()


async def test_s9_4_withheld_share_live_every_screen_names_the_withholder(tmp_path: Path) -> None:
    judged = await run_live_withheld_share(tmp_path)
    assert judged.ok, judged.explain()


async def test_s11_3_a_false_away_report_does_not_excuse_the_reporters_withheld_share(tmp_path: Path) -> None:
    """The withholder's every ack says it has no link to seat 0, while it has: its own
    report stands no clock on what it owes (§9.11), so every other seat claims the stall
    and the game ends naming it for withholding, as without the report."""
    judged = await run_live_withheld_share(tmp_path, unreached=0)
    assert judged.ok, judged.explain()


async def test_s11_3_a_report_the_named_seat_contradicts_ends_the_game_naming_the_reporter(tmp_path: Path) -> None:
    """The liar's every ack says it has no link to seat 0, while seat 0 receives its
    messages on that link and its own acks name no link down. After the grace period
    every honest log ends naming the liar absent, none naming seat 0 (§11.3), and the
    logs agree on who was away."""
    long_game = dataclasses.replace(SMALL, target=10_000)  # (no game ends before the grace period does)
    stack, peers = await seat_live_table(tmp_path, 3, person=False, rules=long_game)
    ann, bo, liar = peers
    async with stack:
        with trio.fail_after(40):
            async with running(peers) as summaries:
                await until(lambda: ann.machine.playing, ann)
                for peer in peers:
                    shorten_grace(peer, 1.0)
                say_away(liar, ann.me)
                liar._after_processing()
    results = [audit(summaries[i].log_path) for i in (0, 1)]
    assert all(r.ok and r.left is not None and r.left.seat == liar.me for r in results), [r.left for r in results]
    said = f"{bo.names[liar.me]} said for more than 1 s that it could not reach {bo.names[ann.me]}, while"
    assert summaries[1].why.startswith(said), summaries[1].why
    assert compare(results).away is None


def lie_in_acks(liar: TablePeer, victim: int, only_to: bytes | None = None) -> None:
    """From now on every ack `liar` sends declares holding `victim`'s chain 50 messages
    further than it does, with a made-up hash (to every seat, or to `only_to` alone: the
    others get the true ack)."""
    import hashlib

    orderer, mesh = liar.orderer, liar.mesh
    true_ack, broadcast_frame, true_of = orderer.ack, mesh.broadcast_frame, {}
    at = victim if victim < orderer.me else victim - 1

    def ack(now: float) -> Any:
        true = true_ack(now)
        heads = [list(h) for h in true.inner["heads"]]
        heads[at] = [int(heads[at][0]) + 50, hashlib.sha256(b"never").digest()]
        lie = orderer._sign({**true.inner, "heads": heads})
        true_of[lie.wire] = true.wire
        return lie

    def broadcast(frame: bytes, exclude: Any = ()) -> None:
        true = true_of.pop(frame, None)
        if true is None or only_to is None:
            broadcast_frame(frame, exclude)
            return
        for peer in mesh.peers():
            if peer not in exclude:
                mesh.send_frame(peer, frame if peer == only_to else true)

    orderer.ack = ack  # type: ignore[method-assign]
    mesh.broadcast_frame = broadcast  # type: ignore[method-assign]


@pytest.mark.parametrize("told", ["everyone", "the held seat alone"])
async def test_s7_10_a_false_echo_live_names_its_teller_and_never_the_seat_it_held_back(tmp_path: Path,
                                                                                        told: str) -> None:
    """The liar's acks declare holding Ann's chain far beyond what she sent: Bo's
    delivery of her messages waits for the liar's echo. Ann, the chain's author, sees the
    lie (told her directly, or shown her by Bo, whose delivery it held back) and ends the
    game naming the liar under §7.10; Bo's game ends naming the liar too (whose echo it
    waited for), never Ann, and no log convicts Bo, whose shares the liar and Ann would
    otherwise have claimed (§9.11)."""
    long_game = dataclasses.replace(SMALL, target=10_000)
    stack, peers = await seat_live_table(tmp_path, 3, person=False, rules=long_game)
    ann, bo, liar = peers
    async with stack:
        with trio.fail_after(60):
            async with running(peers) as summaries:
                await until(lambda: ann.machine.playing, ann)
                for peer in peers:
                    shorten_grace(peer, 1.0)
                    peer.acks_grace = 8.0  # (a busy machine's honest acks come well within it)
                lie_in_acks(liar, ann.me, None if told == "everyone" else bo.identity.peer_id)
    name = ann.names[liar.me]
    assert summaries[0].why == f"{name} broke the rules of the table (§7.10)", summaries[0].why
    # (Bo ends naming the liar away, or at Ann's leave, which names it: once the liar's game
    # ended there and it left, Bo no longer waits for its echo, §7.10; never Ann away)
    assert name in summaries[1].why and bo._absent_seat in (None, liar.me), (summaries[1].why, bo._absent_seat)
    results = [audit(summaries[i].log_path) for i in (0, 1)]
    assert results[1].ok and results[1].left is not None and results[1].left.seat != bo.me, results[1].left
    assert all(r.first_failure is None or r.first_failure.seat != bo.me for r in results)
    assert "§7.10" in verdict(results[0]) and f"{name} (seat {liar.me + 1})" in verdict(results[0])


async def test_s7_3_frozen_acks_are_named_claimed_and_end_the_game(tmp_path: Path) -> None:
    """From the game's first messages on, the cheater sends only copies of one ack, and
    no content: the others' moves wait on its promises, its links stay up. Every honest screen says whose acks the table
    waits for (§7.3), no honest turn is timed out meanwhile (the timers stand, §9.6),
    every honest seat claims the stall (§9.11), and every honest game ends naming it."""
    peers, tried = await run_live_frozen_acks(tmp_path)
    assert tried
    cheater = peers[CHEATER]
    seat, name = cheater.me, cheater.names[cheater.me]
    for peer in peers[:CHEATER]:
        texts = [line.text for line in peer.lines]
        assert any(line.seat == seat and line.text.startswith(f"Waiting for {name}'s program to confirm")
                   and "§7.3" in line.text for line in peer.lines), texts
        assert not any("time ran out" in text for text in texts), texts
        claims = [e.inner for e in peer.orderer.sent_of("stalled")]
        assert any(c["what"] == "acks" and c["seats"] == [seat] for c in claims), claims
        assert peer.progress.ended and name in peer.progress.ended_why, peer.progress.ended_why
        assert audit(peer.log.path).first_failure is None


async def test_s9_11_late_acks_keep_the_table_waiting_are_told_claimed_and_end_the_game(tmp_path: Path) -> None:
    """Every ack the cheater sends goes out 1.9 s late: each covers a little more, so no
    one message waits on it 2 s (`ACKS_LATE`), yet the table waits on its acks alone
    most of the time. Every honest screen says so once (§7.3), every honest seat claims
    its stall (§9.11 "Acks"), none claims the other honest seat's shares (they came late
    only because its deliveries waited on the cheater's acks: the stall clock times the
    cheater alone meanwhile), and every honest game ends naming the cheater."""
    peers, tried = await run_live_late_acks(tmp_path, lag=1.9)
    assert tried
    cheater = peers[CHEATER]
    seat, name = cheater.me, cheater.names[cheater.me]
    for peer in peers[:CHEATER]:
        texts = [line.text for line in peer.lines]
        slow = [line for line in peer.lines
                if line.seat == seat and line.text.startswith(f"{name}'s acknowledgements keep the table waiting")]
        assert len(slow) == 1 and "§7.3" in slow[0].text, (peer.progress.ended_why, texts)
        claims = [e.inner for e in peer.orderer.sent_of("stalled")]
        assert any(c["what"] == "acks" for c in claims) and all(c["seats"] == [seat] for c in claims), claims
        assert peer.progress.ended and name in peer.progress.ended_why, peer.progress.ended_why
        assert audit(peer.log.path).first_failure is None


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="§9.11's known limit (4): a link slowed to one seat alone, past the stall time, gets that "
                          "seat claimed for its shares by the other seats")
def test_s9_11_a_link_slowed_to_one_seat_alone_gets_no_honest_seat_convicted(tmp_path: Path) -> None:
    """The cheater holds back every frame it sends to one honest seat, the victim, for
    9 s, and sends the other, the bystander, everything at once. The victim's link is up
    (frames keep coming), so nobody is away; its deliveries wait on the cheater's late
    promises (§7.3), and so do the shares they make it owe. The bystander, whose
    deliveries wait on nobody, times the victim's shares, claims them after its stall
    time, and the cheater's claim completes the count (§9.11): the honest victim is
    convicted of withholding where the bystander is. What a fix must make hold: no
    honest seat's claim names the victim, and no log convicts it."""
    peers = trio.run(partial(run_live_slow_link, tmp_path, lag=9.0))  # (asserted outside trio: a plain failure)
    held, bystander = peers[0], peers[1]
    claims = [e.inner for e in bystander.orderer.sent_of("stalled")]
    assert not any(held.me in claim["seats"] for claim in claims), claims
    for peer in (held, bystander):
        failure = audit(peer.log.path).first_failure
        assert failure is None or failure.seat != held.me, failure


async def test_s8_9_the_winner_is_told_only_once_the_last_rounds_shuffles_open(tmp_path: Path) -> None:
    """Live: the engine ends the game when it scores the last round, but that round stands
    only once its shuffles open (§8.9, §9.7). The cheater's last opening does not open: no
    honest screen ever says who won, and each names the cheater under §8.7."""
    judged, peers = await run_live_last_opening(tmp_path)
    assert judged.ok, judged.explain()
    for peer in peers[:CHEATER]:
        texts = [line.text for line in peer.lines]
        assert not peer.summary().finished and not any(t.startswith("Game over") for t in texts), texts[-6:]
        assert peer.machine.engine.over  # the engine had scored the last round


async def test_s9_7_the_winner_is_told_after_the_last_rounds_scores_stand(tmp_path: Path) -> None:
    """Live, honest: every screen tells the last round's check, then who won."""
    stack, peers = await seat_live_table(tmp_path, 3, person=False, rules=SMALL)
    async with stack:
        async with trio.open_nursery() as nursery:
            for peer in peers:
                nursery.start_soon(peer.run)
    last = peers[0].machine.outcomes[-1].round
    for peer in peers:
        texts = [line.text for line in peer.lines]
        told = [i for i, t in enumerate(texts) if t.startswith("Game over")]
        stand = texts.index(f"Round {last}: every shuffle was shown and checked; the scores stand.")
        assert peer.summary().finished and told == [stand + 1], texts[-6:]


@pytest.mark.parametrize("name", ["table-challenge", "table-stalled"])
def test_s9_10_s9_11_protocol_vectors_match_code(name: str, tmp_path: Path) -> None:
    """The `challenge` and `stalled` vectors of protocol.md: encoding, signature, schema."""
    from p2p.peer import table_schemas
    from p2p.signing import open_signed, sign, signed_frame
    from vectors_support import fixed_identity, protocol_vectors

    vector = protocol_vectors()[name]
    a = fixed_identity(1, tmp_path / "a")
    header = {"from": a.peer_id, "game": bytes(range(32)), "lamport": 7, "seq": 3, "prev": b"\xaa" * 32,
              "heads": [[-1, bytes(32)], [2, b"\xbb" * 32]]}
    own = {
        "table-challenge": {"type": "challenge", "v": 1, "round": 1, "card": 12, "check": "duplicate-card"},
        "table-stalled": {"type": "stalled", "v": 1, "round": 1, "what": "shares", "need": 6, "seats": [2]},
    }[name]
    body, sig = sign(a, {**own, **header})
    assert body.hex() == vector["body"] and sig.hex() == vector["sig"]
    message = open_signed(signed_frame(body, sig), {a.peer_id: a.certificate.public_key}, table_schemas())
    assert message.inner == {**own, **header}


def test_every_cheat_of_the_catalogue_has_a_test() -> None:
    """Each cheat `tests.cheat_runs` knows is exercised above (none silently dropped)."""
    source = Path(__file__).read_text()
    for name in (*MEMORY, *LIVE):
        assert f'"{name}"' in source, name
    assert Response.REJECT and Response.ABORT


def test_a_cheat_that_never_happened_counts_as_a_miss_not_as_one_fewer_tried() -> None:
    """bench/cheats.py's headline: a scenario whose cheat no longer fires (after a change
    of the code it cheats against) counted neither way, so "36/36" looked like all."""
    from tests.cheat_runs import score, table

    response = next(iter(Response))
    caught = Judged("out-of-turn", ("R3",), response, tried=True, detected=True, in_log=True, consistent=True,
                    policy_followed=True, audit_ok=True)
    never = Judged("never fired", ("R3",), response, tried=False)
    assert caught.ok and score([caught, never]) == (1, 2)
    assert table([caught, never])[-1] == "cheats detected / cheats tried: 1/2 (1 never happened: counted as not detected)"
