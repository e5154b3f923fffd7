"""What a seat's table log says as it loses a link (§11.3): what the other seats
reported of it, and no claim about those that have not; and, as a link cut between two
others ends the game, that they could not reach each other."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
import trio.testing



async def test_11_3_a_lost_link_names_who_reported_it_and_claims_nothing_of_the_rest(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """Bo's report that he cannot reach Cy had come, Dee's had not: Ann's log read "Lost
    the link to Cy …, and Bo cannot reach Cy either", as if Dee could. It says that no
    word of Cy has come from Dee yet."""
    from p2p.transport import SILENCE, LinkDown
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 4)
    async with stack:
        ann, bo, cy, dee = peers
        names = ann.names
        now = ann.now()
        ann._heard.update({bo.me: now, dee.me: now, cy.me: now - 3.0})
        ann.orderer.cut_off = lambda: {bo.me: (now, (cy.me,))}  # type: ignore[method-assign]
        before = len(ann.lines)
        ann._link_down(LinkDown(cy.identity.peer_id, f"nothing heard for {SILENCE:.0f} s"))
        assert [line.text for line in ann.lines[before:]] == [
            f"Lost the link to {names[cy.me]} (nothing heard for 6 s), and {names[bo.me]} cannot reach "
            f"{names[cy.me]} either (no word of {names[cy.me]} yet from {names[dee.me]}); waiting for {names[cy.me]} "
            f"(the game ends if they are not back within {ann.grace:.0f} s)."]
        ann.log.close("the test ends here")


@pytest.mark.parametrize("lost_here", [True, False])
async def test_11_3_a_seat_lost_by_all_is_told_once_though_another_s_report_came_first(
        tmp_path: Path, mock_clock: trio.testing.MockClock, lost_here: bool) -> None:
    """Cy's terminal was closed: Bo's report that he cannot reach Cy came a moment before
    Ann's own link to Cy ended, and Ann read two lines for one loss ("Bo lost the link to
    Cy; the table waits …", then "Lost the link to Cy …, and Bo cannot reach Cy either").
    A report is told once it has stood a moment (`REPORT_HOLD`): by then this seat's own
    loss tells it once; a link lost only between Bo and Cy is told then."""
    from p2p.cuts import REPORT_HOLD
    from p2p.transport import LinkDown
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3)
    async with stack:
        ann, bo, cy = peers
        names = ann.names
        now = ann.now()
        ann._heard.update({bo.me: now, cy.me: now})
        # (Cy says so too, of its link to Bo, where it still runs: a link cut between the two)
        cut = {bo.me: (now, (cy.me,))} | ({} if lost_here else {cy.me: (now, (bo.me,))})
        ann.orderer.cut_off = lambda: cut  # type: ignore[method-assign]
        before = len(ann.lines)
        ann._track_links()
        assert [line.text for line in ann.lines[before:]] == []
        mock_clock.jump(REPORT_HOLD / 4)
        if lost_here:
            ann._link_down(LinkDown(cy.identity.peer_id, "connection closed"))
        mock_clock.jump(REPORT_HOLD)
        ann._heard.update({bo.me: ann.now()} | ({} if lost_here else {cy.me: ann.now()}))
        ann._track_links()
        told = [line.text for line in ann.lines[before:]]
        if lost_here:
            assert told == [f"Lost the link to {names[cy.me]} (connection closed), and {names[bo.me]} cannot reach "
                            f"{names[cy.me]} either; waiting for {names[cy.me]} (the game ends if they are not back "
                            f"within {ann.grace:.0f} s)."], told
        else:
            assert told == [f"{names[bo.me]} and {names[cy.me]} lost the link between them; the table waits for "
                            f"that link (the game ends if it is not back within {ann.grace - REPORT_HOLD * 1.25:.0f} "
                            "s)."], told
            cut = {}  # (the link is back: told once too)
            ann._track_links()
            assert [line.text for line in ann.lines[before:]][1:] == [f"{names[bo.me]} reaches everybody again."]
        ann.log.close("the test ends here")


async def test_4_6_an_error_frame_is_noted_as_the_claim_of_the_peer_that_sent_it(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """Cy closed its link to Ann with an ``error`` frame naming §8.5 ("you sent a false
    share"): Ann's log noted "link to Cy closed: §8.5: the peer reported: …" under §8.5
    against Cy, and the audit told it as Ann's accusation of Cy. It is Cy's claim: noted
    under §4.6 as a link Cy closed, in Cy's words, and the audit tells it so and accuses
    nobody with it."""
    from p2p.audit import audit
    from p2p.errors import RemoteError
    from p2p.report import _noted
    from p2p.transport import LinkDown
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3)
    async with stack:
        ann, bo, cy = peers
        claim = RemoteError("§8.5", "you sent a false share", cy.identity.certificate.short)
        ann._link_down(LinkDown(cy.identity.peer_id, str(claim), claim))
        ann.log.close("the test ends here")
    result = audit(tmp_path / "seat1.bandit-log")
    assert result.contents is not None
    [note] = [n for n in result.contents.notes if n.peer == cy.identity.peer_id]
    said = f'{ann.names[cy.me]} closed the link saying: "§8.5: you sent a false share" (its own words, in an error frame, §4.6)'
    assert (note.section, note.text) == ("§4.6", said)
    assert _noted(result, note) == said



@pytest.mark.parametrize("cut", [True, False], ids=["a cut between the two", "one gone from everybody"])
async def test_11_3_the_ends_of_a_cut_whose_goodbyes_came_as_it_ran_past_the_grace_period_are_not_said_away(
        tmp_path: Path, mock_clock: trio.testing.MockClock, cut: bool) -> None:
    """Ann and Cy could not reach each other; Bo reached both. The two ends time their
    grace period from their own loss, Bo from their reports, which reach it a moment
    later: so their games end first, and their goodbyes (§11.4) may reach Bo before its
    own grace period runs out. Bo then ended the game saying "Cy was away for more than
    120 s", as if its own link to Cy had been down all along. It says that Ann could not
    reach Cy, `absent` naming Cy as before. A seat that ended its game and said goodbye
    to everybody, reported by Ann, is still said away, as Ann says it."""
    from p2p.transport import LinkDown
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3, person=False)
    async with stack:
        ann, bo, cy = peers
        names = bo.names
        since = bo.now()
        reports = {ann.me: (since, (cy.me,)), cy.me: (since, (ann.me,))} if cut else {ann.me: (since, (cy.me,))}
        bo.orderer.cut_off = lambda: reports  # type: ignore[method-assign]
        bo.orderer.heard_content = lambda seat: True  # type: ignore[method-assign]  # (both sat down: a goodbye is a link lost)
        mock_clock.jump(bo.grace)
        for end, other in ((ann, cy), (cy, ann)) if cut else ((cy, ann),):  # (each ended its game meanwhile)
            said = f"{names[other.me]} was away for more than {bo.grace:.0f} s; no round was dealt"
            bo._on_event(LinkDown(end.identity.peer_id, f"left: {said}", clean=True, said=said))
        bo._check_links(bo.now())
        told = f"{names[ann.me]} could not reach {names[cy.me]}" if cut else f"{names[cy.me]} was away"
        assert bo._why == f"{told} for more than {bo.grace:.0f} s; no round was dealt", bo._why
        assert bo._absent_seat == cy.me
        bo.log.close("the test ends here")


async def test_s9_8_a_seat_that_sent_its_leave_tells_no_lost_link_as_one_it_waits_for(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """Ann's program was terminated and her `leave` reached Bo first: his game ended at it,
    and once Ann held what delivers it there he said goodbye (§11.4), before it came back
    to her. Her own terminal read "Lost the link to Bo (left: Ann left the table (their
    program was terminated)); waiting for Bo (the game ends if they are not back within
    120 s)": her own leaving in the third person, and a wait her game never makes, as it
    ends at her leave or after `LEAVE_WAIT` (§9.8). Bo still counts as away for her order,
    and she dials every seat whose link she loses until her game ends, as before."""
    from cli.stopping import REASONS
    from p2p.session import YOU_LEFT
    from p2p.transport import LinkDown
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3)
    async with stack:
        ann, bo, cy = peers
        ann.orderer.heard_content = lambda seat: True  # type: ignore[method-assign]  # (Bo sat down: the game is under way)
        terminated = REASONS[signal.SIGTERM]
        assert ann._send_leave(terminated, YOU_LEFT)
        before = len(ann.lines)
        said = f"{ann.names[ann.me]} left the table ({terminated})"
        ann._link_down(LinkDown(bo.identity.peer_id, f"left: {said}", clean=True, said=said))
        assert [line.text for line in ann.lines[before:]] == []
        assert bo.me not in ann.progress.waiting_for
        assert bo.me in ann._absent and ann._dials(bo.me)  # (still away for the order, and dialled, §9.8)
        ann.log.close("the test ends here")


@pytest.mark.parametrize("then", ["acks came", "link lost", "reported down"])
async def test_s9_11_a_seat_whose_acks_were_awaited_is_told_back_only_when_they_came(
        tmp_path: Path, mock_clock: trio.testing.MockClock, then: str) -> None:
    """Bo's program was stopped: the table waited for its acks ("Waiting for Bo's program
    to confirm …"), then lost its link, and the screen read "Bo acknowledges the table's
    messages again" while Bo was still frozen. Told back only when its acks came; a link
    lost is told as such, and so is a link another seat reports down in the same input
    in which the next delivery stops waiting on Bo (the shell gave the watch no
    reported cut whenever no seat's word was awaited, and "confirms" was said)."""
    from p2p.ackwaits import ACKS_LATE
    from tests.live_support import seat_live_table

    stack, peers = await seat_live_table(tmp_path, 3)
    async with stack:
        ann, bo, cy = peers
        name = ann.names[bo.me]
        held: list = [(("a message", 1), (bo.me,))]
        ann.orderer.holding_back = lambda: held[0]  # type: ignore[method-assign]
        before = len(ann.lines)
        ann._track_acks()
        mock_clock.jump(ACKS_LATE + 0.1)
        ann._track_acks()
        assert [line.text for line in ann.lines[before:]] == [
            f"Waiting for {name}'s program to confirm the table's last messages (§7.3): no move counts until it "
            "does, and the timers stand meanwhile."]
        if then == "link lost":
            ann._absent[bo.me] = ann.now()  # (as its link lost sets it: that line is told by the link's loss)
        else:
            held[0] = None
        if then == "reported down":  # (Cy's ack says it has no link to Bo: told by `CutWatch`)
            ann.orderer.cut_off = lambda: {cy.me: (ann.now(), (bo.me,))}  # type: ignore[method-assign]
        ann._track_acks()
        again = [line.text for line in ann.lines[before + 1:]]
        assert again == ([f"{name}'s program confirms the table's messages again."] if then == "acks came" else []), again
        ann.log.close("the test ends here")
