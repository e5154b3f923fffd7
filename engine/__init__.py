"""The rules of Bandit as a pure, deterministic state machine (no I/O, clocks, randomness or crypto).

Drive a `Game` with events (`engine.events`) in the agreed order; answer its `needs`
(`engine.needs`) with `Revealed` / `Reshuffled` facts; read what a seat knows with
`Game.view(seat)`. Refused events raise an `EngineError` naming the rule and leave the
game unchanged. Bots (`engine.bots`) decide from a view; `engine.simulator` plays whole
games with an all-knowing oracle as the table.
"""

from engine.bots import BOTS, Bot, NormalBot, RandomBot, SnapDelay, make_bot
from engine.errors import (
    AwaitingTable,
    BadTarget,
    BanditAlreadyCalled,
    EngineError,
    FaceConflict,
    MalformedEvent,
    OutOfTurn,
    RoundStalled,
    RuleViolation,
    SkillsError,
    SnapLimit,
    StaleView,
    UnexpectedFact,
    Where,
    Who,
    Words,
    WrongPhase,
)
from engine.events import (
    ALL,
    CallBandit,
    DecideSwap,
    Discard,
    Draw,
    Event,
    Exchange,
    Fact,
    Intent,
    LookSwap,
    Peek,
    PeekBarrierExpired,
    Ready,
    Reshuffled,
    Revealed,
    RoundStarted,
    SkipPower,
    Snap,
    Spy,
    Swap,
    TakeDiscard,
    TurnTimedOut,
)
from engine.game import CALLER_BONUS, DEFAULT_TARGET, Game, Zones, final_turn_seats
from engine.legal import legal_intents, legal_snaps
from engine.needs import Need, Reshuffle, Reveal
from engine.notes import (
    BanditCalled,
    GameEnded,
    Note,
    PenaltyDrawn,
    RoundEnded,
    SnapOutcome,
    SnapResolved,
    TimerFallback,
    TurnStarted,
)
from engine.phases import SNAP_PHASES, TURN_PHASES, Phase
from engine.prng import Prng
from engine.simulator import GameResult, Oracle, Simulation, Summary, play_game, simulate
from engine.skills import DEFAULT_SKILLS, MAX_PLAYERS, MIN_PLAYERS, CardKind, Power, Skills, load_skills
from engine.view import CardView, SeatView, ViewSnapshot

__all__ = [
    # game
    "Game", "Phase", "Zones", "TURN_PHASES", "SNAP_PHASES", "CALLER_BONUS", "DEFAULT_TARGET", "final_turn_seats",
    # events in
    "Event", "Intent", "Fact", "ALL",
    "Ready", "CallBandit", "Draw", "Discard", "Exchange", "TakeDiscard",
    "Peek", "Spy", "Swap", "LookSwap", "DecideSwap", "SkipPower", "Snap",
    "RoundStarted", "PeekBarrierExpired", "TurnTimedOut", "Revealed", "Reshuffled",
    # needs and notes out
    "Need", "Reveal", "Reshuffle",
    "Note", "TurnStarted", "BanditCalled", "TimerFallback", "SnapResolved", "SnapOutcome",
    "PenaltyDrawn", "RoundEnded", "GameEnded",
    # views
    "SeatView", "ViewSnapshot", "CardView", "legal_intents", "legal_snaps",
    # errors
    "EngineError", "MalformedEvent", "AwaitingTable", "UnexpectedFact", "FaceConflict",
    "RuleViolation", "OutOfTurn", "WrongPhase", "BadTarget", "SnapLimit", "BanditAlreadyCalled",
    "SkillsError", "RoundStalled", "StaleView", "Who", "Where", "Words",
    # deck
    "Skills", "CardKind", "Power", "DEFAULT_SKILLS", "load_skills", "MIN_PLAYERS", "MAX_PLAYERS",
    # bots, randomness, simulation
    "Bot", "BOTS", "NormalBot", "RandomBot", "SnapDelay", "make_bot", "Prng",
    "Oracle", "Simulation", "GameResult", "Summary", "play_game", "simulate",
]  # fmt: skip
