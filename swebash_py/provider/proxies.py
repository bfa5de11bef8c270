"""Whether a proxy may apply to a URL, decided as httpx decides which proxies
exist (``trust_env``: ``urllib.request.getproxies()``).

The lean transport speaks to servers directly; when a proxy may apply, the
direct backend uses httpx instead, which then applies the proxy and
``NO_PROXY`` exactly as before. On Linux the environment is all there is, read
here without importing ``urllib.request``; elsewhere (macOS and Windows also
keep system-wide settings) ``getproxies()`` itself is asked.
"""

from __future__ import annotations

import os
import sys


def environment_proxies() -> dict[str, str]:
    """``urllib.request.getproxies_environment()``: ``<scheme>_proxy`` variables,
    lower-case names winning over upper-case ones (an empty one unsets)."""
    proxies: dict[str, str] = {}
    for name, value in os.environ.items():  # upper-case (and mixed) names first
        if value and name[-6:].lower() == "_proxy":
            proxies[name[:-6].lower()] = value
    if "REQUEST_METHOD" in os.environ:  # CGI: HTTP_PROXY may come from a request header
        proxies.pop("http", None)
    for name, value in os.environ.items():
        if name[-6:] == "_proxy":
            if value:
                proxies[name[:-6].lower()] = value
            else:
                proxies.pop(name[:-6].lower(), None)
    return proxies


def proxy_may_apply(scheme: str) -> bool:
    """Whether httpx would find a proxy for ``scheme`` URLs (``NO_PROXY`` aside)."""
    if sys.platform in ("darwin", "win32"):
        from urllib.request import getproxies

        proxies = getproxies()
    else:
        proxies = environment_proxies()
    return bool(proxies.get(scheme) or proxies.get("all"))
