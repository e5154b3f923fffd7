"""Discovery: tables advertised and found by DNS-SD over mDNS (§5), with python-zeroconf.

Theory of operation
-------------------
A host publishes one service instance of type ``_bandit-lan._tcp.local.``: the instance
name is the table name tagged with two bytes of the host's id ("Friday (1a2b)"), SRV
points at its lobby port, A records carry its addresses (the one its routes send
multicast from first, container bridges last), and the TXT record says ``table``,
``host``, ``seats``, ``free``, ``proto`` and ``fp`` (the host's full peer id in hex).
Standard tools see it (``avahi-browse -rt _bandit-lan._tcp``). The TXT record is
refreshed as seats fill; the instance is withdrawn when the game starts or the host
leaves. A host killed without that goodbye is dropped by a watch (a browse that runs on)
once it leaves asks past the cache unanswered (`_AskAgain`); restarted, it takes its
instance name back and its records replace the old ones at once. If mDNS cannot run
here the advertisement says why (`Advertisement.failed`) and the table goes on without
it: ``--peer`` needs no discovery.

Discovery is only a hint: anyone on the LAN can answer mDNS, with anything. A browser
resolves the names it hears side by side (one that never answers holds up nobody),
ignores what is not a well-formed instance of its type, and reads only the six keys it
knows. A joiner pins the ``fp`` it found (so it talks to the host that advertised, not
to whoever answers at that address) and the table code, when set, authenticates the
host in the lobby (§6.3).

python-zeroconf runs its own threads and event loop; this module drives its blocking API
from worker threads (`trio.to_thread`) and starts resolutions on its loop, so the trio
side never blocks. Interfaces: every IPv4 interface with multicast by default, or the
given addresses.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import math
import queue
import re
import socket
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import Future
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, replace
from typing import Any

import ifaddr
import trio
from zeroconf import (
    DNSOutgoing, DNSQuestion, InterfaceChoice, IPVersion, ServiceBrowser, ServiceInfo, ServiceStateChange, Zeroconf,
    current_time_millis,
)
from zeroconf import Error as ZeroconfError

from p2p.groups import lone_exception_unwrapped
from p2p.identity import short_id
from p2p.roster import MAX_SEATS, MIN_SEATS, PROTOCOL_VERSION, other_release

log = logging.getLogger("bandit_lan.discovery")

SERVICE_TYPE = "_bandit-lan._tcp.local."
RESOLVE_MS = 1500
"""How long one instance may take to resolve (its SRV, TXT and A records)."""
RESOLVING_AT_ONCE = 32
"""Instances resolved at the same time: one that never answers holds up nobody else."""
SAME_NAME_S = 0.5
"""How long a browse for one table listens on after finding it, for another of that name."""
ASK_AGAIN_S = 4.0
"""How often a watch asks each instance it lists again, past its cache (§5.3)."""
SILENT_ASKS = 3
"""Asks in a row an instance leaves unanswered before a watch takes it for gone (§5.3)."""
DNS_QUERY, DNS_CLASS_IN, DNS_TYPE_SRV = 0x0000, 1, 33
"""A DNS query's flags, the Internet class and the SRV type (RFC 1035, RFC 2782)."""
INSTANCE_BYTES = 53
"""The table name's share of an instance name: DNS's 63-byte label holds it, the host's
" (1a2b)" and the responder's "-2" should two hosts' tags ever coincide (§5.1)."""
_FINGERPRINT = re.compile(r"[0-9a-f]{64}")
_VIRTUAL = ("docker", "br-", "veth", "virbr", "vmnet", "vboxnet", "lxcbr", "lxdbr", "cni", "podman", "flannel")
"""Interface names of container and virtual-machine bridges: their addresses are this
machine's own business, not where players on the LAN can reach it."""


class DiscoveryUnavailable(OSError):
    """mDNS cannot run here (no IPv4 interface with multicast, or not the one named)."""


@dataclass(frozen=True)
class TableAd:
    """One advertised table, as published or as found."""

    table: str
    host: str
    seats: int
    free: int
    proto: int
    fingerprint: bytes
    port: int
    addresses: tuple[str, ...]
    code: bool = False  # the host asks a table code (§6.3)

    @property
    def compatible(self) -> bool:
        """Whether this program speaks the table's protocol version (§6.2): a joiner of
        another version would only be refused."""
        return self.proto == PROTOCOL_VERSION

    def other_version(self) -> str:
        """Why a table of another version cannot be joined, for a player."""
        return other_release(repr(self.table), self.proto)

    def txt(self) -> dict[str, str]:
        return {
            "table": self.table, "host": self.host, "seats": str(self.seats), "free": str(self.free),
            "proto": str(self.proto), "fp": self.fingerprint.hex(), "code": "1" if self.code else "0",
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "table": self.table, "host": self.host, "address": self.addresses[0] if self.addresses else None,
            "addresses": list(self.addresses), "port": self.port, "seats": self.seats, "free": self.free,
            "proto": self.proto, "fingerprint": self.fingerprint.hex(), "fingerprint_words": short_id(self.fingerprint),
            "code": self.code,
        }


def _zeroconf(interfaces: Sequence[str] | None) -> Zeroconf:
    try:
        return Zeroconf(interfaces=list(interfaces) if interfaces else InterfaceChoice.All, ip_version=IPVersion.V4Only)
    except RuntimeError as exc:  # (python-zeroconf: "No interfaces to listen on")
        raise DiscoveryUnavailable(f"no IPv4 interface with multicast for mDNS ({exc})") from None
    except OSError as exc:
        where = f"interface {', '.join(interfaces)}" if interfaces else "the network"
        raise DiscoveryUnavailable(f"cannot use {where} for mDNS: {exc.strerror or exc}") from None


def _adapters() -> list[tuple[str, ipaddress.IPv4Interface]]:
    """(adapter name, address with its subnet) of each IPv4 address of this machine."""
    found = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if ip.is_IPv4 and isinstance(ip.ip, str):
                found.append((str(adapter.name), ipaddress.IPv4Interface(f"{ip.ip}/{ip.network_prefix}")))
    return found


def _virtual(adapter: str) -> bool:
    return adapter.startswith(_VIRTUAL)


def _multicast_source() -> str | None:
    """The address this machine sends mDNS from by its routes (no packet is sent)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("224.0.0.251", 5353))
            return str(probe.getsockname()[0])
    except OSError:
        return None


def local_addresses() -> list[str]:
    """This machine's IPv4 addresses, best first for players on the LAN: the one its
    routes send multicast from, then the others, container and VM bridges, and loopback
    last."""
    source = _multicast_source()
    ranked = {str(net.ip): (net.ip.is_loopback, _virtual(name), str(net.ip) != source) for name, net in _adapters()}
    return sorted(ranked, key=lambda a: (*ranked[a], ipaddress.IPv4Address(a)))


def advertised_addresses(bind: str, interfaces: Sequence[str] | None) -> tuple[str, ...]:
    """What to put in A records, best first: the bound address, else the chosen
    interfaces, else every non-loopback address (loopback only if there is nothing else)."""
    if bind not in ("", "0.0.0.0"):
        return (bind,)
    if interfaces:
        return tuple(interfaces)
    addrs = local_addresses()
    outside = [a for a in addrs if not ipaddress.ip_address(a).is_loopback]
    return tuple(outside or addrs)


TXT_KEYS = ("table", "host", "seats", "free", "proto", "fp")


def parse_txt(properties: dict[bytes, bytes | None]) -> dict[str, str] | None:
    """The keys of §5.2 as text, or None if one is missing or not UTF-8. Other keys
    are not read: a later version may add any."""
    out = {}
    for key in TXT_KEYS:
        value = properties.get(key.encode("ascii"))
        if value is None:
            return None
        try:
            out[key] = value.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return out


def ad_from_info(info: ServiceInfo) -> TableAd | None:
    """A `TableAd` from a resolved service, or None if its TXT record is malformed."""
    txt = parse_txt(info.properties or {})
    if txt is None:
        return None
    table, host = txt["table"], txt["host"]
    numbers = (txt["seats"], txt["free"], txt["proto"])
    if not all(n.isascii() and n.isdigit() and len(n) <= 4 for n in numbers):  # decimal (§5.2): "٣" is not 3
        return None
    if not _FINGERPRINT.fullmatch(txt["fp"]):  # 64 lowercase hex digits (§5.2)
        return None
    seats, free, proto = map(int, numbers)
    if not (1 <= len(table) <= 40 and 1 <= len(host) <= 24 and table.isprintable() and host.isprintable()
            and MIN_SEATS <= seats <= MAX_SEATS and 0 <= free <= seats and info.port):
        return None
    addresses = tuple(a for a in info.parsed_addresses(IPVersion.V4Only))
    code = (info.properties or {}).get(b"code") == b"1"  # (optional: a table that does not say needs none, §5.2)
    return TableAd(table, host, seats, free, proto, bytes.fromhex(txt["fp"]), info.port, _prefer_local(addresses), code)


def _prefer_local(addresses: Sequence[str]) -> tuple[str, ...]:
    """Order a table's addresses: those on one of our own LAN subnets first, then the
    rest, and last those on a subnet of one of our container or VM bridges (every
    machine with Docker has 172.17.0.1: the host's own bridge, not ours to dial)."""
    ours = _adapters()

    def rank(a: str) -> tuple[int, ipaddress.IPv4Address]:
        addr = ipaddress.IPv4Address(a)
        nets = [name for name, net in ours if addr in net.network]
        if nets and not all(map(_virtual, nets)):
            return (0, addr)
        return (2 if nets else 1, addr)

    return tuple(sorted(set(addresses), key=rank))


def _service_info(ad: TableAd, instance: str) -> ServiceInfo:
    return ServiceInfo(
        SERVICE_TYPE,
        f"{instance}.{SERVICE_TYPE}",
        addresses=[socket.inet_aton(a) for a in ad.addresses],
        port=ad.port,
        properties=ad.txt(),
        server=f"bandit-lan-{ad.fingerprint[:6].hex()}-{ad.port}.local.",
    )


def _instance_name(ad: TableAd) -> str:
    """The instance name of a table (§5.1): its name (dots are label separators; a label
    is at most 63 bytes of UTF-8) and the first two bytes of its host's peer id, so two
    tables named alike have two names without the responders' renaming, which does not
    always win the race when both probe at once."""
    name = ad.table.replace(".", " ")
    while len(name.encode("utf-8")) > INSTANCE_BYTES:
        name = name[:-1]
    return f"{name} ({ad.fingerprint[:2].hex()})"


class Advertisement:
    """A published table; `update` refreshes its TXT record, `withdraw` removes it.
    Both return at once: a worker task applies the latest wish in the background.

    Discovery is only a hint (§5.3): if mDNS cannot run here, `failed` is set with the
    reason in `failure`, and the table goes on unadvertised (joinable with --peer)."""

    def __init__(self, ad: TableAd) -> None:
        self.ad = ad
        self._wanted: TableAd | None = ad
        self._changed = trio.Event()
        self._changed.set()
        self.published = trio.Event()
        self.withdrawn = trio.Event()
        self.failed = trio.Event()
        self.failure = ""

    def update(self, *, free: int) -> None:
        if self._wanted is not None and self._wanted.free != free:
            self._wanted = replace(self._wanted, free=free)
            self._changed.set()

    def withdraw(self) -> None:
        self._wanted = None
        self._changed.set()

    async def _run(self, interfaces: Sequence[str] | None) -> None:
        try:
            zc = await trio.to_thread.run_sync(_zeroconf, interfaces)
        except DiscoveryUnavailable as exc:
            self._fail(str(exc))
            self.withdrawn.set()
            return
        info: ServiceInfo | None = None
        try:
            while True:
                await self._changed.wait()
                self._changed = trio.Event()
                wanted = self._wanted
                if wanted is None:
                    break
                try:
                    if info is None:
                        info = await trio.to_thread.run_sync(_register, zc, wanted)
                        self.published.set()
                        log.info("advertising %r as %s", wanted.table, info.name)
                    else:
                        info = _service_info(wanted, info.name[: -len(SERVICE_TYPE) - 1])
                        await trio.to_thread.run_sync(zc.update_service, info)
                except (ZeroconfError, OSError, ValueError) as exc:
                    self._fail(f"mDNS refused it: {exc}")
                    break
        finally:
            with trio.CancelScope(shield=True):
                final = info

                def close() -> None:
                    if final is not None:
                        try:
                            zc.unregister_service(final)
                        except (ZeroconfError, OSError) as exc:  # (goodbyes are a courtesy; the TTL ends it)
                            log.info("could not withdraw %s: %s", final.name, exc)
                    zc.close()

                await trio.to_thread.run_sync(close)
                self.withdrawn.set()

    def _fail(self, why: str) -> None:
        log.warning("the table %r is not advertised on the LAN: %s", self.ad.table, why)
        self.failure = why
        self.failed.set()


def _register(zc: Zeroconf, ad: TableAd) -> ServiceInfo:
    """Publish `ad`; renamed "-2", "-3", … while another instance has its name (§5.1)."""
    info = _service_info(ad, _instance_name(ad))
    zc.register_service(info, allow_name_change=True)
    return info


@asynccontextmanager
async def advertise(ad: TableAd, *, interfaces: Sequence[str] | None = None) -> AsyncIterator[Advertisement]:
    """Publish `ad` for as long as the block runs (or until `withdraw`)."""
    advertisement = Advertisement(ad)
    with lone_exception_unwrapped():
        async with trio.open_nursery() as nursery:
            nursery.start_soon(advertisement._run, interfaces)
            try:
                yield advertisement
            finally:
                advertisement.withdraw()


class _Tables:
    """The tables a browse has found, followed by what identifies a table (its name and
    its host's peer id, `fp`, in its TXT record, §5.2), not by instance name: a responder
    may rename an instance ("Friday (1a2b)" → "Friday (1a2b)-2", §5.1), and the table is
    then heard under both names for a while, then under the new one only. `resolved`
    and `removed` return what to tell: ("heard", table) when a table is first seen or
    its record changed, ("gone", table) once no instance advertises it any more.

    Of a table's instances, the one told is the one added last, not the one resolved
    last: an instance resolved again (a record cached of an older run, say) does not
    take the place of a newer one. (A host restarted after a crash under the same
    identity takes its instance name back, §5.1: its records replace the old ones.)"""

    def __init__(self) -> None:
        self._instances: dict[str, TableAd] = {}  # (instance name → its record, latest added last)
        self._told: dict[tuple[str, bytes], TableAd] = {}

    @property
    def found(self) -> list[TableAd]:
        return list(self._told.values())

    @property
    def instances(self) -> set[str]:
        """The instance names resolved and not removed."""
        return set(self._instances)

    def resolved(self, instance: str, ad: TableAd) -> list[tuple[str, TableAd]]:
        before = self._instances.get(instance)
        self._instances[instance] = ad  # (resolved again, an instance keeps its place)
        return self._follow([_table_key(ad)] + ([] if before is None else [_table_key(before)]))

    def removed(self, instance: str) -> list[tuple[str, TableAd]]:
        before = self._instances.pop(instance, None)
        return [] if before is None else self._follow([_table_key(before)])

    def _follow(self, keys: list[tuple[str, bytes]]) -> list[tuple[str, TableAd]]:
        news: list[tuple[str, TableAd]] = []
        for key in dict.fromkeys(keys):
            now = [ad for ad in self._instances.values() if _table_key(ad) == key]
            if now and self._told.get(key) != now[-1]:
                self._told[key] = now[-1]
                news.append(("heard", now[-1]))
            elif not now and key in self._told:
                news.append(("gone", self._told.pop(key)))
        return news


def _table_key(ad: TableAd) -> tuple[str, bytes]:
    return (ad.table, ad.fingerprint)


SILENT, ANSWERS = "silent", "answers"
"""What `_AskAgain` tells of an instance: it no longer answers; it answers again."""


class _AskAgain:
    """A watch's check that the instances it lists still answer (§5.3). A host that
    stopped without its goodbye (killed, its machine off) leaves its records in every
    cache until they expire (python-zeroconf keeps a PTR record at least 1125 s), so a
    watch asks each instance for its SRV record again every `ASK_AGAIN_S`, past the cache:
    one whose answer has not come by the next ask `SILENT_ASKS` times in a row is told
    `SILENT` (taken for gone), and told `ANSWERS` if it answers again (its host restarted
    on the same port: its records are the same, so nothing else would tell it)."""

    def __init__(self, misses: int = SILENT_ASKS) -> None:
        self._misses = misses
        self._asked: dict[str, float] = {}  # (instance name → when it was last asked, zeroconf's clock in ms)
        self._missed: dict[str, int] = {}
        self.silent: set[str] = set()

    def ask(self, names: set[str], answered: Callable[[str], float | None], now: float) -> list[tuple[str, str]]:
        """A round: of `names` (those listed, and those silent), whether each answered
        since it was last asked (`answered`: when its SRV record last arrived, or None),
        then each asked now. Returns what to tell, (name, `SILENT` or `ANSWERS`)."""
        news = []
        for name in sorted(names):
            asked = self._asked.get(name)
            if asked is not None:
                at = answered(name)
                if at is not None and at >= asked:
                    self._missed[name] = 0
                    if name in self.silent:
                        self.silent.discard(name)
                        news.append((name, ANSWERS))
                else:
                    self._missed[name] = self._missed.get(name, 0) + 1
                    if self._missed[name] >= self._misses and name not in self.silent:
                        self.silent.add(name)
                        news.append((name, SILENT))
            self._asked[name] = now
        for name in set(self._asked) - names:
            self.forget(name)
        return news

    def forget(self, name: str) -> None:
        """`name` was removed (its goodbye, or its records' end): nothing more to ask."""
        self._asked.pop(name, None)
        self._missed.pop(name, None)
        self.silent.discard(name)


def _ask_again(zc: Zeroconf, asking: _AskAgain, names: set[str],
               events: queue.Queue[tuple[str, ServiceStateChange | TableAd | str | None]]) -> None:
    """An `_AskAgain` round on zeroconf's own loop (its cache is read there): what it
    tells goes on `events`, and each of `names` is asked for its SRV record."""

    def on_loop() -> None:
        def answered(name: str) -> float | None:
            return max((r.created for r in zc.cache.async_all_by_details(name, DNS_TYPE_SRV, DNS_CLASS_IN)), default=None)

        for name, news in asking.ask(names, answered, current_time_millis()):
            events.put((name, news))
        for name in names:
            out = DNSOutgoing(DNS_QUERY)
            out.add_question(DNSQuestion(name, DNS_TYPE_SRV, DNS_CLASS_IN))
            zc.async_send(out)

    assert zc.loop is not None
    zc.loop.call_soon_threadsafe(on_loop)


def _browse_blocking(timeout: float, interfaces: Sequence[str] | None, table: str | None, stop: threading.Event,
                     heard: Callable[[TableAd], None] | None = None,
                     gone: Callable[[TableAd], None] | None = None, ask_again: float | None = None) -> list[TableAd]:
    """Browse until `timeout` (or `stop`); `heard` is told each table as it resolves,
    when it is first seen and again whenever its record changes, and `gone` each table
    heard whose advertisement went away (its host's goodbye, or its records' end, or,
    every `ask_again` seconds if given, its instance's silence: `_AskAgain`). A table
    renamed by its responder is neither (`_Tables`)."""
    zc = _zeroconf(interfaces)
    events: queue.Queue[tuple[str, ServiceStateChange | TableAd | str | None]] = queue.Queue()
    told = {"heard": heard, "gone": gone}

    def on_change(zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange) -> None:
        events.put((name, state_change))

    browser = ServiceBrowser(zc, SERVICE_TYPE, handlers=[on_change])
    tables = _Tables()
    waiting: deque[str] = deque()  # names seen, to be resolved
    resolving: set[str] = set()
    removed: set[str] = set()  # names removed while they resolved: what comes of that is stale
    deadline = time.monotonic() + timeout
    asking = _AskAgain() if ask_again is not None else None
    next_ask = time.monotonic() + (ask_again or 0.0)
    try:
        while not stop.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            if asking is not None and ask_again is not None and time.monotonic() >= next_ask:
                next_ask = time.monotonic() + ask_again
                _ask_again(zc, asking, tables.instances | asking.silent, events)
            while waiting and len(resolving) < RESOLVING_AT_ONCE:
                name = waiting.popleft()
                resolving.add(name)
                _resolve(zc, name, int(min(RESOLVE_MS, remaining * 1000 + 1)), events)
            try:
                name, news = events.get(timeout=min(remaining, 0.1))
            except queue.Empty:
                continue
            if news is ServiceStateChange.Removed or news == SILENT:
                with suppress(ValueError):
                    waiting.remove(name)
                if name in resolving:
                    removed.add(name)
                if asking is not None and news is ServiceStateChange.Removed:
                    asking.forget(name)
                for what, ad in tables.removed(name):
                    if (tell := told[what]) is not None:
                        tell(ad)
            elif isinstance(news, ServiceStateChange) or news == ANSWERS:  # (added or updated: resolve it again)
                removed.discard(name)
                if name not in resolving and name not in waiting:
                    waiting.append(name)
            elif not isinstance(news, str):
                resolving.discard(name)
                if name in removed:
                    removed.discard(name)
                elif news is not None:
                    for what, ad in tables.resolved(name, news):
                        if (tell := told[what]) is not None:
                            tell(ad)
                    if table is not None and news.table == table:  # (listen on a little, for another of that name)
                        deadline = min(deadline, time.monotonic() + SAME_NAME_S)
    finally:
        browser.cancel()
        zc.close()
    return sorted(tables.found, key=lambda a: (a.table.casefold(), a.host.casefold()))


def _resolve(zc: Zeroconf, name: str, ms: int,
             events: queue.Queue[tuple[str, ServiceStateChange | TableAd | str | None]]) -> None:
    """Start resolving `name` on zeroconf's own loop; its `TableAd` (None if it did not
    resolve or is malformed) arrives on `events`. Any name is someone's answer on the
    LAN: one that is not an instance of our type is ignored like a malformed record."""
    if not name.lower().endswith("." + SERVICE_TYPE.lower()):
        log.info("ignoring an instance of another type: %r", name)
        events.put((name, None))
        return
    try:  # (DNS names compare without case: "Good._BANDIT-LAN._tcp.local." is ours)
        info = ServiceInfo(SERVICE_TYPE, name[: -len(SERVICE_TYPE)] + SERVICE_TYPE)
        assert zc.loop is not None
        asked: Future[bool] = asyncio.run_coroutine_threadsafe(info.async_request(zc, ms), zc.loop)
    except (ZeroconfError, ValueError, RuntimeError) as exc:
        log.info("ignoring the instance %r: %s", name, exc)
        events.put((name, None))
        return

    def done(asked: Future[bool]) -> None:
        ad = None
        try:
            if asked.result():
                ad = ad_from_info(info)
                if ad is None:
                    log.info("ignoring malformed advertisement %s", name)
        except Exception as exc:  # (zeroconf's loop closing, or a record it could not take)
            log.info("could not resolve %r: %s", name, exc)
        events.put((name, ad))

    asked.add_done_callback(done)


async def browse(timeout: float, *, interfaces: Sequence[str] | None = None, table: str | None = None) -> list[TableAd]:
    """Tables seen within `timeout` seconds; with `table`, return soon after that one is
    found (`SAME_NAME_S` later, to see whether another table has its name)."""
    stop = threading.Event()
    try:
        return await trio.to_thread.run_sync(_browse_blocking, timeout, interfaces, table, stop, abandon_on_cancel=True)
    finally:
        stop.set()


async def watch(heard: Callable[[TableAd], None], gone: Callable[[TableAd], None] = lambda ad: None, *,
                interfaces: Sequence[str] | None = None) -> None:
    """Browse until cancelled, calling `heard` (in trio's thread) with each table as it
    is found and again whenever its record changes, and `gone` with each table found
    whose advertisement went away: its host's goodbye, or its silence when asked again
    (a host that stopped without one, `_AskAgain`). What either raises ends the watch."""
    stop = threading.Event()

    def tell(told: Callable[[TableAd], None]) -> Callable[[TableAd], None]:
        def in_trio(ad: TableAd) -> None:  # (called in the browsing thread)
            trio.from_thread.run_sync(lambda: None if stop.is_set() else told(ad))

        return in_trio

    try:
        await trio.to_thread.run_sync(_browse_blocking, math.inf, interfaces, None, stop, tell(heard), tell(gone),
                                      ASK_AGAIN_S, abandon_on_cancel=True)
    finally:
        stop.set()
