"""The `normal` bot: a sensible player with perfect memory.

Its memory is its view (the engine remembers every card the seat has seen and where it
went). A card it does not know is estimated at the mean value of the faces it cannot
place (`SeatView.unseen_faces`). With that estimate it

- takes the discard when it is clearly better than its worst slot, else draws;
- keeps a drawn card that improves its worst slot, else discards it to use the power;
- peeks at its unknown cards, spies on the opponent closest to calling Bandit, swaps a
  known high card for a low or unknown opponent card, and look-&-swaps when it gains;
- snaps only cards it knows to be identical to the top (its own, or an opponent's while
  giving away its worst card), when that lowers its total; at the start of its own turn
  it holds such a snap until it has announced Bandit, if it means to (R5: the call
  comes before anything else, a snap of its own included);
- calls Bandit when its estimated total is low and clearly below everyone else's;
  both bars relax with every round of turns, so rounds always end.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.bots.base import SnapDelay
from engine.events import (
    CallBandit,
    DecideSwap,
    Discard,
    Draw,
    Exchange,
    Intent,
    LookSwap,
    Peek,
    Ready,
    SkipPower,
    Snap,
    Spy,
    Swap,
    TakeDiscard,
)
from engine.phases import Phase
from engine.prng import Prng
from engine.skills import Power
from engine.view import SeatView


class _Estimate:
    """This seat's picture of the table: expected value of every occupied slot.

    Opponents' cards are only looked up when a decision needs them."""

    __slots__ = ("_view", "mean", "mine", "_others", "_leader")

    def __init__(self, view: SeatView) -> None:
        self._view = view
        count, total = view.unseen_stats()
        self.mean = total / count if count else 0.0
        self.mine = view.cards(view.seat)  # (slot, card, known value or None)
        self._others: dict[int, list[tuple[int, int, int | None]]] | None = None
        self._leader: list[int] | None = None

    @property
    def others(self) -> dict[int, list[tuple[int, int, int | None]]]:
        if self._others is None:
            view = self._view
            self._others = {owner: view.cards(owner) for owner in range(view.players) if owner != view.seat}
        return self._others

    def total(self, cards: list[tuple[int, int, int | None]]) -> float:
        mean = self.mean
        return sum(mean if v is None else v for _, _, v in cards)

    def worst_own(self) -> tuple[int, float]:
        """(slot, expected value) of the own card to get rid of first; between equal
        expectations an unknown card goes first (a known card is worth keeping)."""
        best_slot, best, best_key = -1, 0.0, (float("-inf"), False)
        mean = self.mean
        for slot, _, v in self.mine:
            e = mean if v is None else v
            key = (e, v is None)
            if key > best_key:
                best_slot, best, best_key = slot, e, key
        return best_slot, best

    def leader(self) -> list[int]:
        """Opponents ordered by estimated total, lowest (most dangerous) first."""
        if self._leader is None:
            others = self.others
            self._leader = sorted(others, key=lambda o: (self.total(others[o]), o))
        return self._leader


@dataclass(frozen=True, slots=True)
class NormalBot:
    """See the module docstring. The numbers are the tunable parts of its judgement."""

    name: str = "normal"
    call_total: float = 4.0  # call Bandit at or below this estimated total ...
    call_lead: float = 5.0  # ... when it is at least this much below every opponent
    call_patience: float = 1.0  # each full round of turns adds this to call_total, takes it from call_lead
    take_gain: float = 6.0  # take the discard when it beats the worst slot by this
    keep_gain: float = 1.0  # keep a drawn card when it beats the worst slot by this
    power_worth: float = 3.0  # prefer using a power to keeping a card gaining less
    snap_delay: SnapDelay = field(default_factory=SnapDelay)

    # --- turn decisions ------------------------------------------------------------------

    def act(self, view: SeatView, rng: Prng) -> Intent:
        seat = view.seat
        phase = view.phase
        if phase is Phase.PEEK:
            return Ready(seat)
        est = _Estimate(view)
        if phase is Phase.START:
            return self._start(view, est)
        if phase is Phase.DRAWN:
            return self._drawn(view, est)
        if phase is Phase.DECIDE:
            return self._decide(view)
        return self._power(view, est)

    def _start(self, view: SeatView, est: _Estimate) -> Intent:
        seat = view.seat
        if view.caller is None and not view.snapped[seat] and self._should_call(view, est):
            return CallBandit(seat)
        top, top_value = view.top, view.top_value
        slot, worst = est.worst_own()
        if top is not None and top_value is not None and worst - top_value >= self.take_gain:
            return TakeDiscard(seat, top, slot)
        return Draw(seat)

    def _should_call(self, view: SeatView, est: _Estimate) -> bool:
        mine = est.total(est.mine)
        # Impatience: every full round of turns raises the bar and lowers the lead needed.
        rounds_played = view.turns_in_round // view.players
        if mine > self.call_total + self.call_patience * rounds_played:
            return False
        lowest_other = min(est.total(cards) for cards in est.others.values())
        return mine + self.call_lead - self.call_patience * rounds_played <= lowest_other

    def _calls_first(self, view: SeatView, est: _Estimate) -> bool:
        """Whether this seat is at the start of its turn and will announce Bandit: a snap
        of its own now would forbid the call (R5), so any snap waits until after it."""
        return (view.phase is Phase.START and view.turn_seat == view.seat and view.caller is None
                and self._should_call(view, est))

    def _drawn(self, view: SeatView, est: _Estimate) -> Intent:
        seat = view.seat
        hand = view.hand
        face = view.face(hand) if hand is not None else None
        if face is None:  # cannot happen once the draw is revealed; be safe
            return Discard(seat)
        slot, worst = est.worst_own()
        gain = worst - view.skills.values[face]
        power = view.skills.powers[face]
        if gain < self.keep_gain:
            return Discard(seat)
        if power is not None and gain < self.power_worth and self._power_useful(power, est):
            return Discard(seat)  # the power is worth more than the small gain
        return Exchange(seat, slot)

    @staticmethod
    def _power_useful(power: Power, est: _Estimate) -> bool:
        if power is Power.PEEK:
            return any(v is None for _, _, v in est.mine)
        return True

    def _power(self, view: SeatView, est: _Estimate) -> Intent:
        seat = view.seat
        power = view.power
        mean = est.mean
        if power is Power.PEEK:
            for slot, _, v in est.mine:
                if v is None:
                    return Peek(seat, slot)
            return SkipPower(seat)
        if power is Power.SPY:
            for owner in est.leader():
                for slot, _, v in est.others[owner]:
                    if v is None:
                        return Spy(seat, owner, slot)
            return SkipPower(seat)
        # Swap and look & swap: give away the worst own card for a low opponent card.
        own_slot, worst = est.worst_own()
        low = self._lowest_known_other(est)
        if power is Power.SWAP:
            known_mine = [(v, slot) for slot, _, v in est.mine if v is not None]
            if known_mine:
                high, high_slot = max(known_mine)
                if low is not None and low[0] < high - 1:
                    return Swap(seat, high_slot, low[1], low[2])
                if high > mean + 2:
                    target = self._unknown_other(est)
                    if target is not None:
                        return Swap(seat, high_slot, target[0], target[1])
            if low is not None and low[0] < mean - 2:
                for slot, _, v in est.mine:
                    if v is None:
                        return Swap(seat, slot, low[1], low[2])
            return SkipPower(seat)
        # Power.LOOK_SWAP
        if low is not None and low[0] < worst:
            return LookSwap(seat, own_slot, low[1], low[2])
        target = self._unknown_other(est)
        if target is not None:
            return LookSwap(seat, own_slot, target[0], target[1])
        return SkipPower(seat)

    def _decide(self, view: SeatView) -> Intent:
        seat = view.seat
        looked = view.looked
        if looked is None or not view.looked_in_place:
            return DecideSwap(seat, False)
        own_slot, owner, slot = looked
        mine = view.value(view.tableau(seat)[own_slot])  # type: ignore[arg-type]
        theirs = view.value(view.tableau(owner)[slot])  # type: ignore[arg-type]
        return DecideSwap(seat, mine is not None and theirs is not None and theirs < mine)

    @staticmethod
    def _lowest_known_other(est: _Estimate) -> tuple[int, int, int] | None:
        """(value, owner, slot) of the lowest opponent card this seat knows."""
        best = None
        for owner in est.leader():
            for slot, _, v in est.others[owner]:
                if v is not None and (best is None or v < best[0]):
                    best = (v, owner, slot)
        return best

    @staticmethod
    def _unknown_other(est: _Estimate) -> tuple[int, int] | None:
        """An opponent card this seat does not know, from the lowest-scoring opponent."""
        for owner in est.leader():
            for slot, _, v in est.others[owner]:
                if v is None:
                    return owner, slot
        return None

    # --- immediate discards --------------------------------------------------------------

    def snap(self, view: SeatView, rng: Prng) -> Snap | None:
        if not view.can_snap:
            return None
        matches = view.known_matches()
        if not matches:
            return None
        seat = view.seat
        top = view.top
        assert top is not None
        est = _Estimate(view)
        if self._calls_first(view, est):
            return None  # (offered again once the call is made)
        snapped = view.snapped
        count = len(est.mine)
        best: Snap | None = None
        best_gain = 0.0
        give_slot, give_value = est.worst_own()
        for owner, slot, card in matches:
            if owner == seat:
                gain = float(view.value(card))  # type: ignore[arg-type]
                snap = Snap(seat, top, seat, slot)
            else:
                gain = give_value
                snap = Snap(seat, top, owner, slot, give_slot)
            if count == 1:  # the last card leaves: a penalty card replaces it
                gain -= est.mean
            # Others who know the card may race for it; losing costs a penalty card.
            rivals = sum(1 for s in view.seen_by(card) if s != seat and not snapped[s])
            if rivals:
                chance = 1.0 / (rivals + 1)
                gain = chance * gain - (1.0 - chance) * est.mean
            if gain > best_gain:
                best, best_gain = snap, gain
        return best
