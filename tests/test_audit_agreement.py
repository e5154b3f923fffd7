"""§10.3: several logs of one game tell the same game, or the comparison says where they
part and names a sender only when the logs prove it signed two different messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2p.agreement import compare
from p2p.plain import SHARE_MESSAGES, ordinal, side_message
from p2p.audit import AuditResult, audit
from p2p.roster import TableRules
from p2p.signing import sign
from p2p.wire import decode_map, encode
from tests.tablesim import TableNetwork
from tests.test_audit_tamper import rewrite
from tests.test_table_games import SMALL_DECK


def finished_table(tmp_path_factory: pytest.TempPathFactory, seed: int,
                   names: tuple[str, str, str]) -> tuple[TableNetwork, list[Path]]:
    """A game of three played to its end (to 25, the small deck), with every seat's log."""
    net = TableNetwork(3, seed, rules=TableRules(target=25, skills_text=SMALL_DECK), names=names)
    net.run()
    assert all(t.machine.finished for t in net.tables)
    return net, net.write_logs(tmp_path_factory.mktemp("logs"))


# The tests share what a module fixture plays: one worker plays it and runs them all
pytestmark = pytest.mark.xdist_group("audit_agreement")


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> tuple[TableNetwork, list[Path]]:
    return finished_table(tmp_path_factory, 130, ("Ann", "Bo", "Cy"))


def test_s10_3_the_logs_of_one_game_agree(table: tuple[TableNetwork, list[Path]]) -> None:
    _, logs = table
    agreement = compare([audit(p) for p in logs])
    assert agreement.ok and agreement.parting is None
    assert agreement.summary() == f"All 3 logs tell the same game: {agreement.records} messages in the same order."
    unreadable = audit(logs[0].parent / "missing.bandit-log")
    assert compare([audit(p) for p in logs] + [unreadable]).summary().startswith("The 3 readable logs tell the same game")


def test_s10_3_a_log_whose_messages_agree_under_an_end_no_table_writes_is_false_and_the_others_tell_the_game(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    """Bo's log holds every message of the finished game but its writer signed an end
    that names Cy absent, which no table writes (§10.2): the comparison says that log is
    false, its writer's, though its records are the others', and sets it aside; the
    other two tell the game."""
    _, logs = table
    forged = rewrite(logs[1], tmp_path, lambda m: m, why="Cy was away for more than 120 s", absent=2)
    results = [audit(logs[0]), audit(forged), audit(logs[2])]
    assert not results[1].ok and results[1].first_failure.section == "§10.1"
    agreement = compare(results)
    summary = agreement.summary()
    assert summary.startswith("Bo's log (tampered.bandit-log) is false (see its verdict): its own audit finds the "
                              "file altered (§10.1) under a log.end that Bo's key signed over it as it is, though the "
                              "other logs hold the same "), summary
    assert summary.endswith(f"The other 2 logs tell the same game: {agreement.records} messages in the same order.")
    # a log that holds every message but was never closed (its writer crashed) was not written otherwise
    from p2p.log import LOG_LIMITS
    from p2p.wire import split_frames

    data = logs[1].read_bytes()
    crashed = tmp_path / "crashed.bandit-log"
    crashed.write_bytes(data[:[at for at, _ in split_frames(data, LOG_LIMITS)][-1]])
    unclosed = audit(crashed)
    assert not unclosed.ok and unclosed.contents is not None and unclosed.contents.ended is None
    assert compare([results[0], unclosed]).summary().startswith("Both logs tell the same game")


def test_s10_3_a_log_closed_early_holds_a_prefix_and_agrees(table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    _, logs = table
    early = rewrite(logs[1], tmp_path, lambda m: m[:60], why="stopped")
    results = [audit(logs[0]), audit(early)]
    agreement = compare(results)
    assert agreement.ok, agreement.parting
    assert "Bo's ends after 60: it was closed early" in agreement.summary()
    assert not results[1].ok  # (its own audit still says it ends before the game did)


def test_s10_3_a_shorter_log_whose_closing_record_its_writer_did_not_sign_is_said_so_in_a_player_s_words(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    """Where every log given is damaged (none is set aside), the summary says where the
    shorter one ends as its own verdict does, in words a player follows: its closing record
    (its `log.end`) does not carry its writer's signature."""
    _, logs = table
    early = rewrite(logs[1], tmp_path, lambda m: m[:60], why="stopped")
    changed = tmp_path / "early.bandit-log"
    changed.write_bytes(early.read_bytes().replace(b"stopped", b"stoppex"))
    full = tmp_path / "full.bandit-log"
    full.write_bytes(logs[0].read_bytes().replace(b"the game ended", b"the game endex"))
    results = [audit(full), audit(changed)]
    assert [r.end_signed for r in results] == [False, False]
    assert ("(Bo's ends after 60: its closing record does not carry its writer's signature (the log was altered after "
            "it was closed))") in compare(results).summary()


def test_s10_1_a_log_whose_header_names_a_seat_the_roster_lacks_has_no_writer_and_is_set_aside_as_damaged(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    """Found by the fuzzer: a log closed early whose header named seat 4 of three failed its
    own audit, but kept that seat as its writer, and comparing it with another log looked
    the writer up in the roster (`IndexError`, where the auditor must never raise)."""
    from dataclasses import replace

    _, logs = table

    def change(messages):  # type: ignore[no-untyped-def]
        return messages[:60]

    change.header = lambda header: replace(header, seat=3)  # type: ignore[attr-defined]
    stray = audit(rewrite(logs[1], tmp_path, change, why="stopped"))
    assert stray.writer is None and stray.first_failure is not None
    assert stray.first_failure.section == "§10.1"
    assert stray.first_failure.what == "the header names its writer as seat 4, but the roster has 3 seats"
    agreement = compare([audit(logs[0]), stray])  # (its header was altered: it is damaged, §10.3)
    assert agreement.damaged == (stray,) and agreement.parting is not None and agreement.parting.seat is None
    assert agreement.parting.what.startswith("tampered.bandit-log is damaged (see its verdict): its own audit finds "
                                             "the file altered (§10.1: nobody is blamed), though Ann's log (seat0.bandit-log) "
                                             "holds the same 60 records in the same order"), agreement.parting.what


def test_s10_3_logs_of_two_games_do_not_agree(table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    _, logs = table
    other = TableNetwork(3, 124, rules=TableRules(target=25, skills_text=SMALL_DECK))
    other.run()
    agreement = compare([audit(logs[0]), audit(other.write_logs(tmp_path)[0])])
    assert not agreement.ok and agreement.parting is not None
    assert agreement.parting.section == "§10.3" and "these are logs of 2 different games" in agreement.parting.what
    assert agreement.parting.seat is None


def test_s10_3_the_same_messages_in_another_order_part_the_logs_and_blame_nobody(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    _, logs = table

    def swap(messages):  # type: ignore[no-untyped-def]
        messages[40], messages[41] = messages[41], messages[40]
        return messages

    swapped = audit(rewrite(logs[1], tmp_path, swap))
    agreement = compare([audit(logs[0]), swapped])  # (its own audit finds Bo's chain broken: it is set aside)
    parting = agreement.parting
    assert parting is not None and parting.record == 40 and parting.seat is None and agreement.damaged == (swapped,)
    assert parting.section == "§10.3" and parting.what.startswith(  # (no player; Bo's key signed its log so, §10.2)
        "Bo's log (tampered.bandit-log) is false (see its verdict): "), parting.what
    assert "it parts from Ann's log (seat0.bandit-log) at record 41: " in parting.what, parting.what  # (from 1 in words, §10.2)


def test_s10_3_two_bodies_signed_under_one_seq_name_their_signer(table: tuple[TableNetwork, list[Path]],
                                                                   tmp_path: Path) -> None:
    net, logs = table
    index = 50
    body, _ = audit(logs[0]).contents.messages[index]  # type: ignore[union-attr]
    inner = decode_map(body)
    seat = net.peers[0].orderer.seats.index(inner["from"])
    other = dict(inner, lamport=inner["lamport"] + 1000)  # the same seq, another message
    forged = sign(net.peers[seat].identity, other)

    def fork(messages):  # type: ignore[no-untyped-def]
        return messages[:index] + [forged]

    agreement = compare([audit(logs[0]), audit(rewrite(logs[2], tmp_path, fork, why="stopped"))])
    parting = agreement.parting
    assert parting is not None and parting.section == "§7.10" and parting.seat == seat
    assert (f"signed two different messages as its {ordinal(inner['seq'] + 1)} message to the table (content message "
            f"{inner['seq']})") in parting.what
    # the same fork with a signature its sender never made proves nothing about the sender
    unsigned = (forged[0], bytes(64))
    agreement = compare([audit(logs[0]), audit(rewrite(logs[2], tmp_path, lambda m: m[:index] + [unsigned], why="stopped"))])
    assert agreement.parting is not None and agreement.parting.seat is None


def test_s10_3_a_damaged_log_does_not_hide_two_bodies_signed_under_one_seq_in_the_others(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    """A damaged copy of a message (its signature does not verify) in the first log, and
    in another log a second body its sender signed under that seq: the comparison names
    the signer (§7.10), though the damaged copy comes first; it told only the damage."""
    net, logs = table
    index = 50
    body, _ = audit(logs[0]).contents.messages[index]  # type: ignore[union-attr]
    inner = decode_map(body)
    seat = net.peers[0].orderer.seats.index(inner["from"])
    forged = sign(net.peers[seat].identity, dict(inner, lamport=inner["lamport"] + 1000))
    damaged = (encode(dict(inner, lamport=inner["lamport"] + 2000)), bytes(64))
    for folder in ("damaged", "forked"):
        (tmp_path / folder).mkdir()
    first = audit(rewrite(logs[1], tmp_path / "damaged", lambda m: m[:index] + [damaged], why="stopped"))
    forked = audit(rewrite(logs[2], tmp_path / "forked", lambda m: m[:index] + [forged], why="stopped"))
    parting = compare([first, audit(logs[0]), forked]).parting
    assert parting is not None and parting.section == "§7.10" and parting.seat == seat, parting
    assert (f"signed two different messages as its {ordinal(inner['seq'] + 1)} message to the table (content message "
            f"{inner['seq']})") in parting.what


def test_s10_3_two_side_messages_signed_under_one_sseq_are_named_by_it_and_their_bytes(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    """A side message is named by its number in its sender's side chain, the `sseq` it
    holds, the same in every log; where each log holds it, by the byte its side record
    starts at (side records lie where each log took them, §10.3), never by its place
    among the log's side records."""
    from p2p.log import read_log

    net, logs = table
    first = read_log(logs[0])
    body, _ = first.sides[4]
    inner = decode_map(body)
    forged = _resign(net, body, sprev=bytes(32))

    def swap(sides):  # type: ignore[no-untyped-def]
        return [forged if side[0] == body else side for side in sides]

    altered = rewrite(logs[2], tmp_path, lambda m: m, sides=swap, why="stopped")
    second = read_log(altered)
    assert forged in second.sides
    parting = compare([audit(logs[0]), audit(altered)]).parting
    member = audit(logs[0]).member(inner["from"])
    assert parting is not None and parting.section == "§7.10" and member is not None and parting.seat == member.seat
    assert parting.record is None
    assert parting.what == (
        f"{member.name} (seat {member.seat + 1}) signed two different messages as its {side_message(inner['sseq'])} "
        f"({SHARE_MESSAGES}): {audit(logs[0]).writer_name}'s log ({logs[0].name}) in the record that starts "
        f"at byte {first.side_at[4]} holds one, {audit(altered).writer_name}'s log ({altered.name}) in the record "
        f"that starts at byte {second.side_at[second.sides.index(forged)]} the other"), parting.what


def test_s10_3_a_record_of_nonsense_parts_the_logs_without_raising(table: tuple[TableNetwork, list[Path]],
                                                                    tmp_path: Path) -> None:
    # Found by the fuzzer: a record whose "from" was a map stopped the comparison with a
    # TypeError (an unhashable sender)
    _, logs = table
    nonsense = (encode({"type": "x", "v": 1, "from": {"a": 1}, "seq": {"b": 2}}), bytes(64))
    altered = rewrite(logs[1], tmp_path, lambda m: m[:10] + [nonsense], why="stopped")
    agreement = compare([audit(logs[0]), audit(altered)])
    parting = agreement.parting
    assert parting is not None and parting.record == 10 and parting.seat is None
    assert "holds an unknown peer's message {'b': 2} (x)" in parting.what


def _resign(net: TableNetwork, body: bytes, **changes: object) -> tuple[bytes, bytes]:
    """`body` with `changes`, signed by its own sender (what a seat can do to its own messages)."""
    inner = decode_map(body)
    seat = net.peers[0].orderer.seats.index(inner["from"])
    return sign(net.peers[seat].identity, dict(inner, **changes))


def test_s10_3_a_message_of_another_game_proves_no_fork(table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    # A seat's message of another game (the same identities play often) spliced into a
    # log under the same seq must not be told as the seat signing two messages as one
    net, logs = table
    index = 10
    body, _ = audit(logs[0]).contents.messages[index]  # type: ignore[union-attr]
    replay = _resign(net, body, game=bytes(32))
    altered = rewrite(logs[1], tmp_path, lambda m: m[:index] + [replay] + m[index + 1:])
    own = audit(altered)
    assert not own.ok and own.first_failure.record == index and "another game" in own.first_failure.what
    agreement = compare([audit(logs[0]), own])
    assert agreement.parting is not None and agreement.parting.seat is None
    assert agreement.parting.section == "§10.3" and agreement.parting.what.startswith(  # (its writer signed it so)
        "Bo's log (tampered.bandit-log) is false (see its verdict): its own audit finds the file altered at record 11 "
        "(§7.1) under a log.end that Bo's key signed over it as it is"), agreement.parting.what


def test_s10_3_a_log_cut_short_with_an_absence_is_given_away_by_its_writer_s_done(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    """A writer cannot hide the end of a game behind the `absent` of its own `log.end`
    (which it signs as it likes): its own `done`, in the others' logs, says it logged the end."""
    _, logs = table
    why = "Cy was away longer than the grace period"
    cut = audit(rewrite(logs[0], tmp_path, lambda m: m[:60], why=why, absent=2))
    assert cut.ok and cut.left is not None  # on its own, an early end is all one log can show
    agreement = compare([cut, audit(logs[1]), audit(logs[2])])
    parting = agreement.parting
    assert parting is not None and parting.section == "§10.3" and parting.seat is None and parting.record == 60
    assert "Ann signed done" in parting.what and "records were removed" in parting.what
    assert agreement.damaged == (cut,) and agreement.rest.ok and agreement.told.path == logs[1]  # (set aside)
    # honest: the seat went away after the last round's openings, before every done arrived
    total = len(audit(logs[0]).contents.messages)  # type: ignore[union-attr]
    late = audit(rewrite(logs[0], tmp_path, lambda m: m[:total - 1], why=why, absent=2))
    assert late.ok and not late.finished and late.machine is not None and late.machine.engine.over
    assert compare([late, audit(logs[1]), audit(logs[2])]).ok


def test_s10_3_a_log_cut_short_with_an_absence_is_given_away_by_its_writer_s_messages_of_a_later_round(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    """Ann cuts her log in round 1 and signs an absence; Bo's log, closed early in round 2,
    holds no `done` of hers, but it holds her messages of round 2, which a seat signs only
    once its table began that round, on the openings it logged first (§10.3)."""
    _, logs = table
    rounds = [decode_map(body).get("round") for body, _ in audit(logs[0]).contents.messages]  # type: ignore[union-attr]
    cut_at = rounds.index(2) - 5  # (in round 1)
    ann = audit(rewrite(logs[0], tmp_path, lambda m: m[:cut_at], why="Cy was away too long", absent=2))
    assert ann.ok and ann.machine is not None and ann.machine.round_number == 1
    bo_path = tmp_path / "bo.bandit-log"
    rewrite(logs[1], tmp_path, lambda m: m[:rounds.index(2) + 20], why="stopped").rename(bo_path)
    parting = compare([ann, audit(bo_path)]).parting
    assert parting is not None and parting.section == "§10.3" and parting.record == cut_at
    assert "Ann signed a" in parting.what and "of round 2" in parting.what and "records were removed" in parting.what


def test_s10_2_a_head_that_names_another_message_blames_nobody_in_one_log(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    """A writer that re-signed one of its own messages (and chained its later ones on it)
    must not make the next message naming the original convict that honest sender. One
    log cannot tell who signed falsely; the others' logs can (§7.10)."""
    from p2p.order import message_hash

    net, logs = table
    messages = list(audit(logs[0]).contents.messages)  # type: ignore[union-attr]
    ann = net.peers[0].orderer.seats[0]
    mine = [i for i, (body, _) in enumerate(messages) if decode_map(body)["from"] == ann]
    first = mine[len(mine) // 2]
    altered_messages, prev = list(messages), None
    for i in mine[mine.index(first):]:
        inner = dict(decode_map(messages[i][0]))
        if prev is None:
            # name one message less of the first other seat it had heard from: still true
            heads = [list(h) for h in inner["heads"]]
            j = next(k for k, h in enumerate(heads) if h[0] >= 1)
            other = net.peers[0].orderer.seats[j + 1]
            earlier = next(body for body, _ in messages
                           if decode_map(body)["from"] == other and decode_map(body)["seq"] == heads[j][0] - 1)
            heads[j] = [heads[j][0] - 1, message_hash(earlier)]
            inner["heads"] = heads
        else:
            inner["prev"] = prev
        altered_messages[i] = sign(net.peers[0].identity, inner)
        prev = message_hash(altered_messages[i][0])
    result = audit(rewrite(logs[0], tmp_path, lambda m: altered_messages))
    failure = result.first_failure
    assert failure is not None and failure.section == "§7.5" and failure.seat is None
    assert "names a different message as Ann's seq" in failure.what and "one log cannot tell which" in failure.what
    agreement = compare([result, audit(logs[1])])
    assert agreement.parting is not None and agreement.parting.section == "§7.10" and agreement.parting.seat == 0


def test_s10_2_nothing_may_follow_the_end_of_the_game(table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    """A record after every seat's done is not accepted without a look: it fails the
    log, and the logs together say where it went on."""
    from p2p.order import message_hash

    net, logs = table
    messages = list(audit(logs[0]).contents.messages)  # type: ignore[union-attr]
    body, _ = messages[-1]
    inner = decode_map(body)
    again = _resign(net, body, seq=inner["seq"] + 1, prev=message_hash(body), lamport=inner["lamport"] + 1)
    result = audit(rewrite(logs[0], tmp_path, lambda m: m + [again]))
    failure = result.first_failure
    assert failure is not None and failure.record == len(messages) and failure.section == "§10.1"
    assert "after the end of the game" in failure.what
    parting = compare([result, audit(logs[1])]).parting  # and the logs together say where it went on
    assert parting is not None and parting.record == len(messages) and parting.seat is None
    assert "holds 1 record after the end of the game" in parting.what


def test_s10_1_a_log_end_naming_its_own_writer_absent_fails(table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    _, logs = table
    result = audit(rewrite(logs[0], tmp_path, lambda m: m[:60], why="Ann was away", absent=0))
    assert not result.ok and result.first_failure.section == "§10.1"
    assert "its own writer was away" in result.first_failure.what
    assert result.first_failure.signed_by == 0 and result.first_failure.seat is None  # (its key signed that end)
    parting = compare([result, audit(logs[1])]).parting  # (beside an honest log: set aside as false, its writer's)
    assert parting is not None and parting.what.startswith("Ann's log (") and " is false (see its verdict)" in parting.what, parting


def _leave_of(net: TableNetwork, log: Path, seat: int, seq: int, *, signer: int | None = None,
              reason: str = "it was stopped"):  # type: ignore[no-untyped-def]
    """A `leave` of `seat`'s as its content message `seq` would be, in the full `log`: its
    header fields (stamp, prev, heads) taken from that message, or for a seq past the
    log's, following its last. From and signed by `signer`, if given."""
    from p2p.order import message_hash
    from tests.ordersim import make_signer

    peer = net.peers[seat].identity.peer_id
    own = [(body, decode_map(body)) for body, _ in audit(log).contents.messages  # type: ignore[union-attr]
           if decode_map(body)["from"] == peer]
    if seq < len(own):
        inner = dict(own[seq][1])
    else:
        body, last = own[-1]
        inner = dict(last, seq=last["seq"] + 1, prev=message_hash(body), lamport=last["lamport"] + 1)
    for key in [k for k in inner if k not in ("from", "game", "lamport", "seq", "prev", "heads")]:
        del inner[key]
    inner.update(type="leave", v=1, reason=reason)
    if signer is not None:
        inner["from"] = net.peers[signer].identity.peer_id
    return make_signer(net.peers[seat if signer is None else signer].identity)(inner)


def _writer_seq_after(log: Path, cut: int, seat_peer: bytes) -> int:
    """The seq of the writer's first message past the first `cut` records."""
    return sum(1 for body, _ in audit(log).contents.messages[:cut]  # type: ignore[union-attr]
               if decode_map(body)["from"] == seat_peer)


def test_s10_1_a_log_closed_before_its_writer_s_leave_was_delivered_audits_and_agrees(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    """A seat that left while another was away could not have its `leave` delivered before
    it went (§9.8): its log ends short with `left` and that `leave`, and audits clean,
    naming the departure; next to another seat's log, ended by the absence, they agree."""
    net, logs = table
    leave = _leave_of(net, logs[0], 0, 10**6)  # (a seq no other log holds)
    mine = audit(rewrite(logs[0], tmp_path, lambda m: m[:60], why="you left the table", left="it was stopped",
                         leave=leave))
    assert mine.ok and not mine.finished, mine.first_failure
    assert mine.left is not None and mine.left.seat == 0 and mine.left.why == "left the table (it was stopped)"
    assert "Ann left the table (it was stopped), and this log was closed before" in mine.left.told
    other = tmp_path / "other"
    other.mkdir()
    theirs = audit(rewrite(logs[1], other, lambda m: m[:60], why="Ann was away for more than 120 s", absent=0))
    assert compare([mine, theirs]).ok
    # the leave is not needed (it may not have been signed, §7.3), but not with an absence too
    assert audit(rewrite(logs[0], tmp_path, lambda m: m[:60], why="you left", left="it was stopped")).ok


def test_s10_3_a_leave_in_a_log_end_that_another_log_contradicts_names_its_signer(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    """The `leave` a log's end holds is of its writer's content chain: another log holding
    a different message of that seq proves the writer signed two (§7.10)."""
    net, logs = table
    seq = _writer_seq_after(logs[0], 60, net.peers[0].identity.peer_id)
    leave = _leave_of(net, logs[0], 0, seq)
    mine = audit(rewrite(logs[0], tmp_path, lambda m: m[:60], why="you left the table", left="it was stopped",
                         leave=leave))
    assert mine.ok, mine.first_failure
    parting = compare([mine, audit(logs[1])]).parting
    assert parting is not None and parting.section == "§7.10" and parting.seat == 0
    assert "in its log.end" in parting.what


@pytest.mark.parametrize("tamper", ["absent too", "after the end", "another reason", "another signer", "no reason",
                                    "not after its messages"])
def test_s10_1_a_log_end_s_leave_that_an_honest_peer_never_writes_fails(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path, tamper: str) -> None:
    net, logs = table
    cut = len(audit(logs[0]).contents.messages) if tamper == "after the end" else 60  # type: ignore[union-attr]
    leave = _leave_of(net, logs[0], 0, 10**6, reason="another" if tamper == "another reason" else "it was stopped",
                      signer=1 if tamper == "another signer" else None)
    if tamper == "not after its messages":
        leave = _leave_of(net, logs[0], 0, 0)  # (its seq 0, which the log holds)
    result = audit(rewrite(logs[0], tmp_path, lambda m: m[:cut], why="you left the table",
                           left=None if tamper == "no reason" else "it was stopped", leave=leave,
                           absent=1 if tamper == "absent too" else None))
    assert not result.ok and result.first_failure is not None
    assert result.first_failure.section == "§10.1" and result.first_failure.seat is None
    assert "its log.end" in result.first_failure.what and "altered" in result.first_failure.what
    assert result.first_failure.signed_by == 0  # (its writer's key signed that end: the log is false, its writer's)


def test_s10_3_a_record_damaged_in_one_log_is_told_as_damage_there(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    """A byte changed in one log's copy of a record: beside the others' the comparison says
    that log is damaged and what of its copy differs (its own verdict names it), then how
    the others compare, not "Bo's log holds Cy's message 11, Ann's log Cy's message 11 …
    its peer broke the order", nor that the logs do not tell the same game when the
    others do; the Overall line says so, and that a damaged log cannot be verified.
    `--json` names the log set aside in `damaged`, as its path and its writer's seat."""
    from cli.audit import agreement_verdict
    from p2p.log import read_log
    from p2p.report import comparison_report

    _, logs = table
    contents = read_log(logs[1])
    index = 46
    body, sig = contents.messages[index]
    inner = decode_map(body)
    about = f"{('Ann', 'Bo', 'Cy')[[m.peer_id for m in audit(logs[0]).roster.members].index(inner['from'])]}'s " \
            f"message {inner['seq']} ({inner['type']})"  # type: ignore[union-attr]
    data = logs[1].read_bytes()
    for part, at in [("its signature", data.index(sig, contents.message_at[index]) + 10),
                     ("its body", data.index(body, contents.message_at[index]) + body.index(inner["prev"]) + 3)]:
        changed = bytearray(data)
        changed[at] ^= 1
        damaged = tmp_path / "flip.bandit-log"
        damaged.write_bytes(bytes(changed))
        bo = audit(damaged)
        assert bo.first_failure is not None and bo.first_failure.record == index
        agreement = compare([bo, audit(logs[0]), audit(logs[2])])  # (the damaged log first, as long as the others)
        parting = agreement.parting
        assert parting is not None and parting.seat is None and parting.record == index and parting.damaged == (bo,)
        if part == "its signature":
            assert parting.what == (f"Bo's log (flip.bandit-log) is damaged (see its verdict): its copy of record "
                                    f"{index + 1}, {about}, differs from the other logs' (its signature was changed)")
        else:  # (its body no longer says which message it is: the one its sender signed does)
            assert parting.what.startswith("Bo's log (flip.bandit-log) is damaged (see its verdict): its "), parting.what
            assert about in parting.what and "differs from the other logs'" in parting.what, parting.what
        assert not agreement.ok and not agreement.verified and agreement.damaged == (bo,)
        assert agreement_verdict(agreement)["damaged"] == [{"path": str(damaged), "writer": 1, "peer": "Bo"}]
        summary = agreement.summary()
        assert summary.startswith(parting.what + ". The other 2 logs tell the same game: "), summary
        assert "do not tell the same game" not in summary and "(its bytes)" not in summary
        assert list(comparison_report(agreement))[-1] == (
            "Overall: NOT VERIFIED: the 2 undamaged logs hold every check and tell the same game, which Cy won; but "
            "Bo's log (flip.bandit-log) is damaged, and a damaged log cannot be verified.")
        two = compare([audit(logs[0]), bo])
        assert list(comparison_report(two))[-1] == (
            f"Overall: NOT VERIFIED: Ann's log ({logs[0].name}) holds every check and tells a game that Cy won; but "
            "Bo's log (flip.bandit-log) is damaged, and a damaged log cannot be verified.")
        assert "differs from Ann's (" in two.summary(), two.summary()
        assert agreement_verdict(two)["damaged"] == [{"path": str(damaged), "writer": 1, "peer": "Bo"}]
    assert agreement_verdict(compare([audit(path) for path in logs]))["damaged"] == []


@pytest.mark.parametrize("part", ["signature", "body"])
def test_s10_3_two_copies_of_one_record_that_differ_and_neither_verify_set_both_logs_aside(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path, part: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Ann's and Bo's copies of one record each changed differently, so neither verifies:
    an honest peer logs only what verifies, so each log is damaged and set aside (not
    "the logs do not tell the same game", with nobody set aside), and the game is told
    from a log that is not damaged; with only those two, none is left to compare."""
    import json

    from cli.audit import agreement_verdict
    from cli.main import main
    from p2p.log import read_log
    from p2p.report import comparison_report, passed_over, told_from

    _, logs = table
    index = 47  # Cy's message
    changed = []
    for seat in (0, 1):
        contents = read_log(logs[seat])
        body, sig = contents.messages[index]
        data = bytearray(logs[seat].read_bytes())
        at = data.index(sig if part == "signature" else body, contents.message_at[index])
        data[at + (10 if part == "signature" else len(body) // 2)] ^= 1 << seat  # (a different bit in each)
        changed.append(tmp_path / f"{('ann', 'bo')[seat]}.bandit-log")
        changed[-1].write_bytes(bytes(data))
    ann, bo, cy = audit(changed[0]), audit(changed[1]), audit(logs[2])
    assert not ann.ok and not bo.ok and ann.first_failure.record == bo.first_failure.record == index  # type: ignore[union-attr]
    both = "Ann's log (ann.bandit-log) and Bo's log (bo.bandit-log) are damaged"

    two = compare([ann, bo])
    assert two.damaged == (ann, bo) and not two.agree and not two.verified
    assert two.parting is not None and two.parting.record == index and two.parting.seat is None
    assert two.parting.what.startswith(f"{both} (see their verdicts): their copies of record {index + 1}, Cy's message ")
    assert two.parting.what.endswith(", differ, and neither verifies"), two.parting.what
    out = agreement_verdict(two)
    assert out["damaged"] == [{"path": str(changed[0]), "writer": 0, "peer": "Ann"},
                              {"path": str(changed[1]), "writer": 1, "peer": "Bo"}]
    assert out["agree"] is False and out["parting"]["what"] == "fewer than two readable logs to compare"  # type: ignore[index]
    assert list(comparison_report(two))[-1] == f"Overall: NOT VERIFIED: {both}, and a damaged log cannot be verified."

    for given in ([ann, bo, cy], [cy, ann, bo]):  # (the two damaged first, or after the one that is not)
        three = compare(given)
        assert three.damaged == (ann, bo) and told_from(given, three.damaged) is cy
        assert list(comparison_report(three))[-1] == (
            f"Overall: NOT VERIFIED: Cy's log ({logs[2].name}) holds every check and tells a game that Cy won; but "
            f"{both}, and a damaged log cannot be verified.")
    assert main(["audit", "--json", str(changed[0]), str(changed[1]), str(logs[2])]) == 1
    out = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert out["told"] == str(logs[2]) and out["ok"] is False and len(out["damaged"]) == 2
    assert main(["audit", "--brief", str(changed[0]), str(changed[1]), str(logs[2])]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("ann.bandit-log and bo.bandit-log are damaged (see their own verdicts with the logs compared "
                        f"below): the game is told from {logs[2].name}, the first readable log that is not damaged.")
    assert lines[2] == f"Fairness log: {logs[2]}"
    (tmp_path / "empty.bandit-log").write_bytes(b"")
    assert list(passed_over([audit(tmp_path / "empty.bandit-log"), ann, bo, cy], cy, (ann, bo)))[0] == (
        "empty.bandit-log cannot be read as a log; ann.bandit-log and bo.bandit-log are damaged (see their own "
        f"verdicts with the logs compared below): the game is told from {logs[2].name}, the first readable log that "
        "is not damaged.")

    one = compare([ann, audit(logs[1]), cy])  # (one copy fails, the others' verify: that log alone is set aside)
    assert one.damaged == (ann,) and one.agree and told_from(one.logs, one.damaged).path == logs[1]


def test_s10_3_the_one_log_left_once_a_damaged_log_is_set_aside_is_set_aside_too_when_it_is_damaged(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    """Ann's copy of record 41 and Bo's of record 44 each changed, the other's copy of
    each verifying: once Ann's log is set aside no other is left to compare Bo's with,
    and Bo's was told as failing its own audit only; it is damaged just as Ann's is, and
    both are set aside (with Cy's, each of the three damaged at its own record)."""
    from cli.audit import agreement_verdict
    from p2p.log import read_log
    from p2p.report import comparison_report

    _, logs = table

    def changed(seat: int, indexes: tuple[int, ...], bit: int = 1, name: str = "") -> AuditResult:
        contents = read_log(logs[seat])
        data = bytearray(logs[seat].read_bytes())
        for index in indexes:
            data[data.index(contents.messages[index][1], contents.message_at[index]) + 10] ^= bit
        path = tmp_path / f"{name or ('ann', 'bo', 'cy')[seat]}.bandit-log"
        path.write_bytes(bytes(data))
        return audit(path)

    ann, bo, cy = changed(0, (40,)), changed(1, (43,)), changed(2, (46,))
    for given in ([ann, bo], [bo, ann]):
        two = compare(given)
        assert two.damaged == (ann, bo) and not two.agree, two.summary()
        summary = two.summary()
        assert summary.startswith("Ann's log (ann.bandit-log) is damaged (see its verdict): its copy of record 41, ")
        assert ". Bo's log (bo.bandit-log) is damaged (see its verdict): its copy of record 44, " in summary, summary
        assert summary.endswith("differs from Ann's (its signature was changed)."), summary
        assert list(comparison_report(two))[-1] == (
            "Overall: NOT VERIFIED: Ann's log (ann.bandit-log) and Bo's log (bo.bandit-log) are damaged, and a "
            "damaged log cannot be verified.")
        assert [d["peer"] for d in agreement_verdict(two)["damaged"]] == ["Ann", "Bo"]  # type: ignore[index]
    assert compare([ann, bo, cy]).damaged == (ann, bo, cy)
    assert compare([ann, bo, audit(logs[2])]).damaged == (ann, bo)
    # Ann's copy of record 47 changed too, and Bo's differently: Bo's differs from Ann's and
    # does not verify, though Ann's does not either
    ann, bo = changed(0, (40, 46), name="ann2"), changed(1, (46,), bit=2, name="bo2")
    two = compare([ann, bo])
    assert two.damaged == (ann, bo), two.summary()
    assert two.summary().endswith(". Bo's log (bo2.bandit-log) and Ann's log (ann2.bandit-log) are damaged (see "
                                  "their verdicts): their copies of record 47, Bo's message 16 (beacon.commit), differ, and "
                                  "neither verifies."), two.summary()


def test_s10_3_a_side_record_damaged_in_one_log_names_its_byte_in_each_log_once(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    """A side record's body changed in Bo's log: the comparison names the byte it starts
    at in Bo's log and in Ann's, once where both logs hold it at the same byte."""
    from p2p.agreement import Side, _unsigned_copy
    from p2p.log import read_log

    _, logs = table
    contents = read_log(logs[1])
    body, sig = contents.sides[3]
    at = contents.side_at[3]
    data = bytearray(logs[1].read_bytes())
    data[data.index(body, at) + len(body) // 2] ^= 1
    damaged = tmp_path / "flip.bandit-log"
    damaged.write_bytes(bytes(data))
    bo, ann, cy = audit(damaged), audit(logs[0]), audit(logs[2])
    parting = compare([ann, bo, cy]).parting
    inner = decode_map(body)
    message = (f"{bo.names[bo.roster.members.index(bo.member(inner['from']))]}'s "  # type: ignore[union-attr]
               f"{side_message(inner['sseq'])} ({SHARE_MESSAGES})")
    ann_at = ann.contents.side_at[[b for b, _ in ann.contents.sides].index(body)]  # type: ignore[union-attr]
    assert parting is not None and parting.damaged == (bo,)
    assert parting.what == (f"Bo's log (flip.bandit-log) is damaged (see its verdict): its copy of {message} differs "
                            f"from the other logs' (its body was changed; it starts at byte {at} in Bo's log and at "
                            f"byte {ann_at} in Ann's)"), parting.what
    bad = bo.contents.sides[3]  # type: ignore[union-attr]
    same = _unsigned_copy([ann, bo, cy], message, False, (ann, Side(at), body, sig), (bo, Side(at), *bad))
    assert same.what.endswith(f"(its body was changed; it starts at byte {at} in Bo's log and in Ann's)"), same.what


def test_s10_3_logs_that_name_different_seats_absent_say_so_in_the_overall_verdict(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    """Bo's log names Ann absent, Ann's and Cy's name Bo: seats that lost each other each
    wait for the other (§11.3), and each end is its writer's word, so the records still
    tell one game and can be FAIR; the Overall line says which log names whom (not one
    log's story alone), once: the comparison only says that they differ. `--json` gives
    each log's writer and the seat it names, as seats."""
    from cli.audit import agreement_verdict
    from p2p.agreement import AWAY_WORD
    from p2p.report import comparison_report

    _, logs = table
    rounds = [decode_map(body).get("round") for body, _ in audit(logs[0]).contents.messages]  # type: ignore[union-attr]
    cut = rounds.index(2) - 5  # (in round 1)
    results = []
    for seat, absent in [(1, 0), (0, 1), (2, 1)]:  # (Bo's log first)
        folder = tmp_path / str(seat)
        folder.mkdir()
        path = rewrite(logs[seat], folder, lambda m: m[:cut],
                       lambda s: [r for r in s if (decode_map(r[0]).get("round") or 0) <= 1],
                       why=f"{('Ann', 'Bo')[absent]} was away for more than 120 s", absent=absent)
        results.append(audit(path))
    assert all(r.ok and r.left is not None for r in results), [r.first_failure for r in results]
    agreement = compare(results)
    assert agreement.ok and agreement.verified
    differ = "Bo's log names Ann absent; Ann's and Cy's logs name Bo absent"
    assert agreement.away == differ
    assert agreement_verdict(agreement)["away"] == [
        {"writer": 1, "peer": "Bo", "left": {"seat": 0, "peer": "Ann"}},
        {"writer": 0, "peer": "Ann", "left": {"seat": 1, "peer": "Bo"}},
        {"writer": 2, "peer": "Cy", "left": {"seat": 1, "peer": "Bo"}}]
    assert agreement.summary().endswith(" They differ on who was away: see the Overall line.")
    assert differ not in agreement.summary() and AWAY_WORD not in agreement.summary()
    report = list(comparison_report(agreement))
    assert sum(differ in line for line in report) == 1 and sum(AWAY_WORD in line for line in report) == 1, report
    last = report[-1]
    assert last.startswith("Overall: FAIR: all 3 logs hold every check and tell the same game, which ended early, but "
                           f"they differ on who was away: {differ} ("), last
    same = compare([results[1], results[2]])  # (Ann's and Cy's: one story)
    assert same.away is None and "differ" not in list(comparison_report(same))[-1]


def test_s10_3_the_report_gives_every_other_log_s_notes_attributed_to_its_writer(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The game is told from Ann's log, with her notes; Bo's restart and Cy's lost link are
    in their own logs only: the report gives them after her notes, in the game's order,
    each as its writer's, and `--json` in `notes`. A note Ann's log already gives is not
    repeated (her log given twice); one event noted by Ann and by Cy is two accounts."""
    from cli.main import main
    from p2p.log import Note

    net, _ = table
    bo_id = net.peers[1].identity.peer_id
    lost = "link to Bo lost: connection closed"
    ann, bo, cy = net.write_logs(tmp_path, notes={
        0: [Note(38, lost)],
        1: [Note(40, "resumed after a restart: 52 records replayed from this log in 12 ms"),
            Note(52, "a frame that is not msgpack", net.peers[2].identity.peer_id, "§4.3")],
        2: [Note(38, lost, bo_id, "§11.3")],
    })
    assert main(["audit", str(ann), str(ann), str(bo), str(cy)]) == 0
    report = capsys.readouterr().out.splitlines()
    assert report.count(f"  after 38 messages in the agreed order: {lost}") == 1
    noted = report.index("What the other logs' writers noted as they played (3; each one's own account, unsigned, "
                         "no part of the verdict):")
    assert report[noted + 1:noted + 5] == [
        f"  Cy's log notes, after 38 messages in the agreed order: §11.3: {lost}",
        "  Bo's log notes, after 40 messages in the agreed order: resumed after a restart: 52 records replayed from this "
        "log (40 messages in the agreed order and 12 share messages) in 12 ms",
        "  Bo's log notes, after 52 messages in the agreed order: §4.3: a frame that is not msgpack (about Cy)",
        "",
    ]
    assert report[-1].startswith("Overall: FAIR")

    assert main(["audit", "--json", str(ann), str(bo), str(cy)]) == 0
    out = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert out["notes"] == [
        {"path": str(cy), "writer": 2, "peer": "Cy", "after": 38, "section": "§11.3", "text": lost,
         "about": {"seat": 1, "peer": "Bo"}},
        {"path": str(bo), "writer": 1, "peer": "Bo", "after": 40, "section": None,
         "text": "resumed after a restart: 52 records replayed from this log in 12 ms", "about": None},
        {"path": str(bo), "writer": 1, "peer": "Bo", "after": 52, "section": "§4.3",
         "text": "a frame that is not msgpack", "about": {"seat": 2, "peer": "Cy"}},
    ]
    assert main(["audit", "--brief", str(ann), str(bo), str(cy)]) == 0
    assert "noted" not in capsys.readouterr().out
    # (told from Bo's log, Ann's and Cy's notes are the others')
    assert main(["audit", "--json", str(bo), str(ann)]) == 0
    assert [(n["peer"], n["after"]) for n in json.loads(capsys.readouterr().out.splitlines()[-1])["notes"]] == [
        ("Ann", 38)]
    # (another log of Ann's, with a note hers lacks: that one is given, named by its file)
    (tmp_path / "copy").mkdir()
    copy = net.write_logs(tmp_path / "copy", notes={0: [Note(38, lost), Note(0, "no link to Cy yet")]})[0]
    main(["audit", str(ann), str(copy)])
    report = capsys.readouterr().out.splitlines()
    assert [line for line in report if " notes, " in line] == [
        f"  Ann's log ({copy.name}) notes, before the first message in the agreed order: no link to Cy yet"]
    # (told from Bo's log: another log of Ann's, with no note, names hers by its file too)
    (tmp_path / "plain").mkdir()
    plain = net.write_logs(tmp_path / "plain")[0]
    main(["audit", str(bo), str(plain), str(copy)])
    report = capsys.readouterr().out.splitlines()
    assert [line for line in report if " notes, " in line] == [
        f"  Ann's log ({copy.name}) notes, before the first message in the agreed order: no link to Cy yet",
        f"  Ann's log ({copy.name}) notes, after 38 messages in the agreed order: {lost}"]
