"""§8.1 answers of pure checks, kept by their statement (`p2p.deck.kept`): a share's proof,
a sealed share's or a step's opening, checked again in one process with the very same
bytes, is worked out once (the audit of several logs of one game, peers run together);
any other statement, and any check that raised, is worked out afresh."""

from __future__ import annotations

from dataclasses import replace

import pytest
from deck_support import counted, peer, table

import p2p.deck.proofs as proofs
import p2p.deck.shuffle as shuffle
from p2p.deck import (
    InvalidPoint, InvalidProof, ShuffleMismatch, make_sealed_share, make_share, verify_sealed_share, verify_share,
)
from p2p.deck.group import G, add
from p2p.deck.kept import Kept


def test_8_1_kept_answers_forget_the_oldest_beyond_their_number_and_never_an_exception() -> None:
    kept: Kept[int] = Kept(b"test", 2)
    worked: list[bytes] = []

    def ask(*statement: bytes) -> int:
        return kept(statement, lambda: worked.append(b"|".join(statement)) or len(worked))

    assert [ask(b"a"), ask(b"a"), ask(b"b"), ask(b"c")] == [1, 1, 2, 3]
    assert len(kept) == 2 and ask(b"a") == 4  # (forgotten: the oldest of three)
    assert ask(b"c") == 3
    assert ask(b"a", b"b") != ask(b"ab")  # (every field framed: no two statements share a key)

    def fails() -> int:
        worked.append(b"raised")
        raise ValueError("no answer")

    for _ in range(2):
        with pytest.raises(ValueError):
            kept((b"d",), fails)
    assert worked.count(b"raised") == 2


def test_8_5_a_share_checked_again_is_worked_out_once_and_a_wrong_one_refused_each_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    t = table(3, b"kept shares")
    chain, _ = t.shuffle(1)
    deck = chain.deck()
    share = make_share(t.keys[peer(1)], deck, 2, t.source)
    calls = counted(monkeypatch, proofs, "mul")
    verify_share(deck, peer(1), share)
    worked = len(calls)
    assert worked > 0
    verify_share(deck, peer(1), share)  # (another seat's check, or the audit's)
    assert len(calls) == worked
    wrong = replace(share, share=add(share.share, G))
    for _ in range(2):
        with pytest.raises(InvalidProof):
            verify_share(deck, peer(1), wrong)
    with pytest.raises(InvalidProof):  # (the same share, said to be another seat's)
        verify_share(deck, peer(2), share)
    assert len(calls) == 3 * worked  # (the wrong share's answer is kept too)
    with pytest.raises(InvalidPoint):  # (raised each time: not an answer)
        verify_share(deck, peer(1), replace(share, share=b"\x01" + bytes(31)))


def test_8_5_a_sealed_share_checked_again_is_worked_out_once_and_refused_for_another_audience(
        monkeypatch: pytest.MonkeyPatch) -> None:
    t = table(3, b"kept seals")
    chain, _ = t.shuffle(1)
    deck = chain.deck()
    sealed = make_sealed_share(t.keys[peer(0)], deck, 4, peer(1), t.source)
    calls = counted(monkeypatch, proofs, "mul")
    verify_sealed_share(deck, peer(0), peer(1), sealed)
    worked = len(calls)
    verify_sealed_share(deck, peer(0), peer(1), sealed)  # (the other seats' check, or the audit's)
    assert worked > 0 and len(calls) == worked
    for _ in range(2):  # (shown as sealed to seat 3: the proof names seat 2's key)
        with pytest.raises(InvalidProof):
            verify_sealed_share(deck, peer(0), peer(2), sealed)
    assert len(calls) == 2 * worked


def test_8_7_an_opening_checked_again_is_worked_out_once_and_a_false_one_refused_each_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    t = table(2, b"kept openings")
    chain, openings = t.shuffle(1)
    sender, opening = next((s, o) for s, o in openings if o.step == 1)
    calls = counted(monkeypatch, shuffle, "rerandomize")
    chain.verify_opening(sender, opening)
    chain.verify_opening(sender, opening)
    assert len(calls) == 1
    swapped = (opening.scalars[1], opening.scalars[0], *opening.scalars[2:])
    false = replace(opening, scalars=swapped)
    monkeypatch.setattr(shuffle, "shuffle_commitment", lambda *args: chain.steps[1].commit)  # (it opens its commitment)
    for _ in range(2):
        with pytest.raises(ShuffleMismatch, match="step 1 position 0 is not a re-encryption"):
            chain.verify_opening(sender, false)
    assert len(calls) == 2  # (its answer, position 0, is kept too: it is the same every time)
