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
