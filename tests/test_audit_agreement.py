"""§10.3: several logs of one game tell the same game, or the comparison says where they
part and names a sender only when the logs prove it signed two different messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2p.agreement import compare
from p2p.audit import audit
from p2p.roster import TableRules
from p2p.signing import sign
from p2p.wire import decode_map, encode
from tests.tablesim import TableNetwork
from tests.test_audit_tamper import rewrite
from tests.test_table_games import SMALL_DECK


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> tuple[TableNetwork, list[Path]]:
    net = TableNetwork(3, 123, rules=TableRules(target=25, skills_text=SMALL_DECK), names=("Ann", "Bo", "Cy"))
    net.run()
    assert all(t.machine.finished for t in net.tables)
    return net, net.write_logs(tmp_path_factory.mktemp("logs"))


def test_s10_3_the_logs_of_one_game_agree(table: tuple[TableNetwork, list[Path]]) -> None:
    _, logs = table
    agreement = compare([audit(p) for p in logs])
    assert agreement.ok and agreement.parting is None
    assert agreement.summary() == f"All 3 logs tell the same game: {agreement.records} messages in the same order."
    unreadable = audit(logs[0].parent / "missing.bandit-log")
    assert compare([audit(p) for p in logs] + [unreadable]).summary().startswith("The 3 readable logs tell the same game")


def test_s10_3_a_log_closed_early_holds_a_prefix_and_agrees(table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    _, logs = table
    early = rewrite(logs[1], tmp_path, lambda m: m[:60], why="stopped")
    results = [audit(logs[0]), audit(early)]
    agreement = compare(results)
    assert agreement.ok, agreement.parting
    assert "Bo's ends after 60: it was closed early" in agreement.summary()
    assert not results[1].ok  # (its own audit still says it ends before the game did)


def test_s10_3_logs_of_two_games_do_not_agree(table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    _, logs = table
    other = TableNetwork(3, 124, rules=TableRules(target=25, skills_text=SMALL_DECK))
    other.run()
    agreement = compare([audit(logs[0]), audit(other.write_logs(tmp_path)[0])])
    assert not agreement.ok and agreement.parting is not None
    assert agreement.parting.section == "§10.3" and "not logs of one game" in agreement.parting.what
    assert agreement.parting.seat is None


def test_s10_3_the_same_messages_in_another_order_part_the_logs_and_blame_nobody(
        table: tuple[TableNetwork, list[Path]], tmp_path: Path) -> None:
    _, logs = table

    def swap(messages):  # type: ignore[no-untyped-def]
        messages[40], messages[41] = messages[41], messages[40]
        return messages

    agreement = compare([audit(logs[0]), audit(rewrite(logs[1], tmp_path, swap))])
    parting = agreement.parting
    assert parting is not None and parting.record == 40 and parting.seat is None
    assert parting.section == "§10.3" and "nobody is blamed" in parting.what


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
    assert f"signed two different messages as its content message {inner['seq']}" in parting.what
    # the same fork with a signature its sender never made proves nothing about the sender
    unsigned = (forged[0], bytes(64))
    agreement = compare([audit(logs[0]), audit(rewrite(logs[2], tmp_path, lambda m: m[:index] + [unsigned], why="stopped"))])
    assert agreement.parting is not None and agreement.parting.seat is None


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
