"""Which calls run as a preview first (the contract's "Preview (Linux)").

A ``run_command`` that would ask, runs approved in ``workspace-write`` and is
not an escalation or a background command, runs as a preview when
``[sandbox] preview`` is on and overlays work here: ``first`` (the preview
replaces the question before the run) or, under ``strict``, ``after`` (the
question stays, the preview follows it). Everything else ("" ) asks as
before. Allow rules, yolo and ``host_allow`` never reach here: they do not ask.
"""

from __future__ import annotations

from typing import Any

from swebash_py.sandbox.policy import effective_mode


def preview_mode(pending: Any, approval_mode: str, settings: Any) -> str:
    """``first``, ``after`` or "" (no preview) for a call that would ask."""
    if pending.tool.name != "run_command":
        return ""
    args = pending.args.model_dump(exclude_none=True)
    if args.get("escalate") or args.get("background"):
        return ""
    section = settings.sandbox
    if not section.preview or effective_mode(section.mode, "write") != "workspace-write":
        return ""
    if unavailable_reason() is not None:
        return ""  # the ordinary question before the run; `ai doctor` says why
    return "after" if approval_mode == "strict" else "first"


def unavailable_reason() -> str | None:
    """Why previews cannot run here at all (None: they can); probed once."""
    import sys

    if not sys.platform.startswith("linux"):
        return "previews need Linux (overlayfs); other systems ask before the run"
    from swebash_py.sandbox import overlay

    found = overlay.support()
    return None if found.ok else found.reason
