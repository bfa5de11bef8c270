"""Where a URL's host really is: resolve it once, classify the addresses.

``web_fetch`` resolves a call's host exactly once (when that call is previewed
for the approval question) and then connects only to the addresses found
then, for that call alone, so a DNS answer that changes between the question
and the request, or between two calls (DNS rebinding), cannot move a fetch
onto the local network. A host is *private* when any of
its addresses is loopback, private, link-local, shared (CGNAT), reserved,
multicast or unspecified; such a fetch always asks, saying so.
"""

from __future__ import annotations

import concurrent.futures
import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], list[str]]
RESOLVE_TIMEOUT = 5.0
_POOL = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="resolve")


@dataclass(frozen=True)
class Resolution:
    """The addresses of ``host`` and whether any of them is not public."""

    host: str
    addresses: tuple[str, ...]
    private: bool
    error: str | None = None

    def describe(self) -> str:
        shown = ", ".join(self.addresses[:3]) or "no address"
        kind = ("a loopback or private-network address" if self.private
                else "a public address")
        return f"{self.host} resolves to {shown}, {kind}"


def system_resolver(host: str, port: int) -> list[str]:
    """The addresses ``getaddrinfo`` gives for ``host`` (TCP), in its order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def is_private(address: str) -> bool:
    """True for anything but a global unicast address (fail closed on junk)."""
    try:
        ip: Address = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return True
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return (ip.is_loopback or ip.is_private or ip.is_link_local or ip.is_reserved
            or ip.is_multicast or ip.is_unspecified or not ip.is_global)


def resolve_host(host: str, port: int, resolver: Resolver = system_resolver,
                 timeout: float = RESOLVE_TIMEOUT) -> Resolution:
    """Resolve ``host`` within ``timeout``; failure or a timeout counts as private."""
    literal = host.strip("[]")
    try:
        ipaddress.ip_address(literal.split("%", 1)[0])
        return Resolution(host, (literal,), is_private(literal))
    except ValueError:
        pass
    future = _POOL.submit(resolver, host, port)
    try:
        addresses = tuple(future.result(timeout=timeout))
    except concurrent.futures.TimeoutError:
        return Resolution(host, (), True, f"resolving {host} took more than {timeout:g} s")
    except OSError as exc:
        return Resolution(host, (), True, f"cannot resolve {host}: {exc.strerror or exc}")
    if not addresses:
        return Resolution(host, (), True, f"{host} has no address")
    return Resolution(host, addresses, any(is_private(a) for a in addresses))
