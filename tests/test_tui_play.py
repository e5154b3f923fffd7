"""Whole games played from the keyboard: every intent a good player makes is typed as
keys, and the screen never shows a card's value outside the moments the rules allow
(R3, R4, R5, R6, R8, R10)."""

from __future__ import annotations

import pytest
import trio
import trio.testing
from tui_support import LocalSession, UiDriver

from engine import (
    CallBandit,
    DecideSwap,
    Discard,
    Draw,
    Exchange,
    Intent,
    LookSwap,
    NormalBot,
    Peek,
    Phase,
    Prng,
    Ready,
    SkipPower,
    Snap,
    Spy,
    Swap,
    TakeDiscard,
    legal_intents,
)
from cli.tui.canvas import Canvas
from cli.tui.cards import card_width
from cli.tui.keymap import slot_keys
from cli.tui.model import TableModel
from cli.tui.table_ui import BOTTOM_PEEK_S, FLASH_S, Overlay, TableScene


def keys_for(intent: Intent, model: TableModel, rng: Prng) -> list[str]:
    """The keystrokes that make `intent` (the keymap of cli.tui.keymap)."""
    seat = lambda owner: str(model.position(owner))  # noqa: E731
    if isinstance(intent, Ready):
        return ["enter"]
    if isinstance(intent, CallBandit):
        return ["b"]
    if isinstance(intent, Draw):
        return ["x"]
    if isinstance(intent, (Discard, SkipPower)):
        return ["z"]
    if isinstance(intent, DecideSwap):
        return ["x" if intent.swap else "z"]
    if isinstance(intent, Exchange):
        return list(slot_keys(intent.slot))
    if isinstance(intent, TakeDiscard):
        return ["c", *slot_keys(intent.slot)]
    if isinstance(intent, Peek):
        return list(slot_keys(intent.slot))
    if isinstance(intent, Spy):
        return [seat(intent.owner), *slot_keys(intent.slot)]
    if isinstance(intent, (Swap, LookSwap)):
        mine, theirs = list(slot_keys(intent.own_slot)), [seat(intent.owner), *slot_keys(intent.slot)]
        return mine + theirs if rng.chance(0.5) else theirs + mine  # either order works
    assert isinstance(intent, Snap)
    if intent.owner == intent.seat:
        return ["space", *slot_keys(intent.slot)]
    assert intent.give is not None
    return ["space", seat(intent.owner), *slot_keys(intent.slot), *slot_keys(intent.give)]


def tableau_cards_on_screen(canvas: Canvas, model: TableModel) -> int:
    """How many tableau cards the drawn screen shows with their value as a look."""
    cells = sum(1 for y in range(1, 13) for x in range(80) if "card.look" in canvas.style_at(x, y))
    return cells // card_width(model.skills)


class Witness:
    """Independent bookkeeping of when this seat may see each tableau card's value."""

    def __init__(self) -> None:
        self.round = -1
        self.since: dict[int, float] = {}  # card -> when it became known or was looked at
        self.bottom: set[int] = set()
        self.bottom_from: float | None = None

    def observe(self, model: TableModel, sent: list[Intent]) -> None:
        view = model.view
        if view.round != self.round:
            self.round, self.since, self.bottom, self.bottom_from = view.round, {}, set(), None
        for tableau in view.tableaux:
            for card in tableau:
                if card is not None and card.face is not None and card.card not in self.since:
                    self.since[card.card] = model.now
        for intent in sent:
            targets = []
            if isinstance(intent, Peek):
                targets = [(model.me, intent.slot)]
            elif isinstance(intent, Spy):
                targets = [(intent.owner, intent.slot)]
            elif isinstance(intent, LookSwap):
                targets = [(model.me, intent.own_slot), (intent.owner, intent.slot)]
            for owner, slot in targets:
                card = model.card_in(owner, slot)
                if card is not None:
                    self.since[card.card] = model.now

    def allowed(self, scene: TableScene) -> set[int]:
        model = scene.model
        view = model.view
        out = {c for c, t in self.since.items() if model.now - t < FLASH_S + 1e-9}
        if scene.bottom_until is not None:
            mine = view.tableaux[model.me]
            out |= {c.card for c in mine[2:4] if c is not None}
            if self.bottom_from is None:
                self.bottom_from = model.now
            assert model.now - self.bottom_from <= BOTTOM_PEEK_S  # R4.3: once, at most 10 s
        if view.phase is Phase.DECIDE and view.looked is not None and view.turn_seat == model.me:
            own, owner, slot = view.looked
            out |= {c.card for c in (model.card_in(model.me, own), model.card_in(owner, slot)) if c is not None}
        return out


async def play_from_keys(clock: trio.testing.MockClock, *, seed: int, players: int, memory_aid: bool) -> UiDriver:
    session = LocalSession(players, 0, seed=seed, target=40, think=(0.4, 0.9))
    bot = NormalBot()
    rng = Prng(seed)
    witness = Witness()
    typed: set[type] = set()
    async with trio.open_nursery() as nursery:
        await nursery.start(session.run)
        t = UiDriver(session, memory_aid=memory_aid)
        await t.settle()
        offered: tuple[int, int | None] = (-1, None)
        for _ in range(20000):
            scene = t.scene
            model = scene.model
            witness.observe(model, [])
            on_screen = {c for c in scene.shown if any(c == card.card for tab in model.view.tableaux
                                                          for card in tab if card is not None)}
            assert on_screen <= witness.allowed(scene), "a value is on screen outside a look"
            if not memory_aid and scene.overlay is None:
                canvas = scene.draw(80, 24)
                assert tableau_cards_on_screen(canvas, model) == len(on_screen)
                assert not any("card.remembered" in canvas.style_at(x, y) for y in range(24) for x in range(80))
            if t.ui.finished:
                break
            if scene.overlay in (Overlay.ROUND, Overlay.GAME):
                await t.press("enter")
                continue
            view = session.view()
            intent: Intent | None = None
            if (view.round, view.top) != offered:
                offered = (view.round, view.top)
                intent = bot.snap(view, rng)
            if intent is None and legal_intents(view):
                intent = bot.act(view, rng)
            if intent is None:
                clock.jump(0.3)
                await t.settle()
                continue
            looking = scene.bottom_until is not None and not isinstance(intent, Ready)
            sent = await t.press(*keys_for(intent, model, rng))
            assert sent == ([Ready(0)] if looking else []) + [intent], (intent, sent, t.message)
            typed.add(type(intent))
            witness.observe(t.scene.model, sent)
        else:
            raise AssertionError("the game did not end")
        nursery.cancel_scope.cancel()
    assert {Ready, Draw, Discard, Exchange, Snap} <= typed
    return t


@pytest.mark.parametrize("seed,players", [(3, 4), (8, 2), (21, 6)])
async def test_R10_a_whole_game_from_the_keyboard_shows_only_what_the_rules_allow(
        autojump_clock: trio.testing.MockClock, seed: int, players: int) -> None:
    t = await play_from_keys(autojump_clock, seed=seed, players=players, memory_aid=False)
    assert t.session.game.phase is Phase.OVER
    assert t.session.reports and all(r.audit_ok for r in t.session.reports[:-1])


async def test_memory_aid_shows_every_card_you_know(autojump_clock: trio.testing.MockClock) -> None:
    session = LocalSession(4, 0, seed=4)
    async with trio.open_nursery() as nursery:
        await nursery.start(session.run)
        t = UiDriver(session, memory_aid=True)
        await t.settle()
        await t.press("enter")
        for _ in range(40):
            autojump_clock.jump(1.0)
            await t.settle()
            scene = t.scene
            if scene.overlay is not None:
                break
            canvas = scene.draw(80, 24)
            shown = sum(1 for y in range(1, 13) for x in range(80)
                        if any(k in canvas.style_at(x, y) for k in ("card.look", "card.remembered")))
            known = sum(1 for card in scene.model.view.tableaux[0] if card is not None and card.face is not None)
            known += sum(1 for s in range(1, 4) for card in scene.model.view.tableaux[s]
                         if card is not None and card.face is not None)
            assert shown // card_width(scene.model.skills) == known
        nursery.cancel_scope.cancel()
