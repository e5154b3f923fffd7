"""§5 with real mDNS on this machine (multicast on the loopback interface only)."""

from __future__ import annotations

import argparse
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace

import pytest
import trio

from cli.host import _advertising
from cli.lobby_common import JoinHint
from p2p.identity import short_id
from p2p.discovery import SERVICE_TYPE, Advertisement, DiscoveryUnavailable, TableAd, advertise, browse
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
            assert mine[0].to_json()["address"] == "127.0.0.1" and mine[0].to_json()["code"] is False
            listed = mine[0].to_json()  # (`tables --json`: the peer id in hex, and the fingerprint players see)
            assert listed["fingerprint"] == mine[0].fingerprint.hex()
            assert listed["fingerprint_words"] == short_id(mine[0].fingerprint)
        await ad.withdrawn.wait()
        private = replace(_ad("Pantry", port=40002), code=True)  # (§5.2 `code`: the listing says it asks one)
        async with advertise(private, interfaces=LO) as ad:
            await ad.published.wait()
            found = await browse(5, interfaces=LO, table="Pantry")
            assert [t for t in found if t.table == "Pantry"] == [private]
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
    from p2p.identity import short_id

    newer = TableAd(table="Attic", host="bob", seats=4, free=3, proto=PROTOCOL_VERSION + 1, fingerprint=bytes(32),
                    port=40003, addresses=("127.0.0.1",))
    ours = TableAd(table="Cellar", host="cy", seats=4, free=3, proto=PROTOCOL_VERSION, fingerprint=bytes(32),
                   port=40004, addresses=("127.0.0.1",))
    lines = render([ours, newer])
    assert "cannot join" not in lines[1] and f"another bandit-lan (protocol {PROTOCOL_VERSION + 1}): cannot join" in lines[2]
    # on a narrow terminal, a table after the other, nothing broken where it would wrap
    narrow = render([ours, newer], 40)
    assert all(len(line) <= 40 for line in narrow) and "  address 127.0.0.1:40004" in narrow
    assert narrow.count(f"  fingerprint {short_id(bytes(32))}") == 2
    assert narrow[narrow.index("Attic") + 4:] == [f"  another bandit-lan (protocol {PROTOCOL_VERSION + 1}):",
                                                  "  cannot join"]
    assert render([ours, newer], 200) == lines
    # a table or host name longer than the terminal wraps at its words, still indented
    long = replace(ours, table="The long table by the kitchen window upstairs", host="bartholomew of the attic")
    narrow = render([long], 24)
    assert all(len(line) <= 24 for line in narrow), narrow
    assert narrow[:2] == ["The long table by the", "kitchen window upstairs"], narrow
    assert " ".join(" ".join(narrow[2:]).split()).startswith("host bartholomew of the attic, 3 of 4 seats free")
    assert all(line.startswith("  ") for line in narrow[2:]), narrow
    with trio.fail_after(20):
        async with advertise(newer, interfaces=LO) as ad:
            await ad.published.wait()
            args = argparse.Namespace(table="Attic", timeout=3.0, interfaces=LO)
            assert await _find(args, lambda text: None) is None
    err = capsys.readouterr().err
    assert f"'Attic' speaks bandit-lan protocol {PROTOCOL_VERSION + 1} and this program speaks {PROTOCOL_VERSION}" in err


class _Answers:
    """Unsolicited mDNS answers on loopback, resent until stopped: what anyone on the
    LAN may send, however malformed (§5.2)."""

    def __init__(self) -> None:
        self.records: list[tuple[str, str, int, dict[bytes, bytes] | None]] = []
        self._stop = threading.Event()

    def table(self, instance: str, port: int, txt: dict[bytes, bytes] | None, ptr_type: str = SERVICE_TYPE) -> None:
        """A PTR of `ptr_type` naming `instance`, with SRV, TXT and A behind it unless `txt` is None."""
        self.records.append((ptr_type, instance, port, txt))

    def _send(self) -> None:
        from zeroconf import DNSAddress, DNSOutgoing, DNSPointer, DNSService, DNSText, IPVersion, Zeroconf, const

        unique = const._CLASS_IN | const._CLASS_UNIQUE
        zc = Zeroconf(interfaces=LO, ip_version=IPVersion.V4Only)
        try:
            while not self._stop.is_set():
                out = DNSOutgoing(const._FLAGS_QR_RESPONSE | const._FLAGS_AA)
                for ptr_type, instance, port, txt in self.records:
                    out.add_answer_at_time(DNSPointer(ptr_type, const._TYPE_PTR, const._CLASS_IN, 120, instance), 0)
                    if txt is None:
                        continue
                    server = f"answers-{port}.local."
                    text = b"".join(bytes([len(k) + 1 + len(v)]) + k + b"=" + v for k, v in txt.items())
                    out.add_answer_at_time(DNSService(instance, const._TYPE_SRV, unique, 120, 0, 0, port, server), 0)
                    out.add_answer_at_time(DNSText(instance, const._TYPE_TXT, unique, 120, text), 0)
                    out.add_answer_at_time(DNSAddress(server, const._TYPE_A, unique, 120, bytes([127, 0, 0, 1])), 0)
                zc.send(out)
                self._stop.wait(0.3)  # (a responder's repeat interval, not a wait for something)
        finally:
            zc.close()

    @asynccontextmanager
    async def sent(self) -> AsyncIterator[None]:
        thread = threading.Thread(target=self._send, daemon=True)
        thread.start()
        try:
            yield
        finally:
            self._stop.set()
            await trio.to_thread.run_sync(thread.join)


_TXT = {b"table": b"Good", b"host": b"ann", b"seats": b"4", b"free": b"3", b"proto": str(PROTOCOL_VERSION).encode(),
        b"fp": b"ab" * 32}


async def test_s5_2_answers_anyone_may_send_are_ignored_or_read_without_breaking_the_browse() -> None:
    """A PTR naming an instance of another type is ignored (it raised out of `browse`,
    ending `tables`, `join` and the picker with a traceback); our type in other letter
    case is ours; an `fp` in capitals is not 64 lowercase hex digits; a key the browser
    does not read (a later version's binary `icon`) hides nothing; and instances that
    never resolve do not hold up the others: the real table is found well within the
    time a name may take to resolve."""
    answers = _Answers()
    answers.table("Evil._other._tcp.local.", 1, None)
    answers.table("Case._BANDIT-LAN._tcp.local.", 40101, {**_TXT, b"table": b"Case"})
    for n in range(3):
        answers.table(f"Dangling {n}.{SERVICE_TYPE}", 1, None)
    answers.table(f"Upper.{SERVICE_TYPE}", 40102, {**_TXT, b"table": b"Upper", b"fp": b"AB" * 32})
    answers.table(f"Future.{SERVICE_TYPE}", 40103, {**_TXT, b"table": b"Future", b"proto": b"9", b"icon": b"\xff\xfe"})
    answers.table(f"Good.{SERVICE_TYPE}", 40104, _TXT)
    with trio.fail_after(20):
        async with answers.sent():
            found = [t for t in await browse(3, interfaces=LO) if 40100 <= t.port < 40200]  # (not other tests' tables)
            assert {(t.table, t.proto, t.port) for t in found} == {
                ("Case", PROTOCOL_VERSION, 40101), ("Future", 9, 40103), ("Good", PROTOCOL_VERSION, 40104)}
            started = trio.current_time()
            assert [t.port for t in await browse(5, interfaces=LO, table="Good") if t.table == "Good"] == [40104]
            assert trio.current_time() - started < 4  # (resolving one dangling name after another: 4.5 s at least)


async def test_s5_3_join_by_name_sees_every_table_of_that_name_and_picks_by_fingerprint(capsys) -> None:  # type: ignore[no-untyped-def]
    """Two hosts that named their tables alike: `join NAME` says several match instead of
    dialling whichever answered first, and `--fingerprint` picks one of them (it was
    refused whenever the other answered first)."""
    import argparse

    from cli.join import _find
    from p2p.identity import short_id

    answers = _Answers()
    ann, bob = b"a1" * 32, b"b2" * 32
    answers.table(f"Dup.{SERVICE_TYPE}", 40201, {**_TXT, b"table": b"Dup", b"host": b"ann", b"fp": ann})
    answers.table(f"Dup-2.{SERVICE_TYPE}", 40202, {**_TXT, b"table": b"Dup", b"host": b"bob", b"fp": bob})
    args = argparse.Namespace(table="Dup", timeout=3.0, interfaces=LO)
    with trio.fail_after(30):
        async with answers.sent():
            assert await _find(args, lambda text: None) is None
            err = capsys.readouterr().err
            assert "several tables are named 'Dup', hosted by ann (" in err and "), bob (" in err
            assert "Add --fingerprint with the host's fingerprint to pick one" in err
            for fp, port in ((bytes.fromhex(bob.decode()), 40202), (short_id(bytes.fromhex(ann.decode())), 40201)):
                found = await _find(args, lambda text: None, fp)
                assert found is not None and found[0] == [("127.0.0.1", port)]
            assert await _find(args, lambda text: None, bytes(32)) is None
            assert "is hosted by the fingerprint --fingerprint names; found one hosted by ann" in capsys.readouterr().err


async def test_s5_1_names_the_responder_would_refuse_are_still_advertised() -> None:
    """A long table name in a script of three bytes a character advertised by two hosts
    (the responder's "-2" made a 65-byte label: the second host died; when the two
    probed at once, both kept one name and the browser saw one table), and "_sub" (a
    word DNS-SD reserves) are advertised; the table's name travels in TXT."""
    euros = "€" * 21
    with trio.fail_after(30):
        async with advertise(_ad(euros, port=40301), interfaces=LO) as first:
            await first.published.wait()
            async with advertise(replace(_ad(euros, port=40302), fingerprint=bytes(range(1, 33))),
                                 interfaces=LO) as second, advertise(_ad("_sub", port=40303), interfaces=LO) as sub:
                await second.published.wait()
                await sub.published.wait()
                wanted = {(euros, 40301), (euros, 40302), ("_sub", 40303)}
                while not {(t.table, t.port) for t in await browse(2, interfaces=LO)} >= wanted:
                    pass  # (the second host's "-2" may take a probe or two to settle)
    assert not (first.failed.is_set() or second.failed.is_set() or sub.failed.is_set())


async def test_s5_3_a_host_that_cannot_run_mdns_keeps_its_table_unadvertised() -> None:
    """mDNS on an interface this machine does not have: the advertisement fails and says
    why, and nothing raises into the host's lobby (discovery is only a hint); a browse
    there is a `DiscoveryUnavailable`, an OSError the commands report."""
    with trio.fail_after(20):
        async with advertise(_ad("Nowhere", port=40401), interfaces=["192.0.2.254"]) as ad:
            await ad.failed.wait()
            assert "192.0.2.254" in ad.failure and not ad.published.is_set()
        assert ad.withdrawn.is_set()
        with pytest.raises(DiscoveryUnavailable, match="cannot use interface 192.0.2.254 for mDNS"):
            await browse(1, interfaces=["192.0.2.254"])
        told: list[str] = []
        heard = trio.Event()

        def tell(text: str) -> None:
            told.append(text)
            heard.set()

        args = argparse.Namespace(no_discovery=False, interfaces=["192.0.2.254"])
        async with _advertising(_ad("Nowhere", port=40401), args, "192.0.2.254", tell) as update:
            update(2)
            await heard.wait()
        assert told[0].startswith("The table is not advertised on the LAN (cannot use interface 192.0.2.254")
        assert told[0].endswith("others join with: bandit-lan join --peer 192.0.2.254:40401")


def test_s5_1_addresses_are_ranked_for_players_on_the_lan(monkeypatch: pytest.MonkeyPatch) -> None:
    """The host names first the address its routes send multicast from, and its
    container bridges last; a browser dials last an address on a subnet of one of its
    own bridges (Docker's 172.17.0.1 is on both machines: the join hint named it)."""
    import ipaddress

    from p2p import discovery

    adapters = [("docker0", "172.17.0.1/16"), ("eth0", "192.168.1.20/24"), ("lo", "127.0.0.1/8"),
                ("wlan0", "10.0.0.7/24")]
    monkeypatch.setattr(discovery, "_adapters", lambda: [(n, ipaddress.IPv4Interface(a)) for n, a in adapters])
    monkeypatch.setattr(discovery, "_multicast_source", lambda: "192.168.1.20")
    assert discovery.local_addresses() == ["192.168.1.20", "10.0.0.7", "172.17.0.1", "127.0.0.1"]
    assert discovery.advertised_addresses("0.0.0.0", None) == ("192.168.1.20", "10.0.0.7", "172.17.0.1")
    assert discovery._prefer_local(["172.17.0.1", "203.0.113.5", "192.168.1.30"]) == (
        "192.168.1.30", "203.0.113.5", "172.17.0.1")


def test_tables_lines_up_its_columns_in_terminal_cells() -> None:
    from cli.tables import render

    wide = TableAd(table="麻雀テーブル", host="太郎", seats=4, free=3, proto=PROTOCOL_VERSION, fingerprint=bytes(32),
                   port=40501, addresses=("192.168.1.20",))
    lines = render([wide, replace(_ad("Kitchen"), code=True)])
    assert lines[0].split()[:5] == ["TABLE", "HOST", "SEATS", "FREE", "CODE"] and " yes " in lines[2], lines
    starts = [line.index("192.168.1.20") if "192.168.1.20" in line else line.index("127.0.0.1") for line in lines[1:]]
    from prompt_toolkit.utils import get_cwidth

    assert len({get_cwidth(line[:start]) for line, start in zip(lines[1:], starts)}) == 1


async def test_s5_3_a_host_whose_table_name_is_taken_on_the_lan_is_told_to_give_its_fingerprint() -> None:
    """A second host of "Twin" was told nothing, and still to say "bandit-lan join Twin",
    which then asks every joiner which of the two they mean: it now reads that the name is
    taken, by whom, and the command with its own fingerprint."""
    from p2p.identity import short_id

    theirs = replace(_ad("Twin", port=40011), host="bob")
    mine = replace(_ad("Twin", port=40012), host="cy", fingerprint=bytes(range(1, 33)))
    told: list[str | JoinHint] = []
    warned = trio.Event()
    args = argparse.Namespace(no_discovery=False, interfaces=LO)
    with trio.fail_after(30):
        async with advertise(theirs, interfaces=LO) as other:
            await other.published.wait()
            async with _advertising(mine, args, "127.0.0.1", lambda news: (told.append(news), warned.set())):
                await warned.wait()
    assert told == [JoinHint(
        f"bandit-lan join Twin --fingerprint {short_id(mine.fingerprint)}   or   bandit-lan join --peer 127.0.0.1:40012",
        f"Another table on this LAN is also called 'Twin' (hosted by bob): joining by that name alone "
        f"now fails, so give your players your fingerprint: bandit-lan join Twin --fingerprint "
        f"{short_id(mine.fingerprint)} (or host under another name).", warning=True)], told


async def test_s5_3_a_host_is_told_of_each_namesake_that_appears_while_it_waits_for_players() -> None:
    """A host waiting for players is told of each other host of its table's name as it
    appears, not only of those there when its own table was first seen: each is named
    once, however often its record changes, until the lobby ends."""
    import math

    mine = replace(_ad("Triplet", port=40021), host="cy", fingerprint=bytes(range(1, 33)))
    bob = replace(_ad("Triplet", port=40022), host="bob")
    dan = replace(_ad("Triplet", port=40023), host="dan", fingerprint=bytes(range(2, 34)))
    eve = replace(_ad("Triplet", port=40024), host="eve", fingerprint=bytes(range(3, 35)))
    told, heard = trio.open_memory_channel[str | JoinHint](math.inf)
    args = argparse.Namespace(no_discovery=False, interfaces=LO)

    async def seen(ad: TableAd, free: int | None = None) -> None:
        """Until a browse of its own finds `ad` (with `free` seats, if given)."""
        while not [t for t in await browse(2, interfaces=LO, table=ad.table)
                   if t.fingerprint == ad.fingerprint and free in (None, t.free)]:
            pass

    closed = trio.Event()

    async def hosted(ad: TableAd, *, task_status: trio.TaskStatus[Advertisement]) -> None:
        """`ad` advertised until `closed`: bob's and dan's tables outlast the lobby."""
        async with advertise(ad, interfaces=LO) as advert:
            task_status.started(advert)
            await closed.wait()

    with trio.fail_after(40):
        async with trio.open_nursery() as others:
            async with _advertising(mine, args, "127.0.0.1", told.send_nowait):
                await seen(mine)  # (this host's table is up, and its first look over)
                theirs = await others.start(hosted, bob)
                assert "also called 'Triplet' (hosted by bob)" in (await heard.receive()).news
                theirs.update(free=1)
                await seen(bob, free=1)
                await others.start(hosted, dan)
                assert "also called 'Triplet' (hosted by dan)" in (await heard.receive()).news
            async with advertise(eve, interfaces=LO):  # (the lobby is over: nobody to tell)
                await seen(eve)
            closed.set()
    with pytest.raises(trio.WouldBlock):
        heard.receive_nowait()


async def test_s5_3_a_host_is_told_when_the_last_namesake_has_gone_and_its_name_works_again(capsys) -> None:  # type: ignore[no-untyped-def]
    """Once the other host of "Pair" closed its table, its namesake's lobby still warned
    that joining by the name fails, and still showed the plain `join Pair`: the warning
    shows the command with the fingerprint, and is taken back when the last other table
    of the name is gone; one that goes while another stays is told with the host left
    (nothing was said of it); one that comes back is told again. The line-mode host
    prints each, then the join command."""
    import math

    from cli.host import said_in_lines
    from p2p.identity import short_id

    mine = replace(_ad("Pair", port=40031), host="cy", fingerprint=bytes(range(1, 33)))
    bob = replace(_ad("Pair", port=40032), host="bob")
    dan = replace(_ad("Pair", port=40033), host="dan", fingerprint=bytes(range(2, 34)))
    told, heard = trio.open_memory_channel[str | JoinHint](math.inf)
    args = argparse.Namespace(no_discovery=False, interfaces=LO)
    by_name = f"bandit-lan join Pair --fingerprint {short_id(mine.fingerprint)}   or   bandit-lan join --peer 127.0.0.1:40031"
    gone = JoinHint("bandit-lan join Pair   or   bandit-lan join --peer 127.0.0.1:40031",
                    "The other table called 'Pair' is gone: `bandit-lan join Pair` works again.", warning=False)

    async def warned(host: str) -> None:
        news = await heard.receive()
        assert isinstance(news, JoinHint) and news.warning and f"(hosted by {host})" in news.news, news
        assert news.command == by_name, news

    def tell(news: str | JoinHint) -> None:
        told.send_nowait(news)
        said_in_lines(argparse.Namespace(quiet=False, json=False), news)

    with trio.fail_after(40):
        async with _advertising(mine, args, "127.0.0.1", tell):
            async with advertise(bob, interfaces=LO):
                await warned("bob")
                async with advertise(dan, interfaces=LO):
                    await warned("dan")
                assert await heard.receive() == JoinHint(by_name, (
                    f"dan's table called 'Pair' is gone, but another of that name is still on this LAN (hosted by "
                    f"bob): joining by the name alone still fails, so keep giving your players your fingerprint: "
                    f"bandit-lan join Pair --fingerprint {short_id(mine.fingerprint)}."), warning=True)
            assert await heard.receive() == gone
            async with advertise(bob, interfaces=LO):
                await warned("bob")  # (not a second `gone`)
    lines = capsys.readouterr().out.splitlines()
    assert lines[6:8] == ["The other table called 'Pair' is gone: `bandit-lan join Pair` works again.",
                          "Others join with: bandit-lan join Pair   or   bandit-lan join --peer 127.0.0.1:40031"], lines
    assert lines[1] == lines[3] == lines[5] == lines[9] == f"Others join with: {by_name}", lines


async def test_s5_2_a_namesake_its_responder_renamed_is_neither_a_new_one_nor_gone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A responder renames an instance ("Solo (0001)" → "Solo (0001)-2", §5.1): the table
    is heard under the new name, its record changed meanwhile, then the old name goes.
    The host of the other "Solo" was told bob's table had gone (it is still there); it is
    told nothing until dan's table appears, and when bob's really goes, that dan's stays."""
    import math

    from zeroconf import IPVersion, ServiceBrowser, ServiceStateChange, Zeroconf

    from p2p import discovery
    from p2p.identity import short_id

    mine = replace(_ad("Solo", port=40041), host="cy", fingerprint=bytes(range(1, 33)))
    bob = replace(_ad("Solo", port=40042), host="bob")
    dan = replace(_ad("Solo", port=40043), host="dan", fingerprint=bytes(range(2, 34)))
    first = discovery._service_info(bob, discovery._instance_name(bob))
    renamed = discovery._service_info(replace(bob, free=1), f"{discovery._instance_name(bob)}-2")
    told, heard = trio.open_memory_channel[str | JoinHint](math.inf)
    args = argparse.Namespace(no_discovery=False, interfaces=LO)
    first_removed = trio.Event()
    token = trio.lowlevel.current_trio_token()

    def browser(zc: Zeroconf, service_type: str, handlers: list) -> ServiceBrowser:  # type: ignore[type-arg]
        """The host's browser, telling this test once it has queued the old name's removal:
        what comes on the LAN after that, the host's watch takes after it."""
        def on_change(**change: object) -> None:
            for handler in handlers:
                handler(**change)
            if change["state_change"] is ServiceStateChange.Removed and change["name"] == first.name:
                token.run_sync_soon(first_removed.set)

        return ServiceBrowser(zc, service_type, handlers=[on_change])

    async def warned(host: str) -> None:
        news = await heard.receive()
        assert isinstance(news, JoinHint) and news.warning and f"also called 'Solo' (hosted by {host})" in news.news, news

    monkeypatch.setattr(discovery, "ServiceBrowser", browser)
    with trio.fail_after(60):
        async with _advertising(mine, args, "127.0.0.1", told.send_nowait):
            zc = await trio.to_thread.run_sync(lambda: Zeroconf(interfaces=LO, ip_version=IPVersion.V4Only))
            try:
                await trio.to_thread.run_sync(zc.register_service, first)
                await warned("bob")
                await trio.to_thread.run_sync(zc.register_service, renamed)
                await trio.to_thread.run_sync(zc.unregister_service, first)
                await first_removed.wait()
                async with advertise(dan, interfaces=LO):
                    await warned("dan")  # (the first news since bob's: nothing of bob's renaming)
                    await trio.to_thread.run_sync(zc.unregister_service, renamed)
                    left = await heard.receive()
                    assert isinstance(left, JoinHint) and left.warning, left
                    assert left.news.startswith("bob's table called 'Solo' is gone, but another of that name is "
                                                "still on this LAN (hosted by dan)"), left
                    assert f"--fingerprint {short_id(mine.fingerprint)}" in left.command, left
                assert not (await heard.receive()).warning  # (the last has gone)
            finally:
                await trio.to_thread.run_sync(zc.close)


def test_s5_3_a_host_restarted_after_a_crash_is_listed_with_its_new_port_though_its_old_record_resolves_again() -> None:
    """A host crashed (no goodbye) and advertises the same table under the same identity
    again: its old record, with the dead port, is still cached and may resolve again
    after the new one. The table is the instance added last: its new port."""
    from p2p.discovery import _Tables

    old, new = _ad("Solo", port=40001), _ad("Solo", port=40002)
    tables = _Tables()
    assert tables.resolved("Solo (0001)", old) == [("heard", old)]
    assert tables.resolved("Solo (0001)-2", new) == [("heard", new)]
    assert tables.resolved("Solo (0001)", old) == [] and tables.found == [new]  # (the cached record again)
    fuller = replace(new, free=2)
    assert tables.resolved("Solo (0001)-2", fuller) == [("heard", fuller)]
    assert tables.removed("Solo (0001)") == [] and tables.found == [fuller]  # (the old record's end)
    assert tables.removed("Solo (0001)-2") == [("gone", fuller)] and tables.found == []


async def test_s5_3_a_host_killed_without_its_goodbye_is_gone_from_a_watch_and_back_at_once_when_restarted(
        tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """A host killed without its mDNS goodbye stayed in a watch (a host's look-out for
    namesakes) until its records expired: python-zeroconf keeps a PTR record at least
    1125 s. Asked again past the cache, its silence tells it gone; restarted under the
    same identity (the same instance name, §5.1) on a new port, it is heard again at once,
    and a fresh browse lists it with its new port only."""
    import math
    import signal

    from p2p import discovery
    from tests.cli_support import bandit, kill_all, read_until

    monkeypatch.setattr(discovery, "ASK_AGAIN_S", 1.0, raising=False)
    news, told = trio.open_memory_channel[tuple[str, TableAd]](math.inf)
    procs = []

    async def hosting() -> int:
        """A real `host` of "Phoenix" in this state directory: the port it listens on."""
        proc = bandit("host", "--table", "Phoenix", "--name", "bob", "--headless", "--seats", "2",
                      "--bind", "127.0.0.1", "--interface", "127.0.0.1", "--state-dir", str(tmp_path))
        procs.append(proc)
        found = await trio.to_thread.run_sync(read_until, proc, r'Hosting "Phoenix" on 127\.0\.0\.1:(\d+)', [])
        return int(found.group(1))

    async def next_of_phoenix() -> tuple[str, int]:
        while True:
            what, ad = await told.receive()
            if ad.table == "Phoenix":
                return what, ad.port

    try:
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_watched, news, LO)
                first = await hosting()
                assert await next_of_phoenix() == ("heard", first)
                procs[0].send_signal(signal.SIGKILL)  # (no goodbye)
                await trio.to_thread.run_sync(procs[0].wait)
                assert await next_of_phoenix() == ("gone", first)
                again = await hosting()
                assert again != first
                assert await next_of_phoenix() == ("heard", again)
                found = [t for t in await browse(5, interfaces=LO, table="Phoenix") if t.table == "Phoenix"]
                assert [t.port for t in found] == [again], found
                nursery.cancel_scope.cancel()
    finally:
        kill_all(procs)


async def _watched(news: trio.MemorySendChannel[tuple[str, TableAd]], interfaces: list[str]) -> None:
    """`watch`, its news sent on `news` as ("heard" or "gone", table)."""
    from p2p.discovery import watch

    await watch(lambda ad: news.send_nowait(("heard", ad)), lambda ad: news.send_nowait(("gone", ad)),
                interfaces=interfaces)


def test_s5_3_an_instance_is_silent_after_asks_in_a_row_left_unanswered_and_answers_again() -> None:
    """`_AskAgain`: an answer between two asks resets the count; the third unanswered ask
    in a row makes an instance silent (once); its next answer makes it answer again."""
    from p2p.discovery import ANSWERS, SILENT, _AskAgain

    asking = _AskAgain(misses=3)
    at: dict[str, float | None] = {"a": None}
    assert asking.ask({"a"}, at.get, 0) == []  # (first asked)
    assert asking.ask({"a"}, at.get, 10) == [] and asking.ask({"a"}, at.get, 20) == []
    at["a"] = 25  # (an answer: the count starts again)
    assert asking.ask({"a"}, at.get, 30) == []
    assert [asking.ask({"a"}, at.get, t) for t in (40, 50, 60, 70)] == [[], [], [("a", SILENT)], []]
    assert asking.silent == {"a"}
    at["a"] = 75
    assert asking.ask({"a"}, at.get, 80) == [("a", ANSWERS)] and not asking.silent
    asking.ask(set(), at.get, 90)  # (removed: nothing more to ask, nothing kept)
    assert asking.ask({"a"}, at.get, 100) == []
