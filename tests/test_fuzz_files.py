"""Untrusted records under fuzzing: the canonical roster (§6.6), fairness logs read by
the auditor (§10), TXT records found by mDNS (§5) and the card protocol's structures
(§8.8). Arbitrary and mutated valid inputs give a valid value or the typed error, and an
accepted value round-trips. Regression tests for what the fuzzer found come first."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p.errors import ProtocolError
from p2p.roster import parse_canonical
from p2p.wire import decode, encode
from tests import fuzz_corpus as corpus

SLOW_OK = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def test_a_roster_of_another_protocol_version_is_refused() -> None:
    # Found by the fuzzer: R with "proto": 2 was accepted, and the roster it gave back
    # encoded as protocol 1, so R and the roster it stood for disagreed.
    data = decode(corpus.game().canonical)
    assert parse_canonical(encode(data)).canonical() == encode(data)
    data["proto"] = 2
    with pytest.raises(ProtocolError, match="the roster is for protocol 2") as info:
        parse_canonical(encode(data))
    assert info.value.section == "§6.6"
