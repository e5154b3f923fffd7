"""Untrusted records under fuzzing: the canonical roster (§6.6), fairness logs read by
the auditor (§10), TXT records found by mDNS (§5) and the card protocol's structures
(§8.8). Arbitrary and mutated valid inputs give a valid value or the typed error, and an
accepted value round-trips. Regression tests for what the fuzzer found come first."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p.errors import ProtocolError
from p2p.roster import PROTOCOL_VERSION, parse_canonical
from p2p.wire import decode, encode
from tests import fuzz_corpus as corpus
from tests.fuzz_mutate import Codec
from tests.fuzz_strategies import mutants
from tests.fuzz_targets import ACCEPTED, PARSER_NAMES, REJECTED, FileTarget, make_target

SLOW_OK = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def test_a_roster_of_another_protocol_version_is_refused() -> None:
    # Found by the fuzzer: R with another "proto" was accepted, and the roster it gave
    # back encoded as this program's protocol, so R and the roster it stood for disagreed.
    data = decode(corpus.game().canonical)
    assert parse_canonical(encode(data)).canonical() == encode(data)
    data["proto"] = PROTOCOL_VERSION + 1
    with pytest.raises(ProtocolError, match=f"the roster is for protocol {PROTOCOL_VERSION + 1}") as info:
        parse_canonical(encode(data))
    assert info.value.section == "§6.6"


@settings(SLOW_OK, max_examples=150)
@given(st.data())
def test_mutated_rosters_parse_to_the_same_r_or_are_refused(data: st.DataObject) -> None:
    target = make_target("roster")
    target.run(data.draw(mutants(target.seeds(), Codec.MSGPACK)))


@settings(SLOW_OK, max_examples=80)
@given(st.data())
def test_mutated_logs_read_or_fail_with_a_log_error(data: st.DataObject) -> None:
    target = make_target("log")
    target.run(data.draw(mutants(target.seeds(), Codec.FRAMES)))


@settings(SLOW_OK, max_examples=80)
@given(st.binary(max_size=200))
def test_arbitrary_files_are_not_logs(blob: bytes) -> None:
    assert make_target("log").run(blob) is REJECTED


@settings(SLOW_OK, max_examples=15)
@given(st.data())
def test_the_audit_of_a_mutated_log_never_raises(data: st.DataObject) -> None:
    target = make_target("audit")
    target.run(data.draw(mutants([corpus.game().short_log], Codec.FRAMES)))


TXT_KEYS = st.sampled_from([b"table", b"host", b"seats", b"free", b"proto", b"fp", b"x", b"", b"seats "])
TXT_VALUES = st.one_of(st.none(), st.binary(max_size=70), st.integers(-3, 10).map(lambda n: str(n).encode()),
                       st.binary(min_size=32, max_size=32).map(lambda b: b.hex().encode()))


@settings(SLOW_OK, max_examples=150)
@given(st.dictionaries(TXT_KEYS, TXT_VALUES, max_size=8))
def test_txt_records_give_a_table_or_are_ignored(properties: dict) -> None:
    make_target("txt").run(corpus.txt_rdata(properties))


@settings(SLOW_OK, max_examples=150)
@given(st.data())
def test_mutated_txt_records_give_a_table_or_are_ignored(data: st.DataObject) -> None:
    target = make_target("txt")
    target.run(data.draw(mutants(target.seeds(), Codec.TXT)))


def test_real_records_are_accepted() -> None:
    for name in ("roster", "deck", "txt", "log"):
        target = make_target(name)
        assert all(target.run(seed) is ACCEPTED for seed in target.seeds()), name
    assert make_target("audit").run(corpus.game().log) is ACCEPTED


@settings(SLOW_OK, max_examples=200)
@given(st.data())
def test_mutated_card_structures_round_trip_or_blame_their_sender(data: st.DataObject) -> None:
    target = make_target("deck")
    target.run(data.draw(mutants(target.seeds(), Codec.MSGPACK)))


@settings(SLOW_OK, max_examples=100)
@given(st.integers(0, len(PARSER_NAMES) - 1), st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.binary(max_size=70) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["chain", "step", "deck", "perm", "e", "s", "key", "round", "nonce", "commit", "position", "share", "scalars", "salt", "proof"]), inner, max_size=6),
    max_leaves=12))
def test_any_value_read_as_a_card_structure_is_parsed_or_malformed(parser: int, value: object) -> None:
    make_target("deck").run(encode([parser, value]))


def test_s10_1_a_log_target_leaves_no_file_behind() -> None:
    # Each target writes inputs into a temporary folder of its own; the property tests
    # make hundreds of targets, and every run of the suite used to leave their folders.
    target = FileTarget()
    folder = Path(target.folder.name)
    assert target.run_log(b"not a log") is REJECTED
    assert (folder / "input.bandit-log").exists()
    del target
    assert not folder.exists()
