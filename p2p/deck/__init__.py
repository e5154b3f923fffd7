"""Card cryptography: commit-reveal shuffling with verifiable reveals (protocol.md §8).

Sans-I/O: pure objects and functions, fed with delivered messages; randomness only from an
explicitly passed byte source. A game runs, in order:

    game   = GameContext(game_id, seats)                  # §8.2
    keys   = DeckKeys.generate(game, me, os.urandom)      # §8.3, send keys.key_share(...)
    setup  = KeySetup(game); setup.receive(peer, share)…  # every seat, own included
    joint  = setup.joint()
    beacon = Beacon(game, round)                          # §8.6, first player, tie-break salt
    chain  = ShuffleChain(joint, round)                   # §8.4, make_step on our turn
    deck   = chain.deck()
    reveal = Reveal(deck, position, audience, plan)       # §8.5, make_share / make_sealed_share
    verify_round_opening([chain, …], openings)            # §8.7 at round end

Errors are `DeckError` subclasses carrying the section, the failed check and the peer.
"""

from .beacon import Beacon, BeaconCommit, BeaconReveal, BeaconSeed, beacon_commitment
from .context import GameContext
from .errors import (
    CardMismatch,
    CommitmentMismatch,
    DeckError,
    InvalidPoint,
    InvalidProof,
    MalformedMessage,
    ProtocolViolation,
    ShuffleMismatch,
    UsageError,
)
from .keys import DeckKeys, JointKey, KeySetup, KeyShare, verify_key_share
from .local import LocalTable
from .opening import verify_round_opening
from .proofs import Proof
from .reveal import (
    CardLedger,
    CardShares,
    Reveal,
    SealedShare,
    Share,
    make_sealed_share,
    make_share,
    unseal,
    verify_sealed_share,
    verify_share,
)
from .sampling import ByteSource, SeededSource
from .shuffle import Ciphertext, Deck, ShuffleChain, ShuffleOpening, ShuffleStep, chain_id, shuffle_commitment

__all__ = [
    "Beacon",
    "BeaconCommit",
    "BeaconReveal",
    "BeaconSeed",
    "ByteSource",
    "CardLedger",
    "CardShares",
    "CardMismatch",
    "Ciphertext",
    "CommitmentMismatch",
    "Deck",
    "DeckError",
    "DeckKeys",
    "GameContext",
    "InvalidPoint",
    "InvalidProof",
    "JointKey",
    "KeySetup",
    "KeyShare",
    "LocalTable",
    "MalformedMessage",
    "Proof",
    "ProtocolViolation",
    "Reveal",
    "SeededSource",
    "SealedShare",
    "Share",
    "ShuffleChain",
    "ShuffleMismatch",
    "ShuffleOpening",
    "ShuffleStep",
    "UsageError",
    "beacon_commitment",
    "chain_id",
    "make_sealed_share",
    "make_share",
    "shuffle_commitment",
    "verify_key_share",
    "verify_round_opening",
    "unseal",
    "verify_sealed_share",
    "verify_share",
]
