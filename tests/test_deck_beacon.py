"""§8.6: the round's random beacon by commit-reveal."""

from __future__ import annotations

import pytest
from deck_support import game, peer, table

from p2p.deck import (
    Beacon,
    BeaconCommit,
    BeaconReveal,
    CommitmentMismatch,
    MalformedMessage,
    ProtocolViolation,
    SeededSource,
    UsageError,
)


def drawn(g, round: int, seed: bytes = b"b"):
    src = SeededSource(seed)
    return {p: Beacon.draw(g, round, p, src) for p in g.seats}


def committed(g, msgs, round: int = 1, used=frozenset()) -> Beacon:
    b = Beacon(g, round, used)
    for p in g.seats:
        b.receive_commit(p, msgs[p][0])
    return b


def test_8_6_every_peer_derives_the_same_seed_and_outputs() -> None:
    g = game(4)
    msgs = drawn(g, 1)
    seeds = []
    for order in (g.seats, tuple(reversed(g.seats))):  # any delivery order within each phase
        b = Beacon(g, 1)
        assert b.phase == "commit"
        for p in order:
            b.receive_commit(p, msgs[p][0])
        assert b.phase == "reveal"
        for p in order:
            b.receive_reveal(p, msgs[p][1])
        assert b.phase == "done"
        seeds.append(b.seed())
    assert seeds[0] == seeds[1]
    seed = seeds[0]
    assert seed.first_player in g.seats
    assert len(seed.tie_break_salt) == 32 and seed.tie_break_salt != seed.value
    draws = [seed.derive(b"label %d" % i, 1000) for i in range(20)]
    assert all(0 <= d < 1000 for d in draws) and len(set(draws)) > 10
    assert seed.derive(b"label 0", 1000) == draws[0]
    with pytest.raises(UsageError):
        seed.derive(b"x", 0)
    with pytest.raises(UsageError):
        seed.derive_bytes(b"x", 65)


def test_8_6_each_nonce_changes_the_seed_and_first_player_is_fair() -> None:
    g = game(6)
    firsts = set()
    seeds = set()
    for i in range(60):
        msgs = drawn(g, 1, b"%d" % i)
        b = committed(g, msgs)
        for p in g.seats:
            b.receive_reveal(p, msgs[p][1])
        s = b.seed()
        seeds.add(s.value)
        firsts.add(s.first_player)
    assert len(seeds) == 60 and firsts == set(g.seats)


def test_8_6_local_table_runs_one_beacon_per_round() -> None:
    t = table(3)
    s1, used = t.beacon(1)
    s2, used = t.beacon(2, used)
    assert s1.value != s2.value and len(used) == 6 and (s1.round, s2.round) == (1, 2)


def test_8_6_a_late_reveal_that_does_not_match_its_commitment_is_named() -> None:
    g = game(3)
    msgs = drawn(g, 1)
    b = committed(g, msgs)
    b.receive_reveal(peer(0), msgs[peer(0)][1])
    b.receive_reveal(peer(1), msgs[peer(1)][1])
    with pytest.raises(CommitmentMismatch) as e:  # seat 2 saw the others, now tries another nonce
        b.receive_reveal(peer(2), BeaconReveal(1, b"\x00" * 32))
    assert (e.value.section, e.value.check, e.value.peer) == ("§8.6", "beacon-commitment", peer(2))
    assert b.missing == (peer(2),) and b.phase == "reveal"
    b.receive_reveal(peer(2), msgs[peer(2)][1])
    assert b.phase == "done"


def test_8_6_a_reused_nonce_is_named() -> None:
    g = game(3)
    msgs = drawn(g, 1)
    b1 = committed(g, msgs)
    for p in g.seats:
        b1.receive_reveal(p, msgs[p][1])
    used = b1.nonces
    assert len(used) == 3
    # Round 2: seat 1 reuses its round-1 nonce (with a correct round-2 commitment).
    fresh = drawn(g, 2, b"fresh")
    old = msgs[peer(1)][1].nonce
    fresh[peer(1)] = Beacon.draw(g, 2, peer(1), lambda n: old)
    b2 = committed(g, fresh, round=2, used=used)
    b2.receive_reveal(peer(0), fresh[peer(0)][1])
    with pytest.raises(ProtocolViolation) as e:
        b2.receive_reveal(peer(1), fresh[peer(1)][1])
    assert (e.value.check, e.value.peer) == ("reused-nonce", peer(1))
    # Within one round: seat 2 committed to the nonce seat 0 then revealed.
    same = drawn(g, 3, b"same")
    same[peer(2)] = Beacon.draw(g, 3, peer(2), lambda n: same[peer(0)][1].nonce)
    b3 = committed(g, same, round=3)
    b3.receive_reveal(peer(0), same[peer(0)][1])
    with pytest.raises(ProtocolViolation) as e:
        b3.receive_reveal(peer(2), same[peer(2)][1])
    assert (e.value.check, e.value.peer) == ("reused-nonce", peer(2))


def test_8_6_phase_and_sender_rules() -> None:
    g = game(2)
    msgs = drawn(g, 1)
    b = Beacon(g, 1)
    b.receive_commit(peer(0), msgs[peer(0)][0])
    with pytest.raises(ProtocolViolation) as e:
        b.receive_reveal(peer(0), msgs[peer(0)][1])
    assert e.value.check == "reveal-too-early"
    with pytest.raises(ProtocolViolation) as e:
        b.receive_commit(peer(0), msgs[peer(0)][0])
    assert e.value.check == "duplicate-commit"
    with pytest.raises(ProtocolViolation) as e:
        b.receive_commit(peer(1), BeaconCommit(2, msgs[peer(1)][0].commit))
    assert e.value.check == "wrong-round"
    with pytest.raises(ProtocolViolation) as e:
        b.receive_commit(peer(5), msgs[peer(1)][0])
    assert e.value.check == "unknown-peer"
    with pytest.raises(UsageError):
        b.seed()
    b.receive_commit(peer(1), msgs[peer(1)][0])
    b.receive_reveal(peer(1), msgs[peer(1)][1])
    with pytest.raises(ProtocolViolation) as e:
        b.receive_reveal(peer(1), msgs[peer(1)][1])
    assert e.value.check == "duplicate-reveal"
    assert b.missing == (peer(0),)


def test_8_6_commitments_bind_round_and_peer() -> None:
    g = game(2)
    nonce = b"\x42" * 32
    c1, _ = Beacon.draw(g, 1, peer(0), lambda n: nonce)
    c2, _ = Beacon.draw(g, 2, peer(0), lambda n: nonce)
    c3, _ = Beacon.draw(g, 1, peer(1), lambda n: nonce)
    assert len({c1.commit, c2.commit, c3.commit}) == 3


def test_8_6_a_copied_commitment_cannot_be_opened_by_the_copier() -> None:
    """Seat 1 echoes seat 0's commitment, waits for seat 0's nonce and reveals it: the
    commitment names its committer, so seat 1 cannot open it and is named."""
    g = game(3)
    msgs = drawn(g, 1)
    b = Beacon(g, 1)
    b.receive_commit(peer(0), msgs[peer(0)][0])
    b.receive_commit(peer(1), msgs[peer(0)][0])
    b.receive_commit(peer(2), msgs[peer(2)][0])
    b.receive_reveal(peer(0), msgs[peer(0)][1])
    with pytest.raises(CommitmentMismatch) as e:
        b.receive_reveal(peer(1), msgs[peer(0)][1])
    assert (e.value.section, e.value.check, e.value.peer) == ("§8.6", "beacon-commitment", peer(1))
    assert b.missing == (peer(1), peer(2))


def test_8_6_wire_forms_are_strict() -> None:
    g = game(2)
    commit, reveal = Beacon.draw(g, 1, peer(0), SeededSource(b"w"))
    assert BeaconCommit.from_wire(commit.to_wire(), peer(0)) == commit
    assert BeaconReveal.from_wire(reveal.to_wire(), peer(0)) == reveal
    for cls, bad in [
        (BeaconCommit, {"round": -1, "commit": commit.commit}),
        (BeaconCommit, {"round": 2**32, "commit": commit.commit}),
        (BeaconCommit, {"round": 1, "commit": commit.commit[:-1]}),
        (BeaconReveal, {"round": 1, "nonce": reveal.nonce, "x": 0}),
        (BeaconReveal, {"round": "1", "nonce": reveal.nonce}),
        (BeaconReveal, {"round": 1, "nonce": None}),
    ]:
        with pytest.raises(MalformedMessage) as e:
            cls.from_wire(bad, peer(1))
        assert e.value.peer == peer(1) and e.value.section == "§8.6"


def test_s8_6_a_reveal_s_repr_keeps_its_nonce_hidden() -> None:
    """Until every commitment of its round is in, a beacon's nonce is a secret (a peer that
    learnt it could choose its own after it): a reveal's repr, in a traceback or a debug
    line, does not show it."""
    reveal = BeaconReveal(3, bytes(range(32)))
    assert bytes(range(32)).hex() not in repr(reveal) and repr(bytes(range(32))) not in repr(reveal)
    assert "round=3" in repr(reveal)
