"""Engine-only games between bots, with an all-knowing oracle standing in for the table.

Theory of operation
-------------------
A live table answers the engine's needs with the joint encrypted deck; here an
`Oracle` does it: it shuffles each round's deck with the seeded PRNG, knows every face,
answers every reveal with the true face (so the simulator's engine knows all faces, and
each bot still only sees its own `SeatView`) and reshuffles retired cards (R7).

Each round: `RoundStarted` (first player drawn from the PRNG, as the beacon would), a
snap window on the first discard, `Ready` from every bot, then turns until the round is
scored. After every change of the discard pile's top card, of the turn, and after a
Bandit call, every bot is offered a snap; competing claims are ordered by a seeded
lottery (standing in for the Lamport order and its tie-break), so a later claim on the
same top card is "not the fastest" when an earlier one succeeded. Windows repeat while
the top keeps changing.

Everything is a pure function of (seed, bots, skills, target): same arguments, same
games. Game number g of a run uses the stream `Prng.derive(seed, g)`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.bots import Bot, make_bot
from engine.errors import EngineError, RoundStalled
from engine.events import Event, Fact, Ready, Revealed, RoundStarted, Snap
from engine.game import DEFAULT_TARGET, Game
from engine.needs import Need, Reveal
from engine.notes import Note, RoundEnded, SnapOutcome, SnapResolved
from engine.phases import SNAP_PHASES, TURN_PHASES, Phase
from engine.prng import Prng
from engine.skills import DEFAULT_SKILLS, Skills

MAX_TURNS_PER_ROUND = 2000
MAX_ROUNDS_PER_GAME = 1000
"""A game ends when a total reaches the target (R1); a deck whose totals do not rise
toward it (negative values, say) would be played for ever."""
"""Hard cap on turns in one simulated round; rounds end long before (bots call Bandit)."""


class Oracle:
    """The all-knowing table of a simulation: it knows the face of every card id."""

    __slots__ = ("_rng", "_size", "faces")

    def __init__(self, size: int, rng: Prng) -> None:
        self._rng = rng
        self._size = size
        self.faces: list[int] = []

    def deal(self, faces: Sequence[int] | None = None) -> None:
        """A fresh round: card id i is face `faces[i]`; by default a shuffled deck.

        Passing the faces replays a known deck (tests, reproducing a reported game)."""
        if faces is None:
            self.faces = list(range(self._size))
            self._rng.shuffle(self.faces)
        else:
            if sorted(faces) != list(range(self._size)):
                raise ValueError(f"a deal must be a permutation of the {self._size} faces")
            self.faces = list(faces)

    def answer(self, need: Need) -> Fact:
        if isinstance(need, Reveal):
            return Revealed(need.card, need.to, self.faces[need.card])
        if need.first_id != len(self.faces):
            raise EngineError("R7", None, f"reshuffle into ids from {need.first_id}, but {len(self.faces)} ids exist")
        fresh = [self.faces[card] for card in need.retired]
        self._rng.shuffle(fresh)
        self.faces.extend(fresh)
        return need.answer()


@dataclass(frozen=True, slots=True)
class GameResult:
    """One simulated game."""

    winners: tuple[int, ...]
    totals: tuple[int, ...]
    rounds: int
    turns: int  # turns played over all rounds
    snaps_attempted: tuple[int, ...]  # per seat
    snaps_succeeded: tuple[int, ...]  # per seat
    calls: tuple[int, ...]  # Bandit announcements per seat
    good_calls: tuple[int, ...]  # announcements rewarded with -10


class Simulation:
    """Drives one game between `bots` (one per seat) to its end."""

    def __init__(
        self,
        bots: Sequence[Bot],
        rng: Prng,
        skills: Skills = DEFAULT_SKILLS,
        target: int = DEFAULT_TARGET,
        max_turns_per_round: int = MAX_TURNS_PER_ROUND,
        record: list[Event] | None = None,
        observer: Callable[[Event, list[Note]], None] | None = None,
    ) -> None:
        """`record` collects every event applied, in order (a replayable log);
        `observer(event, notes)` is called after each one."""
        self.game = Game(len(bots), skills, target)
        self.bots = tuple(bots)
        self.rng = rng
        self.oracle = Oracle(skills.size, rng)
        self.max_turns_per_round = max_turns_per_round
        self.record = record
        self.observer = observer
        n = len(bots)
        self._attempted = [0] * n
        self._succeeded = [0] * n
        self._calls = [0] * n
        self._good_calls = [0] * n
        self._turns = 0

    def feed(self, event: Event) -> None:
        """Apply one event, then answer every need the engine raises."""
        game = self.game
        self._applied(event, game.apply(event))
        while (need := game.next_need) is not None:
            fact = self.oracle.answer(need)
            self._applied(fact, game.apply(fact))

    def _applied(self, event: Event, notes: list[Note]) -> None:
        if self.record is not None:
            self.record.append(event)
        if notes:
            self._notes(notes)
        if self.observer is not None:
            self.observer(event, notes)

    def _notes(self, notes: list[Note]) -> None:
        for note in notes:
            kind = type(note)
            if kind is SnapResolved:
                if note.outcome is SnapOutcome.MATCHED:  # type: ignore[union-attr]
                    self._succeeded[note.seat] += 1  # type: ignore[union-attr]
            elif kind is RoundEnded:
                self._turns += self.game.turns_in_round
                caller = note.caller  # type: ignore[union-attr]
                scores = note.scores  # type: ignore[union-attr]
                if caller is not None:
                    self._calls[caller] += 1
                    mine = scores[caller]
                    if all(mine < s for seat, s in enumerate(scores) if seat != caller):
                        self._good_calls[caller] += 1

    def play(self) -> GameResult:
        game = self.game
        while game.phase is not Phase.OVER:
            if game.round >= MAX_ROUNDS_PER_GAME:
                raise RoundStalled(
                    "R1", None, f"the game passed {MAX_ROUNDS_PER_GAME} rounds without a total reaching {game.target} "
                    f"(totals {', '.join(map(str, game.totals))}): with this deck the totals do not rise toward the target"
                )
            self.play_round()
        return GameResult(
            winners=game.winners,
            totals=game.totals,
            rounds=game.round,
            turns=self._turns,
            snaps_attempted=tuple(self._attempted),
            snaps_succeeded=tuple(self._succeeded),
            calls=tuple(self._calls),
            good_calls=tuple(self._good_calls),
        )

    def play_round(self) -> None:
        game = self.game
        bots = self.bots
        rng = self.rng
        self.oracle.deal()
        self.feed(RoundStarted(rng.below(game.players)))
        self.snap_window()
        for seat, bot in enumerate(bots):
            if game.phase is Phase.PEEK:
                intent = bot.act(game.view(seat), rng)
                if type(intent) is not Ready:
                    raise EngineError("R4", seat, f"bot {bot.name!r} answered {type(intent).__name__}, not Ready, "
                                      "before the first turn")
                self.feed(intent)
        self.snap_window()  # (the first turn begins on the first discard: a live seat is asked again)
        cap = self.max_turns_per_round
        while game.phase in TURN_PHASES:
            if game.turns_in_round > cap:
                raise RoundStalled(
                    "R8", None, f"round {game.round} passed {cap} turns without ending; a bot never calls Bandit"
                )
            mover = game.turn_seat
            assert mover is not None
            top, turn, caller = game.discard_top(), game.turn, game.caller
            self.feed(bots[mover].act(game.view(mover), rng))
            if game.discard_top() != top or game.turn != turn or game.caller != caller:
                self.snap_window()  # (as a live seat: once a top, once a turn, once more after a call)

    def snap_window(self) -> None:
        """Offer every bot a snap on the current top; resolve claims in lottery order.
        A window opens when the top changes, when a turn begins on the same top and
        when Bandit is announced (a bot about to call holds its snap until then, R5): a
        live seat's driver asks its bot once per (top, turn, caller) (`SeatDriver.snap`)."""
        game = self.game
        rng = self.rng
        while game.phase in SNAP_PHASES:
            top = game.discard_top()
            claims: list[Snap] = []
            for seat, bot in enumerate(self.bots):
                claim = bot.snap(game.view(seat), rng)
                if claim is not None:
                    claims.append(claim)
            if not claims:
                return
            if len(claims) > 1:
                rng.shuffle(claims)
            for claim in claims:
                if game.phase not in SNAP_PHASES:
                    return  # the round ended (R7) during the race
                self._attempted[claim.seat] += 1
                self.feed(claim)
            if game.discard_top() == top:
                return


def play_game(
    bots: Sequence[Bot],
    seed: int,
    index: int = 0,
    skills: Skills = DEFAULT_SKILLS,
    target: int = DEFAULT_TARGET,
    record: list[Event] | None = None,
    max_turns_per_round: int = MAX_TURNS_PER_ROUND,
    observer: Callable[[Event, list[Note]], None] | None = None,
) -> GameResult:
    """Game number `index` of a run seeded with `seed`."""
    sim = Simulation(bots, Prng.derive(seed, index), skills, target, max_turns_per_round, record, observer)
    return sim.play()


@dataclass(frozen=True, slots=True)
class Summary:
    """Aggregate of a simulation run (identical for identical arguments)."""

    players: int
    games: int
    seed: int
    bots: tuple[str, ...]
    target: int
    wins: tuple[float, ...]  # per seat; a shared win counts 1/k to each of k winners
    mean_total: tuple[float, ...]
    rounds: int
    turns: int
    snaps_attempted: tuple[int, ...]
    snaps_succeeded: tuple[int, ...]
    calls: tuple[int, ...]
    good_calls: tuple[int, ...]

    @property
    def win_rate(self) -> tuple[float, ...]:
        return tuple(w / self.games for w in self.wins)

    @property
    def mean_rounds(self) -> float:
        return self.rounds / self.games

    @property
    def mean_turns_per_round(self) -> float:
        return self.turns / self.rounds if self.rounds else 0.0

    def to_json(self, games_per_s: float | None = None) -> dict[str, object]:
        """The JSON object `bandit-lan simulate --json` prints."""
        return {
            "players": self.players,
            "games": self.games,
            "seed": self.seed,
            "bots": list(self.bots),
            "target": self.target,
            "win_rate": [round(r, 6) for r in self.win_rate],
            "wins": [round(w, 6) for w in self.wins],
            "mean_total": [round(t, 3) for t in self.mean_total],
            "mean_rounds": round(self.mean_rounds, 6),
            "mean_turns_per_round": round(self.mean_turns_per_round, 6),
            "snaps": {"attempted": sum(self.snaps_attempted), "succeeded": sum(self.snaps_succeeded)},
            "snaps_per_seat": {"attempted": list(self.snaps_attempted), "succeeded": list(self.snaps_succeeded)},
            "bandit_calls": {"made": list(self.calls), "strictly_lowest": list(self.good_calls)},
            "games_per_s": None if games_per_s is None else round(games_per_s, 1),
        }


def simulate(
    players: int,
    games: int,
    seed: int = 0,
    bots: Sequence[str] = ("normal",),
    skills: Skills = DEFAULT_SKILLS,
    target: int = DEFAULT_TARGET,
) -> Summary:
    """Play `games` games and aggregate them. `bots` names one bot for every seat, or
    exactly one per seat."""
    names = tuple(bots)
    if len(names) == 1:
        names = names * players
    if len(names) != players:
        raise ValueError(f"give one bot for all seats or exactly {players} bots, not {len(names)}")
    skills.check_players(players)
    if type(games) is not int or games < 1:
        raise ValueError(f"the number of games must be a positive integer, not {games!r}")
    seats = [make_bot(name) for name in names]
    wins = [0.0] * players
    totals = [0] * players
    attempted = [0] * players
    succeeded = [0] * players
    calls = [0] * players
    good = [0] * players
    rounds = turns = 0
    for index in range(games):
        result = play_game(seats, seed, index, skills, target)
        share = 1.0 / len(result.winners)
        for seat in result.winners:
            wins[seat] += share
        for seat in range(players):
            totals[seat] += result.totals[seat]
            attempted[seat] += result.snaps_attempted[seat]
            succeeded[seat] += result.snaps_succeeded[seat]
            calls[seat] += result.calls[seat]
            good[seat] += result.good_calls[seat]
        rounds += result.rounds
        turns += result.turns
    return Summary(
        players=players,
        games=games,
        seed=seed,
        bots=names,
        target=target,
        wins=tuple(wins),
        mean_total=tuple(t / games for t in totals),
        rounds=rounds,
        turns=turns,
        snaps_attempted=tuple(attempted),
        snaps_succeeded=tuple(succeeded),
        calls=tuple(calls),
        good_calls=tuple(good),
    )
