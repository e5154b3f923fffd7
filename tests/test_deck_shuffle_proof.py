"""§8.4: the proof of a shuffle holds for every honest step and for nothing else."""

from __future__ import annotations

from dataclasses import replace

import pytest
from deck_support import counted, encrypt, honest_steps_until, peer, reencrypt, table
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.deck import InvalidPoint, InvalidProof, MalformedMessage, SeededSource, ShuffleChain, ShuffleStep
from p2p.deck.group import L, hash_to_point
from p2p.deck.hashing import u32
from p2p.deck.sampling import random_permutation, random_scalar
from p2p.deck.shuffle import rerandomize
from p2p.deck.shuffle_proof import ShuffleProof, proof_bytes, prove_shuffle, verify_shuffle


def statement(seed: bytes, n: int, steps_before: int = 0):  # type: ignore[no-untyped-def]
    """A table, the input deck of step `steps_before` of a chain over n cards, a source."""
    t = table(3, seed, cards=max(n, 2))
    chain = ShuffleChain(t.joint, 1, 0, list(range(n)))
    honest_steps_until(t, chain, steps_before)
    inp = chain.steps[-1].deck if chain.steps else chain.input_deck
    return t, chain, inp


def shuffled(t, inp, source):  # type: ignore[no-untyped-def]
    perm = random_permutation(source, len(inp))
    scalars = tuple(random_scalar(source) for _ in inp)
    return perm, scalars, rerandomize(inp, perm, scalars, t.joint.point)


CONTEXT = (b"\x01" * 32, u32(0), peer(0))


def proven(seed: bytes, n: int, steps_before: int = 1):  # type: ignore[no-untyped-def]
    """An honest step over n cards and its proof: (table, input, output, proof)."""
    t, _, inp = statement(seed, n, steps_before)
    source = SeededSource(seed + b" proof")
    perm, scalars, out = shuffled(t, inp, source)
    return t, inp, out, prove_shuffle(CONTEXT, t.joint.point, inp, out, perm, scalars, source)


@settings(max_examples=12, deadline=None)
@given(n=st.integers(1, 9), before=st.integers(0, 2), seed=st.binary(min_size=1, max_size=4))
def test_8_4_every_honest_step_proves_itself(n: int, before: int, seed: bytes) -> None:
    t, _, inp = statement(seed, n, before)
    source = SeededSource(seed + b"proof")
    perm, scalars, out = shuffled(t, inp, source)
    proof = prove_shuffle(CONTEXT, t.joint.point, inp, out, perm, scalars, source)
    assert verify_shuffle(CONTEXT, t.joint.point, inp, out, proof)
    raw = proof.to_bytes()
    assert len(raw) == proof_bytes(n) == 32 * (4 * n + 5)
    assert ShuffleProof.from_bytes(raw, n) == proof


def test_8_4_a_proof_holds_for_its_own_statement_only() -> None:
    t, inp, out, proof = proven(b"own", 50)
    y = t.joint.point
    swapped = list(out)
    swapped[3], swapped[4] = swapped[4], swapped[3]
    other_y = t.keys[peer(0)].public
    for context, key, deck_in, deck_out in [
        ((b"\x02" * 32, *CONTEXT[1:]), y, inp, out),  # another chain
        ((CONTEXT[0], u32(1), CONTEXT[2]), y, inp, out),  # another step
        ((*CONTEXT[:2], peer(1)), y, inp, out),  # another shuffler
        (CONTEXT, other_y, inp, out),  # another key
        (CONTEXT, y, inp, tuple(swapped)),  # the output reordered after proving
        (CONTEXT, y, tuple(reversed(inp)), out),  # the input reordered
        (CONTEXT, y, inp, out[:-1]),  # a card dropped
    ]:
        assert not verify_shuffle(context, key, deck_in, deck_out, proof)


@pytest.mark.parametrize("cheat", ["replace", "duplicate", "invent", "other-deck"])
def test_8_4_a_step_that_is_not_the_input_s_cards_cannot_be_proven(cheat: str) -> None:
    """The cheater proves its altered deck with everything it knows (the permutation and
    scalars it used for the honest part): the proof fails, whatever it changed."""
    t, chain, inp = statement(b"cheat", 50, 1)
    source = SeededSource(b"cheat proof")
    perm, scalars, out = shuffled(t, inp, source)
    deck = list(out)
    if cheat == "replace":  # a fresh encryption of a card of its choosing
        deck[7] = encrypt(t, t.game.card_points[0])
    elif cheat == "duplicate":  # a re-randomized copy of another position
        deck[7] = reencrypt(t, deck[20])
    elif cheat == "invent":  # no card at all
        deck[7] = encrypt(t, hash_to_point(b"not a card", b"test"))
    else:  # a re-randomized card of another chain of the game
        other, _ = ShuffleChain(t.joint, 2).make_step(peer(0), t.source)
        deck[7] = reencrypt(t, other.deck[0])
    proof = prove_shuffle(CONTEXT, t.joint.point, inp, deck, perm, scalars, source)
    assert not verify_shuffle(CONTEXT, t.joint.point, inp, deck, proof)


def test_8_4_a_map_that_is_no_permutation_cannot_be_proven() -> None:
    """Two outputs re-encrypt one input and another input is dropped: every output is a
    true re-encryption of some input card, yet the proof fails."""
    t, _, inp = statement(b"map", 10, 1)
    source = SeededSource(b"map proof")
    perm = (0, 0, *range(2, 10))  # input 1 is dropped, input 0 doubled
    scalars = tuple(random_scalar(source) for _ in inp)
    out = rerandomize(inp, perm, scalars, t.joint.point)
    proof = prove_shuffle(CONTEXT, t.joint.point, inp, out, perm, scalars, source)
    assert not verify_shuffle(CONTEXT, t.joint.point, inp, out, proof)


def test_8_4_every_part_of_a_proof_counts() -> None:
    t, inp, out, proof = proven(b"parts", 8)
    y = t.joint.point
    other_point = hash_to_point(b"another point", b"test")
    altered = [
        replace(proof, e=(proof.e + 1) % L),
        *(replace(proof, s=tuple((v + 1) % L if k == i else v for k, v in enumerate(proof.s))) for i in range(4)),
        replace(proof, s_hat=((proof.s_hat[0] + 1) % L, *proof.s_hat[1:])),
        replace(proof, s_prime=(*proof.s_prime[:-1], (proof.s_prime[-1] + 1) % L)),
        replace(proof, perm_commit=(other_point, *proof.perm_commit[1:])),
        replace(proof, chain_commit=(*proof.chain_commit[:3], other_point, *proof.chain_commit[4:])),
        replace(proof, perm_commit=(proof.perm_commit[1], proof.perm_commit[0], *proof.perm_commit[2:])),
    ]
    for bad in altered:
        assert not verify_shuffle(CONTEXT, y, inp, out, bad)
    for field in ("perm_commit", "chain_commit"):
        points = getattr(proof, field)
        with pytest.raises(InvalidPoint) as e:
            verify_shuffle(CONTEXT, y, inp, out, replace(proof, **{field: (b"\x02" * 32, *points[1:])}))
        assert (e.value.section, e.value.check) == ("§8.4", "shuffle-proof")


def test_8_4_a_proof_is_read_strictly() -> None:
    raw = proven(b"wire", 4, 0)[3].to_bytes()
    for bad in (raw[:-1], raw + b"\x00", raw[:-32] + L.to_bytes(32, "little")):
        with pytest.raises(MalformedMessage):
            ShuffleProof.from_bytes(bad, 4)


def test_8_4_a_step_whose_proof_fails_is_refused_and_blamed_and_the_chain_is_unchanged() -> None:
    t = table(3, b"chain")
    chain = ShuffleChain(t.joint, 1)
    honest_steps_until(t, chain, 1)
    honest, _ = chain.make_step(peer(1), t.source)
    chain._own = None  # as received from peer 1, not computed here
    with pytest.raises(InvalidProof) as e:
        chain.receive(peer(1), replace(honest, proof=replace(honest.proof, e=(honest.proof.e + 1) % L)))
    assert (e.value.section, e.value.check, e.value.peer) == ("§8.4", "shuffle-proof", peer(1))
    assert len(chain.steps) == 1
    bad_point = replace(honest, proof=replace(honest.proof, chain_commit=(b"\x02" * 32, *honest.proof.chain_commit[1:])))
    with pytest.raises(InvalidPoint) as e:
        chain.receive(peer(1), bad_point)
    assert e.value.peer == peer(1) and len(chain.steps) == 1
    chain.receive(peer(1), ShuffleStep.from_wire(honest.to_wire(), peer(1)))  # the honest step, received
    assert len(chain.steps) == 2


def test_8_4_a_proof_holds_n_of_each_part() -> None:
    """A proof object with one chain commitment too many (whose last one the product check
    would read while no T̂ ties it) cannot even be made, whatever hands it over."""
    proof = proven(b"count", 6)[3]
    for changed in (
        {"chain_commit": (*proof.chain_commit, proof.chain_commit[0])},
        {"chain_commit": proof.chain_commit[:-1]},
        {"s_hat": proof.s_hat[:-1]},
        {"s_prime": (*proof.s_prime, 1)},
        {"s": proof.s[:3]},
        {"e": L},
        {"s_hat": (L, *proof.s_hat[1:])},
    ):
        with pytest.raises(MalformedMessage):
            replace(proof, **changed)


def test_8_4_the_challenges_are_hashed_from_everything_a_prover_could_choose_before_them() -> None:
    """u answers the whole statement and C (so neither deck, nor Y, nor C can be chosen
    after u), and e answers Ĉ and every T (so Ĉ cannot be chosen after e): each part
    changed changes the hash, as §8.4 writes it."""
    from p2p.deck.hashing import TAG_SHUFFLE_PROOF, digest
    from p2p.deck.shuffle_proof import _challenge, _statement

    t, _, inp = statement(b"hash", 4, 1)
    source = SeededSource(b"hash proof")
    _, _, out = shuffled(t, inp, source)
    y, commit = t.joint.point, (hash_to_point(b"c", b"0"), hash_to_point(b"c", b"1"))
    x = _statement(CONTEXT, y, inp, out, commit)
    deck = lambda cards: b"".join(c.c1 + c.c2 for c in cards)  # noqa: E731
    assert x == digest(TAG_SHUFFLE_PROOF, b"x", *CONTEXT, y, deck(inp), deck(out), b"".join(commit))
    for changed in (
        _statement(CONTEXT, y, inp, out[::-1], commit),
        _statement(CONTEXT, y, inp[::-1], out, commit),
        _statement(CONTEXT, t.keys[peer(0)].public, inp, out, commit),
        _statement(CONTEXT, y, inp, out, commit[::-1]),
        _statement((CONTEXT[0], u32(1), CONTEXT[2]), y, inp, out, commit),
    ):
        assert changed != x
    points = [hash_to_point(b"t", bytes([i])) for i in range(7)]
    e = _challenge(x, points[:2], points[2:5] + points[:2], points[5:])
    assert e != _challenge(x, points[1::-1], points[2:5] + points[:2], points[5:])  # Ĉ
    assert e != _challenge(x, points[:2], points[2:5] + points[1::-1], points[5:])  # a T
    assert e != _challenge(x, points[:2], points[2:5] + points[:2], points[:0:-1][:2])  # T̂


def test_8_4_a_step_checked_again_in_one_process_is_checked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit of several logs of one game (and peers run together) check each step's
    proof once: the verdict is kept for the exact statement and proof, nothing else."""
    import p2p.deck.shuffle_proof as module

    t, inp, out, proof = proven(b"kept", 5)
    calls = counted(monkeypatch, module, "_verify")
    assert verify_shuffle(CONTEXT, t.joint.point, inp, out, proof)
    assert verify_shuffle(CONTEXT, t.joint.point, inp, out, proof)
    assert len(calls) == 1
    forged = replace(proof, e=(proof.e + 1) % L)
    assert not verify_shuffle(CONTEXT, t.joint.point, inp, out, forged)
    assert not verify_shuffle((CONTEXT[0], u32(1), CONTEXT[2]), t.joint.point, inp, out, proof)
    assert len(calls) == 3
