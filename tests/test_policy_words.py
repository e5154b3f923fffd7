"""§9.8: the reason a seat gives in its `leave` when it stops a peer (`Verdict.leave_reason`)."""

from __future__ import annotations

from p2p.plain import broke
from p2p.policy import Response, Verdict

NAMES = ["Ann", "Bo", "Cy"]


def test_s9_8_a_leave_names_the_culprit_in_plain_words_with_the_detail_when_it_fits() -> None:
    verdict = Verdict(Response.ABORT, 1, "§8.4", "shuffle-proof: step 1's proof does not hold")
    did = broke("§8.4", verdict.reason)
    assert did is not None
    assert verdict.leave_reason(NAMES) == f"Bo {did} [§8.4]. In detail: §8.4: shuffle-proof: step 1's proof does not hold"


def test_s9_8_a_leave_whose_detail_is_too_long_keeps_the_plain_sentence_whole_not_cut() -> None:
    """A `leave` reason holds 200 characters: the plain sentence goes whole, its detail left
    to the log's note, rather than a sentence cut in the middle of a word."""
    verdict = Verdict(Response.ABORT, 1, "§8.4", "shuffle-proof: " + "the deck at position 7 " * 12)
    reason = verdict.leave_reason(NAMES)
    assert len(reason) <= 200
    assert reason == f"Bo {broke('§8.4', verdict.reason)} [§8.4]"


def test_s9_11_withheld_work_is_said_in_a_player_s_words_not_the_protocol_s() -> None:
    """"Bo withheld their beacon message" told a player nothing: each kind of ordered work
    a seat can withhold (§9.11) is said as what it does for the table; the protocol's word
    stays in the detail."""
    from p2p.table.machine import STALL_WORDS

    for work in STALL_WORDS.values():
        said = broke("§9.11", f"withheld {work}: every other seat stopped waiting for it (§9.11)")
        assert said is not None and said.startswith("withheld "), work
        bare = f"withheld their {work.removeprefix('its ')}, so"
        assert not said.startswith(bare) or work == "its share", said  # (a share is a player's word already)
    assert broke("§9.11", "withheld its beacon message: every other seat stopped waiting for it (§9.11)") == (
        "withheld their part of the round's lot, which picks the first player and orders moves made at the same "
        "moment, so the table could not go on")


def test_s4_5_a_signed_frame_of_the_wrong_form_is_told_as_malformed_not_forged() -> None:
    """A `signed` frame whose `body` is no bin breaks §4.5's schema, the frame's: its
    sender sent a message of the wrong form; nothing was forged (no signature was
    checked)."""
    from p2p.errors import SchemaError
    from p2p.policy import on_link_fault

    error = SchemaError("§4.5", "signed.body", "bin of 1 to 1048576 bytes", "str")
    line = on_link_fault(error, 2).line(NAMES)
    assert line.startswith("Cy sent a message of the wrong form [§4.5]; the game stops. In detail: §4.5: field "
                           "'signed.body'"), line
    assert "forged" not in line and "signature" not in line


def test_s7_1_a_header_of_the_wrong_types_breaks_s7_1_whatever_the_message() -> None:
    """A correctly signed message whose header field has the wrong type is `MalformedHeader`
    (§7.1), not a fault of its type's section (§9.5); a field the type's schema does not
    declare is that schema's (§4.4: the section that defines the message)."""
    import pytest

    from p2p.errors import ProtocolError
    from p2p.order import MESSAGES as ORDER_MESSAGES
    from p2p.schema import Schemas
    from p2p.table import MESSAGES

    schemas = Schemas(*MESSAGES, *ORDER_MESSAGES)
    skip = {"type": "skip-power", "v": 1, "from": bytes(32), "game": bytes(32), "lamport": 3, "seq": 0,
            "prev": bytes(32), "heads": [[-1, bytes(32)]], "round": 1, "turn": 1}
    schemas.check(skip)
    for field, value in (("lamport", "3"), ("heads", [[-1, "h"]]), ("game", None)):
        with pytest.raises(ProtocolError) as info:
            schemas.check({k: v for k, v in dict(skip, **{field: value}).items() if v is not None})
        assert info.value.section == "§7.1" and f"field 'skip-power.{field}" in info.value.reason, info.value
        assert broke("§7.1", info.value.reason) == "sent a message of the wrong form"
    with pytest.raises(ProtocolError) as info:
        schemas.check(dict(skip, extra=1))
    assert info.value.section == "§9.5" and "unknown field 'extra'" in info.value.reason
    assert broke("§9.5", info.value.reason) == "sent a message of the wrong form"
