"""Shared helpers for the card-protocol tests (tests/test_deck_*.py)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest

from p2p.deck import GameContext, LocalTable, SeededSource, ShuffleChain, ShuffleOpening, ShuffleStep
from p2p.deck.group import IDENTITY, add, mul, mul_base, sub
from p2p.deck.sampling import random_permutation, random_scalar
from p2p.deck.hashing import u32
from p2p.deck.shuffle import Ciphertext, rerandomize, shuffle_commitment
from p2p.deck.shuffle_proof import prove_shuffle

# A point of order 8 on edwards25519: adding it to a valid point leaves the prime-order subgroup.
TORSION8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")


def peer(i: int) -> bytes:
    return hashlib.sha256(b"peer %d" % i).digest()


def game(n_seats: int, cards: int = 50, game_id: bytes = b"test game") -> GameContext:
    return GameContext(game_id, tuple(peer(i) for i in range(n_seats)), cards)


def table(n_seats: int, seed: bytes = b"seed", cards: int = 50) -> LocalTable:
    return LocalTable(game(n_seats, cards), SeededSource(seed))


def honest_steps_until(t: LocalTable, chain: ShuffleChain, stop: int) -> list[tuple[bytes, ShuffleOpening]]:
    """Let seats 0..stop-1 shuffle honestly into `chain`; return their openings."""
    openings = []
    for p in t.game.seats[:stop]:
        step, opening = chain.make_step(p, t.source)
        chain.receive(p, step)
        openings.append((p, opening))
    return openings


def cheating_step(
    t: LocalTable, chain: ShuffleChain, tamper: Callable[[list[Ciphertext]], None]
) -> tuple[ShuffleStep, ShuffleOpening]:
    """The next seat's honest step, then `tamper(deck_list)` edits its output deck; the
    commitment, the proof and the opening stay those of the honest (π, r, salt): what a
    cheater publishes, since it cannot prove the deck it sends (§8.4)."""
    p = chain.expected
    k = len(chain.steps)
    n = len(chain.cards)
    perm = random_permutation(t.source, n)
    scalars = tuple(random_scalar(t.source) for _ in range(n))
    salt = t.source(32)
    previous = chain.steps[-1].deck if chain.steps else chain.input_deck
    deck = list(rerandomize(previous, perm, scalars, t.joint.point))
    proof = prove_shuffle((chain.chain_id, u32(k), p), t.joint.point, previous, deck, perm, scalars, t.source)
    tamper(deck)
    step = ShuffleStep(
        chain.chain_id, k, tuple(deck), shuffle_commitment(chain.chain_id, k, p, perm, scalars, salt), proof
    )
    return step, ShuffleOpening(chain.chain_id, k, perm, scalars, salt)


def record_unproven(chain: ShuffleChain, sender: bytes, step: ShuffleStep) -> None:
    """Record `step` as if its proof had verified (it cannot): for the checks behind the
    proof, the reveal's and the opening's (§8.5, §8.7), on a chain no honest peer builds."""
    chain._own = step  # the chain's own step skips its proof check
    chain.receive(sender, step)


def encrypt(t: LocalTable, point: bytes, seed: bytes = b"r") -> Ciphertext:
    r = random_scalar(SeededSource(seed))
    return Ciphertext(mul_base(r), add(point, mul(r, t.joint.point)))


def reencrypt(t: LocalTable, c: Ciphertext, seed: bytes = b"r2") -> Ciphertext:
    r = random_scalar(SeededSource(seed))
    return Ciphertext(add(c.c1, mul_base(r)), add(c.c2, mul(r, t.joint.point)))


def decrypt_with_all_keys(t: LocalTable, c: Ciphertext) -> bytes:
    """M = c2 − Σ x_j·c1, using every seat's secret (the test sees everything)."""
    total = IDENTITY
    for k in t.keys.values():
        total = add(total, mul(k.secret, c.c1))
    return sub(c.c2, total)


def counted(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[int]:
    """Calls of `module.name` from now on, one entry each (a kept answer makes none)."""
    calls: list[int] = []
    real = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *args, **kw: calls.append(1) or real(*args, **kw))
    return calls
