"""The REPL says once when commands cannot run in a sandbox here."""

from __future__ import annotations

import threading
from typing import Any


def probe_soon(settings: Any) -> None:
    """Probe the sandbox in the background (cached), so the notice costs nothing later."""
    if settings.sandbox.mode != "off":
        from swebash_py.sandbox.runner import available

        threading.Thread(target=available, daemon=True).start()


def notice(settings: Any) -> str | None:
    """One line when the sandbox is configured but not available, else None."""
    if settings.sandbox.mode == "off":
        return None
    from swebash_py.sandbox.runner import available

    found = available()
    if found.ok:
        return None
    return (f"no sandbox: {found.detail}. Every command asks first (only plain file reads "
            "run unasked); `ai doctor` says more.")


def describe(settings: Any) -> str:
    """``/sandbox``: the mode, and whether it works here."""
    section = settings.sandbox
    net = "network on" if section.network else "no network"
    if section.mode == "off":
        return "sandbox: off (commands run with your full access)"
    from swebash_py.sandbox.runner import available

    found = available()
    state = found.detail if found.ok else f"NOT AVAILABLE: {found.detail}"
    return f"sandbox: {section.mode}, {net} ({state})"
