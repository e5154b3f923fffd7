"""R10 at the table: what a log shows an eavesdropper is exactly what everybody saw.

Anyone may read a fairness log, so the shares in it must never add up to a card that
was not turned face up for everybody. The test plays whole games over the in-memory
network and replays one log the way a curious reader would: after every record it
combines every plain decryption share published so far (§8.5) and checks that each card
it can read is a card the table had revealed to all at that point, with that face.
Cards shown to several players in private (a peeked card later spied, say) are the
case that needs sealed shares.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest

from p2p.deck import CardShares, LocalTable, SeededSource
from p2p.deck.group import IDENTITY, add, sub
from p2p.roster import TableRules
from engine import ALL, Reveal
from p2p.table import Step, TableMachine
from tests.deck_support import game
from tests.tablesim import TableNetwork


def _readable(deck, position: int, shares: dict[bytes, bytes]) -> int | None:
    """The card an eavesdropper reads from published shares, if it holds all of them."""
    if len(shares) < len(deck.joint.game.seats):
        return None
    total = IDENTITY
    for d in shares.values():
        total = add(total, d)
    return deck.index_of(sub(deck.ciphertexts[position].c2, total))


class _Recorder(TableMachine):
    """An observer that notes the audience of every reveal it opens, by need number."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.audience: dict[int, int] = {}

    def _open_needs(self, step: Step) -> None:
        super()._open_needs(step)
        for need, work in self._work.items():
            if isinstance(need, Reveal):
                self.audience.setdefault(work.number, need.to)


@pytest.mark.parametrize("players,seed", [(3, 11), (4, 12), (5, 13)])
def test_R10_a_log_shows_no_card_that_was_not_turned_face_up(players: int, seed: int) -> None:
    net = TableNetwork(players, seed, rules=TableRules(target=40))
    net.run()
    table = net.tables[0]
    assert table.machine.finished
    observer = _Recorder(game_id=table.machine.context.game_id, seats=table.machine.seats, rules=net.roster.rules, me=None)
    published: dict[tuple[bytes, int], dict[bytes, bytes]] = defaultdict(dict)
    completed_by: list[tuple[int, int, int]] = []  # (need, card read, face read) for every card the log gives away
    sealed_seen = 0
    delivered = iter(table.log)
    for is_side, envelope in table.records:
        if not is_side:
            observer.deliver(next(delivered), 0.0)
            continue
        observer.receive_side(observer.seats.index(envelope.sender), envelope, 0.0)
        sealed_seen += len(envelope.inner.get("sealed", ()))
        assert observer._round is not None
        decks = {deck.chain: deck for deck, _ in observer._round.location.values()}
        for item in envelope.inner["items"]:
            shares = published[(item["chain"], item["position"])]
            before = len(shares)
            shares[envelope.sender] = item["share"]
            if before < players == len(shares):
                face = _readable(decks[item["chain"]], item["position"], shares)
                assert face is not None
                completed_by.append((item["need"], item["position"], face))
    assert completed_by and sealed_seen > 0  # cards were read, and some were shown privately twice
    for need, position, _ in completed_by:
        assert observer.audience[need] == ALL, f"need {need} (private) let anyone read the card at position {position}"


def test_R10_share_plan_a_card_shown_to_two_players_stays_hidden_from_the_rest() -> None:
    """§8.5 plan, one card: private to A, then to B (A's share sealed to B), then to all."""
    t = LocalTable(game(4), SeededSource(b"plan"))
    chain, _ = t.shuffle(1)
    deck = chain.deck()
    a, b = deck.joint.game.seats[0], deck.joint.game.seats[2]
    face = t.reveal(deck, 5, a)
    plan: CardShares = t._plans[(deck.chain, 5)]
    assert plan.hidden == (a,)
    assert t.reveal(deck, 5, b) == face  # B reads it from A's sealed share
    assert plan.hidden == (a,) and a not in plan.published  # nobody else can
    assert t.reveal(deck, 5, a) == face  # A again: nothing owed
    assert t.reveal(deck, 5) == face  # to all: only A's plain share was still owed
    assert set(plan.published) == set(deck.joint.game.seats)
