"""§5 with real mDNS on this machine (multicast on the loopback interface only)."""

from __future__ import annotations

import pytest
import trio

from p2p.discovery import SERVICE_TYPE, TableAd, advertise, browse
from p2p.roster import PROTOCOL_VERSION

LO = ["127.0.0.1"]

pytestmark = pytest.mark.xdist_group("mdns")  # one worker runs the mDNS tests, one at a time (pyproject.toml)


def _ad(table: str, free: int = 3, port: int = 40001) -> TableAd:
    return TableAd(table=table, host="alice", seats=4, free=free, proto=PROTOCOL_VERSION, fingerprint=bytes(range(32)),
                   port=port, addresses=("127.0.0.1",))


async def test_a_published_table_is_found_with_its_txt_record() -> None:
    with trio.fail_after(20):
        async with advertise(_ad("Kitchen table"), interfaces=LO) as ad:
            await ad.published.wait()
            found = await browse(5, interfaces=LO, table="Kitchen table")
            mine = [t for t in found if t.table == "Kitchen table"]
            assert mine and mine[0] == _ad("Kitchen table")
            assert mine[0].to_json()["address"] == "127.0.0.1"
        await ad.withdrawn.wait()
    assert SERVICE_TYPE == "_bandit-lan._tcp.local."


async def test_free_seats_update_and_withdrawal_removes_the_table() -> None:
    with trio.fail_after(30):
        async with advertise(_ad("Porch", free=3, port=40002), interfaces=LO) as ad:
            await ad.published.wait()
            ad.update(free=1)
            # The update is applied by the worker; browse until the new TXT is seen.
            while True:
                found = [t for t in await browse(2, interfaces=LO, table="Porch") if t.table == "Porch"]
                if found and found[0].free == 1:
                    break
            ad.withdraw()
            await ad.withdrawn.wait()
        assert not [t for t in await browse(1.5, interfaces=LO) if t.table == "Porch"]


def test_s5_2_a_txt_record_outside_its_rules_is_ignored_not_mended() -> None:
    """A TXT record outside its rules is ignored, not mended: an empty host name is not
    listed, an overlong table name not cut short, a seat count in Arabic-Indic digits not
    read as decimal."""
    from types import SimpleNamespace

    from p2p.discovery import ad_from_info

    good = {b"table": "Friday".encode(), b"host": b"alice", b"seats": b"4", b"free": b"3", b"proto": b"2",
            b"fp": b"ab" * 32}

    def ad(**changes: bytes):  # type: ignore[no-untyped-def]
        properties = {**good, **{k.encode(): v for k, v in changes.items()}}
        info = SimpleNamespace(properties=properties, port=41234, parsed_addresses=lambda version: ["192.168.1.20"])
        return ad_from_info(info)  # type: ignore[arg-type]

    assert ad() is not None and ad().table == "Friday"
    assert ad(host=b"") is None
    assert ad(table=b"x" * 41) is None and ad(host=b"y" * 25) is None
    assert ad(seats="\u0663".encode()) is None and ad(free=b"+3") is None and ad(proto=b"2 ") is None


async def test_s6_2_a_table_of_another_protocol_version_is_shown_as_such_and_not_joined(capsys) -> None:  # type: ignore[no-untyped-def]
    """A table of another protocol version is not listed like any other, nor joined at
    the cost of a round trip to a `version` refusal: `tables` marks it, and `join` says
    why it will not try, without connecting."""
    import argparse

    from cli.join import _find
    from cli.tables import render

    newer = TableAd(table="Attic", host="bob", seats=4, free=3, proto=PROTOCOL_VERSION + 1, fingerprint=bytes(32),
                    port=40003, addresses=("127.0.0.1",))
    ours = TableAd(table="Cellar", host="cy", seats=4, free=3, proto=PROTOCOL_VERSION, fingerprint=bytes(32),
                   port=40004, addresses=("127.0.0.1",))
    lines = render([ours, newer])
    assert "cannot join" not in lines[1] and f"another bandit-lan (protocol {PROTOCOL_VERSION + 1}): cannot join" in lines[2]
    with trio.fail_after(20):
        async with advertise(newer, interfaces=LO) as ad:
            await ad.published.wait()
            args = argparse.Namespace(table="Attic", timeout=3.0, interfaces=LO)
            assert await _find(args, lambda text: None) is None
    err = capsys.readouterr().err
    assert f"'Attic' speaks bandit-lan protocol {PROTOCOL_VERSION + 1} and this program speaks {PROTOCOL_VERSION}" in err
