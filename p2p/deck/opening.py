"""The round opening: the *reveal* half of commit-reveal shuffling (protocol.md §8.7).

Theory of operation. At the end of a round every peer publishes the `ShuffleOpening` of
each step it made in each of the round's chains (the deal shuffle and any reshuffles).
Anyone — every peer, and later the auditor replaying the log — then checks, chain by
chain and step by step in seat order:

1. the opening's commitment recomputes to the one published with the step;
2. recomputing the step from its input with the opened π and r gives exactly the
   published output deck: every step is a re-encryption and permutation of its input;
3. composing the permutations maps each final position back to a card of the chain's
   public input, so every card of the round is re-derived: the deck was a permutation of
   the canonical deck (or of the discard pile that was reshuffled).

The first failure names the peer and the step. Because the input of each chain is a
public list of known cards, 1–3 also prove that no card was duplicated or replaced.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from .errors import ProtocolViolation, UsageError
from .shuffle import ShuffleChain, ShuffleOpening

SECTION: Final = "§8.7"


def verify_round_opening(
    chains: Sequence[ShuffleChain], openings: Iterable[tuple[bytes, ShuffleOpening]]
) -> dict[bytes, tuple[int, ...]]:
    """Verify every opening of one round; return, per chain id, the card at each final position.

    `chains`: the round's complete chains (deal first, then reshuffles in order).
    `openings`: (sender, opening) pairs as delivered. Raises the first violation found,
    chains in the given order, steps in seat order."""
    if not chains:
        raise UsageError(SECTION, "chains", "a round has at least its deal chain")
    if len({c.round for c in chains}) != 1 or len({c.chain_id for c in chains}) != len(chains):
        raise UsageError(SECTION, "chains", "chains must be distinct chains of one round")
    received: dict[bytes, dict[bytes, ShuffleOpening]] = {c.chain_id: {} for c in chains}
    for sender, opening in openings:
        per_chain = received.get(opening.chain)
        if per_chain is None:
            raise ProtocolViolation(SECTION, "wrong-chain", "opening of a chain not in this round", peer=sender)
        if sender in per_chain:
            raise ProtocolViolation(SECTION, "duplicate-opening", "a second opening for one chain", peer=sender)
        per_chain[sender] = opening
    return {c.chain_id: c.cards_by_position(received[c.chain_id]) for c in chains}
