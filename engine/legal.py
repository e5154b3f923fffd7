"""The intents a seat may send now, enumerated from its view.

Used by the `random` bot, by tests (every listed intent must be accepted) and by the
terminal client (what to offer). Legality depends only on public state, so any seat's
view gives the same answer for the same seat.

`legal_intents` lists everything except immediate discards; `legal_snaps` lists the
snaps on the current top card. (A snap naming an older top card is also accepted, as
"not the fastest", but it is never a good idea, so it is not listed.)
"""

from __future__ import annotations

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
from engine.skills import Power
from engine.view import SeatView


def legal_intents(view: SeatView) -> list[Intent]:
    """Every intent other than a snap that the engine would accept from `view.seat` now."""
    seat = view.seat
    if view.awaiting_table:
        return []
    phase = view.phase
    if phase is Phase.PEEK:
        return [] if view.ready[seat] else [Ready(seat)]
    if not view.my_turn:
        return []
    own = [slot for slot, _, _ in view.cards(seat)]
    if phase is Phase.START:
        out: list[Intent] = [Draw(seat)]
        if view.top is not None:
            out += [TakeDiscard(seat, view.top, slot) for slot in own]
        if view.caller is None and not view.snapped[seat]:  # (R5: before anything else)
            out.append(CallBandit(seat))
        return out
    if phase is Phase.DRAWN:
        return [Discard(seat), *(Exchange(seat, slot) for slot in own)]
    if phase is Phase.DECIDE:
        return [DecideSwap(seat, False), DecideSwap(seat, True)] if view.looked_in_place else [DecideSwap(seat, False)]
    # Phase.POWER
    out = [SkipPower(seat)]
    power = view.power
    if power is Power.PEEK:
        out += [Peek(seat, slot) for slot in own]
        return out
    theirs = [(owner, slot) for owner in range(view.players) if owner != seat for slot, _, _ in view.cards(owner)]
    if power is Power.SPY:
        out += [Spy(seat, owner, slot) for owner, slot in theirs]
    elif power is Power.SWAP:
        out += [Swap(seat, mine, owner, slot) for mine in own for owner, slot in theirs]
    elif power is Power.LOOK_SWAP:
        out += [LookSwap(seat, mine, owner, slot) for mine in own for owner, slot in theirs]
    return out


def legal_snaps(view: SeatView) -> list[Snap]:
    """Every immediate discard `view.seat` may try on the current top card."""
    if not view.can_snap:
        return []
    seat = view.seat
    top = view.top
    assert top is not None  # can_snap implies a discard pile
    own = [slot for slot, _, _ in view.cards(seat)]
    out = [Snap(seat, top, seat, slot) for slot in own]
    for owner in range(view.players):
        if owner != seat:
            out += [Snap(seat, top, owner, slot, give) for slot, _, _ in view.cards(owner) for give in own]
    return out
