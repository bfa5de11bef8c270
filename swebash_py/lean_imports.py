"""Optional imports our dependencies make at import time that this program never uses.

Set up by ``cli.main`` before anything is imported (the one-shot answer, ~25% of
its start-up): each is an entry in ``sys.modules`` that the dependency already
knows how to do without.
"""

from __future__ import annotations

import os
import sys
import types


def skip_unused_imports() -> None:
    """httpx's command-line client, httpcore's HTTP/2 connections, and pydantic's
    plugin loader when plugins are off."""
    # httpx imports its command-line client (click, pygments, rich's tables and
    # progress bars: ~40% of `import httpx`) when those happen to be installed;
    # we never call it. A None entry makes that optional import fail, as httpx expects.
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
    # httpcore imports its HTTP/2 connections (h2, hpack, hyperframe: ~15 ms) when h2
    # happens to be installed; no client of ours asks for HTTP/2 (litellm's is
    # opt-in, by LITELLM_HTTP2), and without them httpcore stays on HTTP/1.1.
    if "LITELLM_HTTP2" not in os.environ:
        for module in ("httpcore._async.http2", "httpcore._sync.http2"):
            sys.modules.setdefault(module, None)  # type: ignore[arg-type]
    # pydantic's plugin loader imports importlib.metadata (email, zipfile, csv: ~35 ms)
    # at its import, even with every plugin disabled, just to scan entry points it
    # then does not scan. With them disabled its one function answers "none" alike.
    if (os.environ.get("PYDANTIC_DISABLE_PLUGINS") == "__all__"
            and "pydantic.plugin._loader" not in sys.modules):
        sys.modules["pydantic.plugin._loader"] = _no_plugins_loader()


def _no_plugins_loader() -> types.ModuleType:
    loader = types.ModuleType("pydantic.plugin._loader", "pydantic's plugin loader, "
                              "with plugins disabled (swebash_py.lean_imports)")
    loader.get_plugins = lambda: ()  # type: ignore[attr-defined]
    return loader
