"""Discovery: tables advertised and found by DNS-SD over mDNS (§5), with python-zeroconf.

Theory of operation
-------------------
A host publishes one service instance of type ``_bandit-lan._tcp.local.``: the instance
name is the table name, SRV points at its lobby port, A records carry its addresses,
and the TXT record says ``table``, ``host``, ``seats``, ``free``, ``proto`` and ``fp``
(the host's full peer id in hex). Standard tools see it
(``avahi-browse -rt _bandit-lan._tcp``). The TXT record is refreshed as seats fill; the
instance is withdrawn when the game starts or the host leaves.

Discovery is only a hint: anyone on the LAN can answer mDNS. A joiner pins the ``fp``
it found (so it talks to the host that advertised, not to whoever answers at that
address) and the table code, when set, authenticates the host in the lobby (§6.3).

python-zeroconf runs its own threads; this module drives its blocking API from worker
threads (`trio.to_thread`), so the trio side never blocks. Interfaces: every IPv4
interface with multicast by default, or the given addresses.
"""

from __future__ import annotations

import ipaddress
import logging
import queue
import socket
import threading
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any

import ifaddr
import trio
from zeroconf import InterfaceChoice, IPVersion, ServiceBrowser, ServiceInfo, ServiceStateChange, Zeroconf

from p2p.groups import lone_exception_unwrapped
from p2p.roster import MAX_SEATS, MIN_SEATS, PROTOCOL_VERSION

log = logging.getLogger("bandit_lan.discovery")

SERVICE_TYPE = "_bandit-lan._tcp.local."
RESOLVE_MS = 1500


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

    @property
    def compatible(self) -> bool:
        """Whether this program speaks the table's protocol version (§6.2): a joiner of
        another version would only be refused."""
        return self.proto == PROTOCOL_VERSION

    def other_version(self) -> str:
        """Why a table of another version cannot be joined, for a player."""
        return (f"{self.table!r} speaks bandit-lan protocol {self.proto} and this program speaks {PROTOCOL_VERSION}: "
                "the same bandit-lan release is needed on both machines")

    def txt(self) -> dict[str, str]:
        return {
            "table": self.table, "host": self.host, "seats": str(self.seats), "free": str(self.free),
            "proto": str(self.proto), "fp": self.fingerprint.hex(),
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "table": self.table, "host": self.host, "address": self.addresses[0] if self.addresses else None,
            "addresses": list(self.addresses), "port": self.port, "seats": self.seats, "free": self.free,
            "proto": self.proto, "fingerprint": self.fingerprint.hex(),
        }


def _zeroconf(interfaces: Sequence[str] | None) -> Zeroconf:
    return Zeroconf(interfaces=list(interfaces) if interfaces else InterfaceChoice.All, ip_version=IPVersion.V4Only)


def local_addresses() -> list[str]:
    """This machine's IPv4 addresses, loopback last."""
    found = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if ip.is_IPv4 and isinstance(ip.ip, str):
                found.append(ip.ip)
    return sorted(set(found), key=lambda a: (ipaddress.ip_address(a).is_loopback, a))


def advertised_addresses(bind: str, interfaces: Sequence[str] | None) -> tuple[str, ...]:
    """What to put in A records: the bound address, else the chosen interfaces, else
    every non-loopback address (loopback only if there is nothing else)."""
    if bind not in ("", "0.0.0.0"):
        return (bind,)
    if interfaces:
        return tuple(interfaces)
    addrs = local_addresses()
    outside = [a for a in addrs if not ipaddress.ip_address(a).is_loopback]
    return tuple(outside or addrs)


def parse_txt(properties: dict[bytes, bytes | None]) -> dict[str, str] | None:
    out = {}
    for key, value in properties.items():
        if value is None:
            continue
        try:
            out[key.decode("ascii")] = value.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return out


def ad_from_info(info: ServiceInfo) -> TableAd | None:
    """A `TableAd` from a resolved service, or None if its TXT record is malformed."""
    txt = parse_txt(info.properties or {})
    if txt is None:
        return None
    try:
        table, host = txt["table"], txt["host"]
        numbers = (txt["seats"], txt["free"], txt["proto"])
        fingerprint = bytes.fromhex(txt["fp"])
    except (KeyError, ValueError):
        return None
    if not all(n.isascii() and n.isdigit() and len(n) <= 4 for n in numbers):  # decimal (§5.2): "٣" is not 3
        return None
    seats, free, proto = map(int, numbers)
    if not (1 <= len(table) <= 40 and 1 <= len(host) <= 24 and table.isprintable() and host.isprintable()
            and MIN_SEATS <= seats <= MAX_SEATS and 0 <= free <= seats and len(fingerprint) == 32 and info.port):
        return None
    addresses = tuple(a for a in info.parsed_addresses(IPVersion.V4Only))
    return TableAd(table, host, seats, free, proto, fingerprint, info.port, _prefer_local(addresses))


def _prefer_local(addresses: Sequence[str]) -> tuple[str, ...]:
    """Order addresses so that those on one of our own subnets come first."""
    nets = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if ip.is_IPv4 and isinstance(ip.ip, str):
                nets.append(ipaddress.ip_network(f"{ip.ip}/{ip.network_prefix}", strict=False))

    def rank(a: str) -> tuple[int, str]:
        addr = ipaddress.ip_address(a)
        return (0 if any(addr in n for n in nets) else 1, a)

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


def _instance_name(table: str) -> str:
    """DNS-SD instance names are at most 63 bytes of UTF-8 (table names are short anyway)."""
    name = table.replace(".", " ")
    while len(name.encode("utf-8")) > 63:
        name = name[:-1]
    return name


class Advertisement:
    """A published table; `update` refreshes its TXT record, `withdraw` removes it.
    Both return at once: a worker task applies the latest wish in the background."""

    def __init__(self, ad: TableAd) -> None:
        self.ad = ad
        self._wanted: TableAd | None = ad
        self._changed = trio.Event()
        self._changed.set()
        self.published = trio.Event()
        self.withdrawn = trio.Event()

    def update(self, *, free: int) -> None:
        if self._wanted is not None and self._wanted.free != free:
            self._wanted = replace(self._wanted, free=free)
            self._changed.set()

    def withdraw(self) -> None:
        self._wanted = None
        self._changed.set()

    async def _run(self, interfaces: Sequence[str] | None) -> None:
        zc = await trio.to_thread.run_sync(_zeroconf, interfaces)
        info: ServiceInfo | None = None
        try:
            while True:
                await self._changed.wait()
                self._changed = trio.Event()
                wanted = self._wanted
                if wanted is None:
                    break
                if info is None:
                    info = _service_info(wanted, _instance_name(wanted.table))
                    await trio.to_thread.run_sync(lambda: zc.register_service(info, allow_name_change=True))
                    self.published.set()
                    log.info("advertising %r as %s", wanted.table, info.name)
                else:
                    info = _service_info(wanted, info.name[: -len(SERVICE_TYPE) - 1])
                    await trio.to_thread.run_sync(zc.update_service, info)
        finally:
            with trio.CancelScope(shield=True):
                final = info

                def close() -> None:
                    if final is not None:
                        zc.unregister_service(final)
                    zc.close()

                await trio.to_thread.run_sync(close)
                self.withdrawn.set()


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


def _browse_blocking(timeout: float, interfaces: Sequence[str] | None, table: str | None, stop: threading.Event) -> list[TableAd]:
    zc = _zeroconf(interfaces)
    names: queue.Queue[tuple[str, ServiceStateChange]] = queue.Queue()

    def on_change(zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange) -> None:
        names.put((name, state_change))

    browser = ServiceBrowser(zc, SERVICE_TYPE, handlers=[on_change])
    found: dict[str, TableAd] = {}
    deadline = time.monotonic() + timeout
    try:
        while not stop.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            try:
                name, change = names.get(timeout=min(remaining, 0.1))
            except queue.Empty:
                continue
            if change is ServiceStateChange.Removed:
                found.pop(name, None)
                continue
            info = ServiceInfo(SERVICE_TYPE, name)
            if not info.request(zc, RESOLVE_MS):
                continue
            ad = ad_from_info(info)
            if ad is None:
                log.info("ignoring malformed advertisement %s", name)
                continue
            found[name] = ad
            if table is not None and ad.table == table:
                break
    finally:
        browser.cancel()
        zc.close()
    return sorted(found.values(), key=lambda a: (a.table.casefold(), a.host.casefold()))


async def browse(timeout: float, *, interfaces: Sequence[str] | None = None, table: str | None = None) -> list[TableAd]:
    """Tables seen within `timeout` seconds; with `table`, return as soon as that one is found."""
    stop = threading.Event()
    try:
        return await trio.to_thread.run_sync(_browse_blocking, timeout, interfaces, table, stop, abandon_on_cancel=True)
    finally:
        stop.set()
