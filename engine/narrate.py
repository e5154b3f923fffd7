"""Plain words for what happens at a Bandit table: events and notes told as log lines.

Theory of operation
-------------------
A `Narrator` is fed the same events as a `Game`, right after each `Game.apply`, with
the game (as it is after the event) and the notes the event produced. One player
action is often several events: a discard is an intent and then the public reveal of
the card; a snap is an intent, a reveal, maybe a reshuffle and a penalty draw. The
narrator therefore tells a *story* per action: it opens one when an intent (or a table
fact that starts something: a round, a timer) arrives, collects the notes of the facts
that answer it, and tells it in one or two sentences once the table owes the engine
nothing more (`Game.needs` is empty). By then every card the action turned over is
known, so the sentence can say "Cy tried a 6 on a 10 — wrong, penalty card".

Whose eyes: `me` is the seat the lines are told to (its name becomes "You"), or None
for a public account (a headless table log). Faces are named only when `me` may know
them: cards face up for everyone, and cards `me` saw itself. Private looks (a drawn
card, a peek, a spy, the bottom cards) are told *without* their face unless
`private_faces` is set: the terminal client shows a look on the card itself for a few
seconds, and writing it into the log would turn every look into a permanent memory
aid (a seat played without a screen, whose lines are all it shows, sets it; its drawn
card is named once, in the line on what it did with the card). An auditor that knows
every face (after the round's openings) passes `me=None, private_faces=True` and gets
every look with its face; with `card_ids` as well (the audit's report) every card is named with its number in the deck, so that a
reader can follow one physical card through the game ("a 14 [card 36]"), and a card
whose face the narrator does not know is "a card unknown to the audit" wherever it would
be named (only a seat saw it, and its round was cut short before its openings: `cut_short`);
a matched snap then names the top card it was made on too (of two equal cards snapped
in a row, the second matched the first, not the card the first one covered). Given the
faces its round's openings (§9.7) re-derived (`opened`), it names a card that moved
with nobody having seen it (swapped, given by a snap, a penalty card) with its face,
"known from the shuffles shown at the round's end", so that the reader can tell it from
a card some seat knew.

Who was first: the shell passes each intent's Lamport stamp (§7.3) with its event. A
snap that lost its race (R6) to a claim of an earlier stamp lost to a faster one; one
that lost to a claim of the *same* stamp lost the table's lot, the salted tie-break
(§7.4), not a race, and its line says so ("R6, §7.4; at the same moment as Ada's snap
of an 8, which covered it: the lot put Ada first"). Without stamps (a scripted game)
every earlier claim is told as first.

The narrator is pure: no I/O, no clock. It holds only the story being told and the
look & swap awaiting its decision.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Final

from engine.errors import SQUARE_WORDS, Who, Words, slot_words, spell
from engine.events import (
    ALL,
    CallBandit,
    DecideSwap,
    Discard,
    Draw,
    Event,
    Exchange,
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
from engine.game import CALLER_BONUS, Game, final_turn_seats
from engine.notes import (
    GameEnded,
    Note,
    PenaltyDrawn,
    RoundEnded,
    SnapOutcome,
    SnapResolved,
    TimerFallback,
    TurnStarted,
)
from engine.needs import Reshuffle
from engine.skills import Power, Skills

TOLD_KINDS: Final = ("turn", "snap", "power", "round", "table", "private", "warning", "error")
"""What a line is about (screens colour by it); `private` lines name a face only the
narrator's seat may know."""

POWER_WORDS: Final = {Power.PEEK: "peek", Power.SPY: "spy", Power.SWAP: "swap", Power.LOOK_SWAP: "look & swap"}


@dataclass(frozen=True, slots=True)
class Told:
    """One line of narration (the fields of a table log line)."""

    text: str
    kind: str = "table"  # one of TOLD_KINDS
    seat: int | None = None  # the seat it is mostly about
    # A line a seat played without a screen prints (besides rounds, table facts and what went
    # wrong): a move of the narrator's seat or one on its cards (`Narrator.seats_in`), the
    # start of its turn, and any Bandit announcement (R8: it counts down everyone's turns).
    yours: bool = False


def value_words(skills: Skills, face: int) -> str:
    """A card's face as a player says it: "8", "green Bandit (-2)"."""
    kind = skills.kind(face)
    return f"{kind.name} ({kind.value:+d})" if kind.name else str(kind.value)


def card_words(skills: Skills, face: int) -> str:
    """The face with its article: "an 8", "a 10", "a green Bandit (-2)"."""
    words = value_words(skills, face)
    return f"{_article(words)} {words}"


def card_named(skills: Skills, face: int | None) -> str:
    """A card with its number in the deck (its face), as the audit names it: "an 8 [card
    22]"; "a card unknown to the audit" when the face is not known (`UNKNOWN_CARD`)."""
    return UNKNOWN_CARD if face is None else f"{card_words(skills, face)} [card {face}]"


def _article(words: str) -> str:
    if words[:1].isdigit():
        # spoken numbers: eight, eleven, eighteen, eighty…, eight hundred… take "an"
        starts_an = words.startswith("8") or (words.startswith(("11", "18")) and len(words) in (2, 5, 6))
        return "an" if starts_an else "a"
    return "an" if words[:1].lower() in "aeiou" else "a"


def power_words(power: Power) -> str:
    return POWER_WORDS[power]


@dataclass(slots=True)
class _Story:
    """One action being told: the event that started it and what followed."""

    event: Event
    notes: list[Note] = field(default_factory=list)
    reshuffled: list[int] = field(default_factory=list)  # sizes of R7 reshuffles
    top_face: int | None = None  # Snap: the face of the top card it targeted
    covered_by: str | None = None  # Snap on a covered top: whose card covered it first, in words
    cover: _Placed | None = None  # Snap on a covered top: how the card that covered it came there
    stamp: int | None = None  # the Lamport stamp of the intent that started it (§7.3), if known
    discarding: bool = False  # TurnTimedOut: a card is being discarded for the player


@dataclass(frozen=True, slots=True)
class _Placed:
    """How a card came on the discard pile: by whose snap or discard, and when."""

    seat: int
    how: str  # "snap" or "discard"
    stamp: int | None  # the Lamport stamp of the intent that put it there (§7.3), if known


@dataclass(frozen=True, slots=True)
class _Taken:
    """What took the card from a slot: a matched snap (R6), the snapped card or the
    snapper's own card given away (`to` the owner of the snapped card); or a power's
    exchange (`swapped`: a swap, or a look & swap that exchanged, R3)."""

    seat: int  # who snapped, or used the power
    top: int | None  # the top card the snap was made on (it covered it); None for a power
    when: int  # `Narrator._tops` when that card became the top (a power's: the top as it exchanged)
    to: int | None = None  # the card was given to this seat
    swapped: bool = False  # a power exchanged it
    stamp: int | None = None  # the snap's Lamport stamp (§7.3), if known


UNKNOWN_CARD: Final = "a card unknown to the audit"
"""A card the audit's report cannot name: only a seat saw it, in a round whose shuffles
were not shown and checked (§9.7: only the openings tell it, and only once they verify,
§8.9). `cut_short` says why, once for the round."""


def cut_short(round_no: int) -> str:
    """What a round that ended without its openings means for its cards, in a sentence:
    the table's screen, the line-mode client and the audit's report say it alike. What
    an opening is (§8.7) is said here in a player's words: a seat "shows how it
    shuffled", and a round's shuffles are "shown and checked", or not."""
    return (f"Round {round_no} was cut short, so its shuffles were never shown and checked (at the end of a round "
            "every player's program shows how it shuffled): a card only one player saw in it stays unknown to "
            "everyone else, an audit included.")


def listed(names: Sequence[str]) -> str:
    """Names in a sentence: "Bo", "Bo and Cy", "Bo, Cy and Di"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def possessive(name: str, names: Sequence[str] = ()) -> str:
    """Whose, in a sentence: "Bo's" (`owner`'s two parts)."""
    return "".join(owner(name, names))


APOSTROPHES = ("'", "\u2019")
"""How a name may end that is a possessive already ("Jess'", "Mum's", typed or typeset)."""


def owner(name: str, names: Sequence[str] = ()) -> tuple[str, str]:
    """`possessive` in two: the name as it is written on, then "'s", or nothing where
    the name ends in an apostrophe or an apostrophe and "s" ("Jess' turn", "Mum's
    turn", not "Mum's's"). "'s" is written on the name itself: a note in brackets that
    ends a name ("Bo (bot)", the mark of the bots a host seats) is said where the name is
    (its seat's header, "Bo (bot) drew…"), and left out of "Bo's turn", "Bo's
    bottom-left card"; unless another of the table's `names` is the name without it."""
    bare = name.rstrip()
    if bare.endswith(")") and "(" in bare:
        plain = bare[:bare.rindex("(")].rstrip()
        if plain and all(other.casefold() != plain.casefold() for other in names):
            bare = plain
    stem = bare[:-1] if bare[-1:] in ("s", "S") else bare
    owned = stem.endswith(APOSTROPHES) and len(stem) > 1  # (a name that is but the apostrophe takes "'s")
    return bare, "" if owned else "'s"


def game_won(names: Sequence[str], winners: Sequence[int], points: int, me: int | None = None) -> str:
    """Who won the game (R1), as the game-end screen's title, the table log (and so a
    line-mode seat) and the terminal after the game say it: "Cy wins with 4 points",
    "You win with -6 points", "Ada and you share the win with 4 points". `names` by seat
    as their players wrote them; `me`'s is "You"."""
    if len(winners) == 1:
        seat = winners[0]
        return f"You win with {points} points" if seat == me else f"{names[seat]} wins with {points} points"
    sharing = [("You" if i == 0 else "you") if seat == me else names[seat] for i, seat in enumerate(winners)]
    return f"{listed(sharing)} share the win with {points} points"


class Narrator:
    """Tells a game's events as `Told` lines, as seat `me` may hear them."""

    def __init__(self, names: Sequence[str], me: int | None = None, *, private_faces: bool = False,
                 card_ids: bool = False, scores: bool = True, turns: bool = False,
                 slot_label: Callable[[int], str] = str) -> None:
        self.names = tuple(names)
        if me is not None and not 0 <= me < len(self.names):
            raise ValueError(f"seat {me + 1} is not one of the {len(self.names)} named seats")  # (from 1)
        self.me = me
        self.private_faces = private_faces
        self.card_ids = card_ids  # name every card with its number in the deck (the audit's report)
        self.scores = scores  # tell a round's scores and the game's end (the report has its own)
        self.turns = turns  # tell where each turn begins, whose it is (a table log; the report numbers turns)
        self.slot_label = slot_label  # how a penalty slot is named: "4", or the key a screen gives it
        self.opened: Mapping[int, int] = {}  # the round's faces from its openings (§9.7), for an auditor (`card_ids`)
        self._story: _Story | None = None
        self._placed: dict[int, _Placed] = {}  # this round's discards: card -> how it came on the pile (Bo's snap)
        self._first_on: dict[int, int] = {}  # this round's discard pile: card -> the first card put on it (R6)
        self._top: int | None = None  # the discard pile's top card as last told
        self._tops = 0  # how many times the discard pile's top changed, as told
        self._topped: dict[int, int] = {}  # this round's discard pile: card -> `_tops` when it last became the top
        self._taken: dict[tuple[int, int], _Taken] = {}  # this round: (owner, slot) -> the snap that took its card
        self._looked: LookSwap | None = None
        self._looked_cards: tuple[int | None, int | None] | None = None  # the cards looked at, where they were

    # ------------------------------------------------------------------ feeding

    def narrate(self, game: Game, event: Event, notes: Sequence[Note], stamp: int | None = None) -> list[Told]:
        """Lines for `event`, just applied to `game` (which produced `notes`); `stamp` is
        the Lamport stamp of the message that carried it (§7.3), if known.

        Most events of an action return nothing; the action is told when its last
        fact has been applied."""
        out: list[Told] = []
        if isinstance(event, (Revealed, Reshuffled)):
            story = self._story
            if story is None:  # a fact without a known cause: tell its notes alone
                story = self._story = _Story(event)
            if isinstance(event, Reshuffled):
                story.reshuffled.append(len(event.retired))
            elif event.to != ALL and self.private_faces and self.me is None:  # (a seat's: see `_private_look`)
                if look := self._private_look(game, event):  # (a reshuffle it drew from comes first, R7)
                    out += self._reshuffles_told(story) + look
        else:
            if self._story is not None:  # unfinished (cannot happen with a sound driver)
                out += self._tell(game, self._story)
            story = self._story = self._open(game, event, stamp)
        story.notes.extend(notes)
        if not game.needs:
            self._story = None
            out += self._tell(game, story)
        return out

    def refusal(self, intent: Intent, rule: str, reason: str | Words) -> Told:
        """A line for an intent the rules (`R…`) or the table (`§9.…`) refused.

        Refusals are part of play (a snap that lost its race to the game's end, a move
        decided for a turn that just ended), so another seat's is told plainly; a refusal
        under a protocol section is a warning, and the narrator's own seat's an error.
        The engine's reason (its `words`) names seats and slots as this narrator does."""
        who = "Your" if intent.seat == self.me else self._possessive(intent.seat)  # (a name stays as typed)
        kind = "error" if intent.seat == self.me else "table" if rule.startswith("R") else "warning"
        why = reason if isinstance(reason, str) else self._reason(reason, intent.seat)
        unturned = ": no card was turned, no penalty card drawn" if isinstance(intent, Snap) else ""  # (R6)
        return Told(f"{who} {_intent_words(intent)} did not count ({rule}: {why}){unturned}.",
                    kind, intent.seat)

    def unordered(self, intents: Sequence[type[Intent]], why: str | None, left: bool = False) -> Told:
        """A line for the narrator's own intents that were sent but never put in the
        table's order: the game ended first (`why`, if it ended otherwise than at its last
        round), so they never counted; or (`left`) this seat left before its leave came
        back in order, and the others, who order them before that leave, count them if
        their game reaches it (§9.8)."""
        moves = listed([_INTENT_WORDS.get(intent, intent.__name__) for intent in intents])
        them = "it" if len(intents) == 1 else "them"
        if left:
            return Told(f"Your {moves} had not come back in order when you left: the others count {them} just "
                        "before your leave if their game reaches it, not if it ends first (their logs tell which).",
                        "warning", self.me)
        unturned = "; no card was turned, no penalty card drawn" if Snap in intents else ""  # (R6)
        ended = f" ({why})" if why else ""
        return Told(f"Your {moves} did not count: the game ended before the table put {them} in order{ended}"
                    f"{unturned}.", "warning", self.me)

    def _reason(self, words: Words, actor: int) -> str:
        """An engine reason in this narrator's words: "you" for its own seat, "they" for
        the seat whose intent it was, other players by name, slots by their place."""

        def who(word: Who) -> str:
            if word.seat == self.me:
                return "your" if word.form == "possessive" else "you"
            if word.seat == actor:
                return {"subject": "they", "object": "them", "possessive": "their"}[word.form]
            return self._possessive(word.seat) if word.form == "possessive" else self.names[word.seat]

        return spell(words, who, lambda word: self._card_of(actor, word.owner, word.slot, "slot"))

    # ------------------------------------------------------------------ names and faces

    def name(self, seat: int) -> str:
        return "You" if seat == self.me else self.names[seat]

    def _possessive(self, seat: int) -> str:
        return "your" if seat == self.me else possessive(self.names[seat], self.names)

    def _card_of(self, actor: int, owner: int, slot: int, noun: str = "card") -> str:
        """"your top-left card", "their card in slot 4", "Cy's bottom-right slot"."""
        if owner == self.me:
            whose = "your"
        elif owner == actor:
            whose = "their"
        else:
            whose = possessive(self.names[owner], self.names)
        if slot >= len(SQUARE_WORDS):  # a penalty slot (R6)
            label = self.slot_label(slot)
            return f"{whose} slot {label}" if noun == "slot" else f"{whose} {noun} in slot {label}"
        return f"{whose} {slot_words(slot)} {noun}"

    def _face(self, game: Game, card: int | None) -> int | None:
        """The face of `card` if the narrator's seat may name it."""
        if card is None:
            return None
        face = game.known_face(card)
        if face is None:
            return None
        seer = self.me if self.me is not None else 0
        view = game.view(seer)
        if view.is_public(card):
            return face
        if self.me is not None:
            return face if view.face(card) is not None and self.private_faces else None
        return face if self.private_faces else None

    def _which(self, game: Game, card: int | None) -> str:
        """For the audit's report (`card_ids`), which card moved unseen: " (an 8 [card
        22])", so that a card can be followed through a swap, a give or a penalty; a card
        nobody had seen, named from the round's openings (`opened`), says so: " (an 8
        [card 22], known from the shuffles shown at the round's end)"; "" when its face is
        not known (a round that did not finish) or for any other narrator."""
        named = self._moved(game, card)
        return f" ({named})" if named else ""

    def _moved(self, game: Game, card: int | None) -> str | None:
        """`_which` without its brackets, or None."""
        if not self.card_ids or card is None:
            return None
        if self._face(game, card) is not None:
            return self._words(game, card)
        face = self.opened.get(card)
        if face is None:
            return None
        return f"{card_named(game.skills, face)}, known from the shuffles shown at the round's end"

    def _at(self, game: Game, owner: int, slot: int) -> int | None:
        """The card in `owner`'s `slot` now (None for an empty slot)."""
        tableau = game.zones().tableaux[owner]
        return tableau[slot] if slot < len(tableau) else None

    def _words(self, game: Game, card: int | None, unknown: str = "a card") -> str:
        face = self._face(game, card)
        if self.card_ids:
            return card_named(game.skills, face)
        return unknown if face is None else card_words(game.skills, face)

    # ------------------------------------------------------------------ stories

    def _open(self, game: Game, event: Event, stamp: int | None) -> _Story:
        story = _Story(event, stamp=stamp)
        if isinstance(event, Snap):
            story.top_face = game.known_face(event.top)  # a top card is always public
            story.covered_by, story.cover = self._covered(game, event.top)
        elif isinstance(event, TurnTimedOut):  # R5: from START or DRAWN a card is discarded for the player
            story.discarding = game.zones().in_transit is not None or isinstance(game.next_need, Reshuffle)
        elif isinstance(event, LookSwap):
            self._looked = event
        return story

    def _covered(self, game: Game, top: int) -> tuple[str | None, _Placed | None]:
        """R6: what covered `top` on the discard pile, if something did ("Cy's snap of a
        6"): the first card put on it (one taken away since, R5 C, covered it all the same),
        and who put it there. None while it is still the top (or once a reshuffle, R7, took
        it away)."""
        pile = game.zones().discard
        if top not in pile[:-1]:
            return None, None
        card = self._first_on.get(top, pile[pile.index(top) + 1])
        placed = self._placed.get(card)
        words = self._words(game, card)
        return (f"{self._possessive(placed.seat)} {placed.how} of {words}" if placed else words), placed

    def _place(self, game: Game, story: _Story) -> None:
        """Remember how the discard pile's top card came there when `story` put it there
        ("Bo's snap", "your discard"): what a later snap on the card below it lost to."""
        top, event = game.discard_top(), story.event
        if top is not None and top != self._top:
            self._tops += 1
            self._topped[top] = self._tops
        if isinstance(event, RoundStarted):
            self._placed.clear()
            self._first_on.clear()
            self._topped = {top: self._tops} if top is not None else {}
            self._taken.clear()
        elif top is not None and top != self._top:
            if self._top is not None and self._top in game.zones().discard:  # (put on it, not left by a take)
                self._first_on.setdefault(self._top, top)
            seat = next((n.seat for n in story.notes if isinstance(n, TimerFallback)), None) \
                if isinstance(event, TurnTimedOut) else getattr(event, "seat", None)
            if type(seat) is int:
                self._placed[top] = _Placed(seat, "snap" if isinstance(event, Snap) else "discard", story.stamp)
        self._top = top

    def _tell(self, game: Game, story: _Story) -> list[Told]:
        event = story.event
        out = self._reshuffles_told(story)
        self._place(game, story)
        teller = _TELLERS.get(type(event))
        if teller is not None:
            yours = self.me is not None and self.me in self.seats_in(story)  # (before the teller forgets a look)
            out += [replace(told, yours=True) if yours else told for told in teller(self, game, story)]
        out += self._turn_notes(story.notes)
        out += self._round_notes(game, story.notes)
        return out

    def seats_in(self, story: _Story) -> set[int]:
        """The seats whose move, or whose cards, `story` tells of: the one who acted, the
        owner of the card a power or a snap was used on (or a look & swap's, decided now),
        whoever drew a penalty card, and whose turn timed out."""
        event = story.event
        seats = {getattr(event, "seat", None), getattr(event, "owner", None)}
        if isinstance(event, DecideSwap) and self._looked is not None:
            seats.add(self._looked.owner)
        for note in story.notes:
            if isinstance(note, (SnapResolved, PenaltyDrawn, TimerFallback)):
                seats.add(note.seat)
            if isinstance(note, SnapResolved):
                seats.add(note.owner)
        return {seat for seat in seats if type(seat) is int}

    def _turn_notes(self, notes: Sequence[Note]) -> list[Told]:
        """Where a turn begins (R5), so that a snap is read in the turn it was made in (R6)."""
        if not self.turns:
            return []
        return [Told(f"{'Your' if note.seat == self.me else self._possessive(note.seat)} turn.", "turn", note.seat,
                     yours=note.seat == self.me)
                for note in notes if isinstance(note, TurnStarted)]

    @staticmethod
    def _reshuffles_told(story: _Story) -> list[Told]:
        """The R7 reshuffles of `story` not yet told, in a line (then they are told)."""
        if not story.reshuffled:
            return []
        count = sum(story.reshuffled)
        story.reshuffled.clear()
        return [Told(f"The draw pile ran out: {count} discarded card{'s' if count != 1 else ''} "
                     "were shuffled into a new one (R7).", "table")]

    def _round_notes(self, game: Game, notes: Sequence[Note]) -> list[Told]:
        out: list[Told] = []
        if not self.scores:
            return out
        for note in notes:
            if isinstance(note, RoundEnded):
                out.append(Told(self._round_words(note), "round"))
            elif isinstance(note, GameEnded):
                out.append(self.game_over(note))
        return out

    def _round_words(self, note: RoundEnded) -> str:
        parts = []
        for seat, score in enumerate(note.scores):
            extra = ""
            if seat == note.caller:
                extra = f" (Bandit {-CALLER_BONUS if self._caller_won(note, seat) else CALLER_BONUS:+d})"
            parts.append(f"{self.name(seat)} {score}{extra}")
        why = " — nothing left to draw (R7)" if note.exhausted else ""
        return f"Round {note.round} is over{why}: " + ", ".join(parts) + "."

    @staticmethod
    def _caller_won(note: RoundEnded, caller: int) -> bool:
        """R9: was the caller's sum (before the bonus) strictly the lowest?"""
        mine = note.scores[caller] + CALLER_BONUS  # undo -10 to compare sums
        return all(mine < s for seat, s in enumerate(note.scores) if seat != caller)

    def game_over(self, note: GameEnded) -> Told:
        """The line that tells who won."""
        return Told(self._game_words(note), "round")

    def _game_words(self, note: GameEnded) -> str:
        return f"Game over: {game_won(self.names, note.winners, note.totals[note.winners[0]], self.me)}."

    # --- one teller per kind of event ---------------------------------------------------

    def _tell_round_started(self, game: Game, story: _Story) -> list[Told]:
        event = story.event
        assert isinstance(event, RoundStarted)
        first = self.name(event.first_player)
        top = self._words(game, game.discard_top())
        out = [Told(f"Round {game.round}: {first} {'play' if event.first_player == self.me else 'plays'} first. "
                    f"The first discard is {top}. Everyone looks at their two bottom cards.", "round")]
        if self.private_faces:
            for seat in range(game.players) if self.me is None else (self.me,):
                tableau = game.zones().tableaux[seat]
                whose = "your" if seat == self.me else "their"
                saw = self._bottom_cards(game, [tableau[2], tableau[3]])
                if saw:
                    out.append(Told(f"{self.name(seat)} saw {whose} {saw}.", "private", seat, yours=seat == self.me))
        return out

    def _bottom_cards(self, game: Game, cards: Sequence[int]) -> str:
        """R4.3: "bottom cards: a 4 [card 11] and a 20 [card 28]" as a look names them; an
        auditor's (`card_ids`) says those it cannot name are unknown to it (`UNKNOWN_CARD`)."""
        if not self.card_ids:
            suffix = self._look_suffix(game, cards)
            return f"bottom cards{suffix}" if suffix else ""
        named = [self._words(game, c) for c in cards if self._face(game, c) is not None]
        if not named:
            return "two bottom cards, both unknown to the audit"
        return f"bottom cards: {' and '.join(named)}" + (f" and {UNKNOWN_CARD}" if len(named) == 1 else "")

    def _tell_ready(self, game: Game, story: _Story) -> list[Told]:
        return []  # the screen shows who is ready; the first turn is told by the status line

    def _tell_barrier(self, game: Game, story: _Story) -> list[Told]:
        late = [seat for seat in range(game.players) if not game.is_ready(seat)]
        if not late:
            return [Told("Not everyone was ready in time: the first turn starts (R4).", "table")]
        names = listed([self.name(s) if i == 0 or s != self.me else "you" for i, s in enumerate(late)])
        were = "were" if len(late) > 1 or late[0] == self.me else "was"
        return [Told(f"{names} {were} not ready in time: the first turn starts (R4).", "table")]

    def _tell_call(self, game: Game, story: _Story) -> list[Told]:
        seat = story.event.seat  # type: ignore[union-attr]
        finals = final_turn_seats(seat, game.players)
        names = listed(["you" if s == self.me else self.names[s] for s in finals])
        if len(finals) == 1:
            then = f"{names} {'play' if finals[0] == self.me else 'plays'} one final turn"
        else:
            then = f"{names} play one final turn each"
        # (every seat's: it says how many turns are left to each, R8)
        return [Told(f"{self.name(seat)} announced Bandit! This turn, then {then}.", "turn", seat,
                     yours=self.me is not None)]

    def _tell_draw(self, game: Game, story: _Story) -> list[Told]:
        return []  # told with what the player does with the card (discard or exchange)

    def _tell_discard(self, game: Game, story: _Story) -> list[Told]:
        seat = story.event.seat  # type: ignore[union-attr]
        top = game.discard_top()
        words = self._words(game, top)
        face = game.known_face(top) if top is not None else None
        power = game.skills.powers[face] if face is not None else None
        extra = f" ({power_words(power)})" if power is not None else ""
        return [Told(f"{self.name(seat)} drew and discarded {words}{extra}.", "turn", seat)]

    def _tell_exchange(self, game: Game, story: _Story) -> list[Told]:
        event = story.event
        assert isinstance(event, Exchange)
        seat = event.seat
        kept = ""
        card = game.zones().tableaux[seat][event.slot]
        if self.card_ids:
            kept = f" ({self._words(game, card)})"
        elif self.private_faces and (face := self._face(game, card)) is not None:
            kept = f" ({card_words(game.skills, face)})"
        where = self._card_of(seat, seat, event.slot, "slot")
        return [Told(f"{self.name(seat)} kept the drawn card{kept} in {where} and discarded "
                     f"{self._words(game, game.discard_top())}.", "turn", seat)]

    def _tell_take(self, game: Game, story: _Story) -> list[Told]:
        event = story.event
        assert isinstance(event, TakeDiscard)
        seat = event.seat
        taken = self._words(game, event.top, "the top card")
        where = self._card_of(seat, seat, event.slot, "slot")
        return [Told(f"{self.name(seat)} took {taken} from the discard pile into {where} and discarded "
                     f"{self._words(game, game.discard_top())}.", "turn", seat)]

    def _look_suffix(self, game: Game, cards: Sequence[int | None]) -> str:
        """": an 8" for a private look the narrator may name (only with private_faces)."""
        if not self.private_faces:
            return ""
        if self.card_ids:
            return ": " + " and ".join(self._words(game, c) for c in cards)
        faces = [self._face(game, c) for c in cards]
        if any(f is None for f in faces):
            return ""
        return ": " + " and ".join(card_words(game.skills, f) for f in faces if f is not None)

    def _tell_peek(self, game: Game, story: _Story) -> list[Told]:
        event = story.event
        assert isinstance(event, Peek)
        return self._tell_look(game, event.seat, event.seat, event.slot, "peeked at")

    def _tell_spy(self, game: Game, story: _Story) -> list[Told]:
        event = story.event
        assert isinstance(event, Spy)
        return self._tell_look(game, event.seat, event.owner, event.slot, "spied on")

    def _tell_look(self, game: Game, seat: int, owner: int, slot: int, verb: str) -> list[Told]:
        """A one-card look (peek or spy): its value only to the one who looked."""
        suffix = self._look_suffix(game, [game.zones().tableaux[owner][slot]])
        kind = "private" if suffix else "power"
        return [Told(f"{self.name(seat)} {verb} {self._card_of(seat, owner, slot)}{suffix}.", kind, seat)]

    def _tell_swap(self, game: Game, story: _Story) -> list[Told]:
        event = story.event
        assert isinstance(event, Swap)
        seat = event.seat
        # (told once applied: each card now lies in the other's slot)
        given, taken = self._at(game, event.owner, event.slot), self._at(game, seat, event.own_slot)
        self._swapped(seat, (seat, event.own_slot), (event.owner, event.slot))
        return [Told(f"{self.name(seat)} swapped {self._card_of(seat, seat, event.own_slot)}{self._which(game, given)} with "
                     f"{self._card_of(seat, event.owner, event.slot)}{self._which(game, taken)}, unseen.", "power", seat)]

    def _tell_look_swap(self, game: Game, story: _Story) -> list[Told]:
        event = story.event
        assert isinstance(event, LookSwap)
        seat = event.seat
        tableaux = game.zones().tableaux
        suffix = self._look_suffix(game, [tableaux[seat][event.own_slot], tableaux[event.owner][event.slot]])
        self._looked_cards = self._cards_at(game, event)
        kind = "private" if suffix else "power"
        return [Told(f"{self.name(seat)} looked at {self._card_of(seat, seat, event.own_slot)} and "
                     f"{self._card_of(seat, event.owner, event.slot)}{suffix}.", kind, seat)]

    @staticmethod
    def _cards_at(game: Game, look: LookSwap) -> tuple[int | None, int | None]:
        """The cards in the two slots of a look & swap now (None: an empty slot)."""
        tableaux = game.zones().tableaux
        return tableaux[look.seat][look.own_slot], tableaux[look.owner][look.slot]

    def _tell_decide(self, game: Game, story: _Story) -> list[Told]:
        event = story.event
        assert isinstance(event, DecideSwap)
        seat = event.seat
        looked, self._looked = self._looked, None
        if not event.swap and looked is not None and self._looked_cards != self._cards_at(game, looked):
            who = "you" if seat == self.me else "they"
            return [Told(f"{self.name(seat)} could not exchange: a card {who} looked at was snapped away.", "power", seat)]
        if not event.swap:
            return [Told(f"{self.name(seat)} left both cards where they were.", "power", seat)]
        if looked is None:
            return [Told(f"{self.name(seat)} exchanged the two cards.", "power", seat)]
        self._swapped(seat, (seat, looked.own_slot), (looked.owner, looked.slot))
        return [Told(f"{self.name(seat)} exchanged {self._card_of(seat, seat, looked.own_slot)} with "
                     f"{self._card_of(seat, looked.owner, looked.slot)}.", "power", seat)]

    def _tell_skip(self, game: Game, story: _Story) -> list[Told]:
        seat = story.event.seat  # type: ignore[union-attr]
        return [Told(f"{self.name(seat)} did not use the power.", "power", seat)]

    def _tell_timeout(self, game: Game, story: _Story) -> list[Told]:
        seat = next((n.seat for n in story.notes if isinstance(n, TimerFallback)), None)
        if seat is None:
            return []
        if story.discarding:
            what = f"{self._words(game, game.discard_top())} was discarded for {'you' if seat == self.me else 'them'}"
        elif any(isinstance(n, RoundEnded) and n.exhausted for n in story.notes):
            what = "there was nothing left to draw"
        elif self._looked is not None:  # the look & swap's cards were seen; only the exchange lapsed
            what = "the two cards stayed where they were"
        else:
            what = "the power was not used"
        self._looked = None
        whose = "Your" if seat == self.me else possessive(self.names[seat], self.names)
        return [Told(f"{whose} time ran out: {what} (R5).", "warning", seat)]

    def _tell_snap(self, game: Game, story: _Story) -> list[Told]:
        event = story.event
        assert isinstance(event, Snap)
        seat = event.seat
        out: list[Told] = []
        penalties = [n for n in story.notes if isinstance(n, PenaltyDrawn) and n.seat == seat]
        for note in story.notes:
            if not isinstance(note, SnapResolved):
                continue
            target = self._card_of(seat, note.owner, note.slot, "slot")
            if self.card_ids:
                top = card_named(game.skills, story.top_face)
            else:
                top = "the top card" if story.top_face is None else card_words(game.skills, story.top_face)
            if note.outcome is SnapOutcome.MATCHED:
                self._took(event, note, story.stamp)
                on = f" on {top}" if self.card_ids else ""  # (which physical card it was made on, R6)
                text = f"{self.name(seat)} snapped {self._words(game, note.card)} from {target}{on} — it matched"
                if note.owner != seat and event.give is not None:
                    giver = self._card_of(note.owner, seat, event.give)
                    given = self._which(game, self._at(game, note.owner, note.slot))
                    text += f"; {giver}{given} went to {'you' if note.owner == self.me else self.names[note.owner]}, unseen"
                if penalties:
                    text += "; no cards left (R6), so a penalty card"
            elif note.outcome is SnapOutcome.WRONG:
                text = (f"{self.name(seat)} tried {self._words(game, note.card)} from {target} on {top} — wrong "
                        f"(R6): it went back face down, {self._penalty_words(penalties, story)}")
            elif (taken := self._taken_since(event, story)) is not None:  # (the card aimed at is gone)
                text = (f"{self.name(seat)} tried {target} on {top} — not the fastest ({taken}): "
                        f"{self._penalty_words(penalties, story)}")
            else:  # R6: the card stays unrevealed (an auditor names it from the openings)
                why = self._covered_first(story) if story.covered_by else "R6"
                named = self._moved(game, note.card)
                unturned = f" ({named}; it stayed face down)" if named else ""
                empty = note.card < 0  # (it named a slot emptied before its top card was: R6 lets it try)
                stayed = "" if named else "that slot was already empty, " if empty else "it stayed face down, unseen, "
                text = (f"{self.name(seat)} tried {target}{unturned} on {top} — not the fastest ({why}): "
                        f"{stayed}{self._penalty_words(penalties, story)}")
            out.append(Told(text + self._penalty_where(game, penalties) + ".", "snap", seat))
        return out

    def _took(self, snap: Snap, note: SnapResolved, stamp: int | None) -> None:
        """Remember the slots a matched snap (of Lamport stamp `stamp`) took a card from:
        the snapped card's, and the snapper's own that it gave away (R6)."""
        when = self._topped.get(snap.top, 0)
        self._taken[(note.owner, note.slot)] = _Taken(note.seat, snap.top, when, stamp=stamp)
        if snap.give is not None and note.owner != note.seat:
            self._taken[(note.seat, snap.give)] = _Taken(note.seat, snap.top, when, to=note.owner, stamp=stamp)

    def _swapped(self, seat: int, *slots: tuple[int, int]) -> None:
        """Remember the slots (owner, slot) whose cards `seat`'s power exchanged (R3)."""
        for place in slots:
            self._taken[place] = _Taken(seat, None, self._tops, swapped=True)

    def _taken_since(self, snap: Snap, story: _Story) -> str | None:
        """R6, for a snap that was not the fastest: if a matched snap or a power's exchange
        took the card from the slot it names since its top card was the top (the card it
        aimed at is gone), what became of that card, in the words of the rule's bracket:
        "R6; Dee had snapped that card away first", "R6; Ana's discard of a 6 covered it
        first, and Dee had given that card to you since", "R6; Ana's discard of a 12
        covered it first, and that card had been swapped away by Ana's power"; a claim of
        the same stamp won the lot, not a race (`_covered_first`): "R6, §7.4; at the same
        moment as Dee's snap, which took that card away: the lot put Dee first". The
        screen, line mode and the audit's report all say it in these words."""
        taken = self._taken.get((snap.owner, snap.slot))
        if taken is None or taken.when < self._topped.get(snap.top, 0):
            return None
        if taken.swapped:  # (no snap covered anything: what covered the top, if known, then the swap)
            power = f"that card had been swapped away by {self._possessive(taken.seat)} power"
            return f"R6; {power}" if story.covered_by is None else f"{self._covered_first(story)}, and {power}"
        who = "you" if taken.seat == self.me else self.names[taken.seat]
        to = None if taken.to is None else "you" if taken.to == self.me else self.names[taken.to]
        what = "snapped that card away" if to is None else f"given that card to {to}"
        if taken.top == snap.top or story.covered_by is None:  # (that snap covered the top card this one aimed at)
            if _tied(taken.stamp, story.stamp):
                did = "took that card away" if to is None else f"gave that card to {to}"
                return self._lot(taken.seat, f"{self._possessive(taken.seat)} snap", did)
            return f"R6; {who} had {what} first"
        return f"{self._covered_first(story)}, and {who} had {what} since"

    def _covered_first(self, story: _Story) -> str:
        """R6: what covered the top card a losing snap aimed at, in the rule's bracket:
        "R6; Ada's snap of an 8 covered it first" when it came at an earlier stamp; at the
        same stamp the two claims were made at the same moment, and the salted tie-break
        (§7.4), a lot, not speed, ordered them: "R6, §7.4; at the same moment as Ada's
        snap of an 8, which covered it: the lot put Ada first"."""
        cover = story.cover
        if cover is not None and _tied(cover.stamp, story.stamp):
            return self._lot(cover.seat, str(story.covered_by), "covered it")
        return f"R6; {story.covered_by} covered it first"

    def _lot(self, seat: int, what: str, did: str) -> str:
        """R6's bracket for a race `seat`'s claim (`what`) won by the table's lot, not by
        speed (§7.4). (No bracket inside it: the audit's readers and tests split on them.)"""
        winner = "you" if seat == self.me else self.names[seat]
        return f"R6, §7.4; at the same moment as {what}, which {did}: the lot put {winner} first"

    @staticmethod
    def _penalty_words(penalties: Sequence[PenaltyDrawn], story: _Story) -> str:
        """R6's penalty card, unless R7 ended the round because nothing was left to draw."""
        if not penalties and any(isinstance(n, RoundEnded) and n.exhausted for n in story.notes):
            return "but nothing was left to draw for the penalty (R7)"
        return "penalty card"

    def _penalty_where(self, game: Game, penalties: Sequence[PenaltyDrawn]) -> str:
        if not penalties:
            return ""
        which = self._moved(game, penalties[0].card)
        return f" (into slot {self.slot_label(penalties[0].slot)}{f': {which}' if which else ''})"

    def _private_look(self, game: Game, event: Revealed) -> list[Told]:
        """With private_faces, for an all-knowing narrator (the audit's): the card a
        player just drew. A seat's own narrator names its drawn card once, in the line on
        what it did with it ("You drew and discarded a 16", "You kept the drawn card (a
        16) in …", "a 16 was discarded for you"), not also as it drew it."""
        story = self._story
        if story is None or not isinstance(story.event, Draw) or game.zones().hand != event.card:
            return []
        return [Told(f"{self.name(event.to)} drew {self._words(game, event.card)}.", "private", event.to,
                     yours=event.to == self.me)]


_TELLERS = {
    RoundStarted: Narrator._tell_round_started,
    Ready: Narrator._tell_ready,
    PeekBarrierExpired: Narrator._tell_barrier,
    CallBandit: Narrator._tell_call,
    Draw: Narrator._tell_draw,
    Discard: Narrator._tell_discard,
    Exchange: Narrator._tell_exchange,
    TakeDiscard: Narrator._tell_take,
    Peek: Narrator._tell_peek,
    Spy: Narrator._tell_spy,
    Swap: Narrator._tell_swap,
    LookSwap: Narrator._tell_look_swap,
    DecideSwap: Narrator._tell_decide,
    SkipPower: Narrator._tell_skip,
    TurnTimedOut: Narrator._tell_timeout,
    Snap: Narrator._tell_snap,
}


_INTENT_WORDS: Final = {
    Ready: "ready", CallBandit: "Bandit announcement", Draw: "draw", Discard: "discard", Exchange: "exchange",
    TakeDiscard: "take from the discard pile", Peek: "peek", Spy: "spy", Swap: "swap", LookSwap: "look & swap",
    DecideSwap: "look & swap decision", SkipPower: "skipping the power", Snap: "immediate discard",
}


def _tied(first: int | None, then: int | None) -> bool:
    """Two claims of one Lamport stamp: the salted tie-break ordered them (§7.4)."""
    return first is not None and first == then


def _intent_words(intent: Intent) -> str:
    return _INTENT_WORDS.get(type(intent), type(intent).__name__)


__all__ = [
    "Narrator", "Told", "TOLD_KINDS", "UNKNOWN_CARD", "card_words", "card_named", "cut_short",
    "game_won", "possessive", "value_words", "slot_words", "power_words",
]  # fmt: skip
