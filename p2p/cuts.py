"""What a seat tells its player of the others' reports of links they miss (§11.3).

Theory of operation
-------------------
Every ack says which seats its sender has no link to (§7.1 `away`); a seat that
reports one is a *cut* at this peer until its acks say otherwise, and the table waits
for that link as for a seat away (§11.3). Told as it comes, each report would often
mislead, so `CutWatch` decides when and how each is told:

* a report is held a moment first (`REPORT_HOLD`, or `CONTESTED_HOLD` when a seat it
  names says it reaches the reporter): the other end of a link cut for both reports it
  too by then, and a seat whose program ended is lost here too a moment later;
* one that names only seats this seat misses too, or seats that just came back and are
  dialling anew, or seats gone quiet here, is this seat's own loss, or theirs: it is
  said once, if it outlasts that (`unsaid`);
* one a named seat denies (it says it reaches the reporter) is told as the reporter's
  word, and the game ends naming the reporter if it is not over within the grace period;
* the two ends of one cut, both told, are one line; one naming only this seat (a link
  broken one way, or a lie) is told as such;
* one that comes back within `REPORT_RETURNS` of its end is one absence (§11.3): said
  once, and its end told once it stays over.

It is pure: the shell gives the reports with the time each began (an absence counts
only while this process runs), the grace period and what it knows of each seat (whether
it just came back, whether it went quiet, which seats say they reach a reporter), and
words what it answers (`CutTold`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

from p2p.order import HEARTBEAT_EVERY
from p2p.order.orderer import REPORT_RETURNS

# Seconds without a frame from a seat (acks come every second) after which another seat's
# report of a link lost to it waits to be told with this seat's own loss (`quiet`).
QUIET = 2 * HEARTBEAT_EVERY
# Seconds a report of a link that its other end, heard here, says it reaches waits before
# it is told as contested: the other end of a link cut for both reports it by then.
CONTESTED_HOLD = QUIET
# Seconds any other report of a link lost waits before it is told: a seat whose program
# ended is lost by every seat within moments, and this seat's own loss then tells it once.
REPORT_HOLD = HEARTBEAT_EVERY

Reports = Mapping[int, tuple[float, tuple[int, ...]]]
"""Seat -> (since when, the seats it has no link to): the reports standing here."""


@dataclass(frozen=True)
class CutTold:
    """A report of `seat`'s the player is told of, by `what`: `keeps coming back`,
    `contested` (`denied`: the seats that say they reach the reporter), `one way` (it
    names only this seat), `between` (the two ends of one cut), `reconnecting` (a
    reporter just back, dialling anew), `lost`, or `over` (it ended; `contested`: it was
    told as the reporter's word). `seats`: the seats it names that the player was not
    told of already (for `keeps coming back`, all of them, this seat too); `left`:
    seconds of the grace period left."""

    seat: int
    what: str
    seats: tuple[int, ...] = ()
    denied: tuple[int, ...] = ()
    left: float = 0.0
    contested: bool = False


class CutWatch:
    """The reports of missing links told to one seat's player (§11.3)."""

    def __init__(self, me: int, *, silence: float) -> None:
        """`silence`: how long a link may stay silent before it is known lost (§11.3)."""
        self.me = me
        self.silence = silence
        self.cut_off: dict[int, tuple[int, ...]] = {}  # seat -> seats it reported no link to (told on screen)
        self.told: set[int] = set()  # seats whose report the player was told
        self.unsaid: set[int] = set()  # seats whose report named only seats missed here too, or just back (not told yet)
        self._held: dict[int, float] = {}  # seat -> since when its report waits: it names seats quiet here too
        self._with: set[int] = set()  # seats whose report was told with the other end's (one cut, one line)
        self._contested: set[int] = set()  # seats whose report was told as their word, the seats it names denying it
        # seat -> (when, what it said) its told report ended: one back within `REPORT_RETURNS` is the same (§11.3)
        self._over: dict[int, tuple[float, tuple[int, ...]]] = {}
        self._flapping: set[int] = set()  # seats whose told report came back so: its end is told once it stays over

    def track(self, now: float, reports: Reports, *, grace: float, waiting_for: Collection[int],
              just_back: Callable[[int], bool], quiet: Callable[[int], bool],
              reaching: Callable[[int, tuple[int, ...]], list[int]]) -> tuple[list[CutTold], bool]:
        """The reports standing now (`reports`), the seats the player was told the table
        waits for (`waiting_for`), and of each seat whether it came back a moment ago
        (`just_back`), went quiet here (`quiet`: nothing heard for a while) and which of
        the seats a report names say they reach its reporter (`reaching`). What the player
        is to be told, and whether the reports changed at all."""
        told: list[CutTold] = []
        cut_off = {seat: away for seat, (_, away) in reports.items()}
        for seat, away in cut_off.items():
            left = max(0.0, reports[seat][0] + grace - now)  # (a report told late: its grace period ran meanwhile)
            # (this seat is left out: the report came on the reporter's own link to it, so
            # it is stale, an ack made before that link was back, or false)
            others = [s for s in away if s != self.me]
            back = just_back(seat)  # (a seat that resumed dials anew)
            over = self._over.pop(seat, None)
            if over is not None and now < over[0] + REPORT_RETURNS and set(over[1]) & set(away):
                if seat not in self._flapping:  # (back soon: the same absence goes on, §11.3; said once)
                    self._flapping.add(seat)
                    self.told.add(seat)
                    told.append(CutTold(seat, "keeps coming back", tuple(away), left=left))
                continue
            # (a report that changed only in naming this seat changed nothing it was told: a seat
            # resumed first names every seat, then the others once its link to this one is up)
            before = self.cut_off.get(seat)
            unchanged = before is not None and [s for s in before if s != self.me] == others
            if (unchanged and seat not in self.unsaid) or (not others and back):
                continue
            news = [s for s in others if s not in waiting_for]
            gone_quiet = any(quiet(s) for s in news)
            if not gone_quiet:
                self._held.pop(seat, None)
            if others and not news:  # (every seat it misses this seat misses too: said once, as this seat's own)
                self.unsaid.add(seat)  # (said once this seat has its own links back, if it still holds)
                continue
            if news and all(just_back(s) for s in news):  # (their own dialling anew, which they report)
                self.unsaid.add(seat)  # (said if it outlasts their return)
                continue
            if gone_quiet and now < self._held.setdefault(seat, now) + self.silence:
                self.unsaid.add(seat)  # (this seat is likely losing them too: said with its own loss, once)
                continue
            others = news
            # (a seat gone quiet here says nothing now: its last word is from before)
            denied = [] if back else [s for s in reaching(seat, tuple(others)) if s != self.me and not quiet(s)]
            # (the other end of a link really lost says so soon: told then as agreed; and a seat
            # whose program ended is lost here too a moment later: told then once, as this seat's own)
            if now < reports[seat][0] + min(CONTESTED_HOLD if denied else REPORT_HOLD, grace / 2):
                self.unsaid.add(seat)
                continue
            self.unsaid.discard(seat)
            self.told.add(seat)
            if denied:  # (the two ends disagree: the reporter's word, not a fact; the game ends naming it, §11.3)
                self._contested.add(seat)
                told.append(CutTold(seat, "contested", tuple(others), tuple(denied), left))
                continue
            self._contested.discard(seat)
            if not others:  # (a link broken one way, or a lie: it still ends the game after the grace period)
                told.append(CutTold(seat, "one way", left=left))
                continue
            # (the other end of a link cut for both reports it too: one line tells the cut)
            ends = [s for s in others if seat in cut_off.get(s, ())]
            if ends and len(ends) == len(others) and all(s in self.told and s not in self._contested for s in ends):
                self._with.add(seat)  # (nor is its end told: the other end's is)
                continue
            if ends and len(others) == 1 and not back:
                told.append(CutTold(seat, "between", tuple(others), left=left))
            else:
                told.append(CutTold(seat, "reconnecting" if back else "lost", tuple(others), left=left))
        for seat in self.cut_off.keys() - cut_off.keys():
            self.unsaid.discard(seat)
            self._held.pop(seat, None)
            if seat in self.told:  # (one that keeps coming back: told once it stays over)
                self._over[seat] = (now, self.cut_off[seat])
            if seat not in self._flapping:
                told += self._ended(seat)
        for seat, (ended, _) in list(self._over.items()):
            if now >= ended + REPORT_RETURNS:
                del self._over[seat]
                if seat in self._flapping:
                    self._flapping.discard(seat)
                    told += self._ended(seat)
        changed = cut_off != self.cut_off
        self.cut_off = cut_off
        return told, changed

    def _ended(self, seat: int) -> list[CutTold]:
        """`seat`'s report has ended (one that kept coming back: once it stayed over). If it
        was told, its end is told once, as the report was (its word, when contested), and
        not for the second end of a cut told in one line; what was told of it is forgotten."""
        told = []
        if seat in self.told:
            self.told.discard(seat)
            if seat not in self._with:
                told.append(CutTold(seat, "over", contested=seat in self._contested))
        self._with.discard(seat)
        self._contested.discard(seat)
        return told

    def own_loss(self, waiting_for: Collection[int]) -> None:
        """This seat lost links itself: another seat's report told just before, of the same
        links (one player's crash, heard of first from another), is now this seat's own
        loss, its end not told as "… reaches everybody again" (unless it outlasts this
        seat's own return). A report that names only this seat is another matter (a link
        broken one way): it stays told."""
        for seat in list(self.told):
            others = [s for s in self.cut_off.get(seat, ()) if s != self.me]
            if others and all(s in waiting_for for s in others):
                self.told.discard(seat)
                self.unsaid.add(seat)

    def deadline(self, now: float, standing: Callable[[], Reports], grace: float) -> float | None:
        """When a report that keeps coming back is next told over, or one held a moment is
        next told, whatever comes meanwhile (`standing`: the reports, asked only then)."""
        times = [ended + REPORT_RETURNS for seat, (ended, _) in self._over.items() if seat in self._flapping]
        reports = standing() if self.unsaid else {}
        times += [t for seat in self.unsaid if seat in reports
                  for t in (reports[seat][0] + min(hold, grace / 2) for hold in (REPORT_HOLD, CONTESTED_HOLD))
                  if t > now]
        return min(times, default=None)
