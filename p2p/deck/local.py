"""Every seat of one table in one process: the card protocol end to end, without a network.

Theory of operation. `LocalTable` plays all seats honestly through the public API and the
wire forms: each message is made by its sender, passed through `to_wire`/`from_wire`, and
verified once by a single observer (exactly what one receiving peer does). It serves the
simulator, the tests and `bench/deck.py`, so the code they exercise is the code a live
peer runs. It holds every seat's secret key, so it is never used at a live table.
"""

from __future__ import annotations

from collections.abc import Sequence

from .beacon import Beacon, BeaconCommit, BeaconReveal, BeaconSeed
from .context import GameContext
from .keys import DeckKeys, KeySetup, KeyShare
from .reveal import CardShares, Reveal, SealedShare, Share, make_sealed_share, make_share
from .sampling import ByteSource
from .shuffle import Deck, ShuffleChain, ShuffleOpening, ShuffleStep


class LocalTable:
    """All seats of `game`, with keys set up (every key share made and verified)."""

    def __init__(self, game: GameContext, source: ByteSource) -> None:
        self.game = game
        self.source = source
        self.keys = {p: DeckKeys.generate(game, p, source) for p in game.seats}
        setup = KeySetup(game)
        for p in game.seats:
            setup.receive(p, KeyShare.from_wire(self.keys[p].key_share(source).to_wire(), p))
        self.joint = setup.joint()
        self._plans: dict[tuple[bytes, int], CardShares] = {}

    def shuffle(
        self, round: int, number: int = 0, cards: Sequence[int] | None = None
    ) -> tuple[ShuffleChain, list[tuple[bytes, ShuffleOpening]]]:
        """Run one chain: each seat makes its step, the observer validates it.

        Returns the observer's complete chain and every seat's opening."""
        maker = ShuffleChain(self.joint, round, number, cards)
        observer = ShuffleChain(self.joint, round, number, cards)
        openings = []
        for p in self.game.seats:
            step, opening = maker.make_step(p, self.source)
            maker.receive(p, step)
            observer.receive(p, ShuffleStep.from_wire(step.to_wire(), p))
            openings.append((p, ShuffleOpening.from_wire(opening.to_wire(), p)))
        return observer, openings

    def reveal(self, deck: Deck, position: int, audience: bytes | None = None) -> int:
        """Reveal one card to `audience` (None: everyone); returns what the audience learns.

        Every reveal of one card follows the card's share plan (§8.5), as at a table."""
        plan = self._plans.setdefault((deck.chain, position), CardShares(deck, position))
        reveal = Reveal(deck, position, audience, plan)
        for p in reveal.plain_from:
            share = make_share(self.keys[p], deck, position, self.source)
            reveal.receive(p, Share.from_wire(share.to_wire(), p))
        for p in reveal.sealed_from:
            assert audience is not None
            sealed = make_sealed_share(self.keys[p], deck, position, audience, self.source)
            reveal.receive(p, SealedShare.from_wire(sealed.to_wire(), p))
        return reveal.card(None if audience is None else self.keys[audience])

    def beacon(self, round: int, used: frozenset[bytes] = frozenset()) -> tuple[BeaconSeed, frozenset[bytes]]:
        """Run one round's beacon; returns the seed and the nonces used so far in the game."""
        beacon = Beacon(self.game, round, used)
        reveals = {}
        for p in self.game.seats:
            commit, reveals[p] = Beacon.draw(self.game, round, p, self.source)
            beacon.receive_commit(p, BeaconCommit.from_wire(commit.to_wire(), p))
        for p in self.game.seats:
            beacon.receive_reveal(p, BeaconReveal.from_wire(reveals[p].to_wire(), p))
        return beacon.seed(), beacon.nonces
