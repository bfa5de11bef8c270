"""A session as Markdown (for people) or JSON (for programs)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from msgspec.structs import asdict

from swebash_py.store.records import BlockRecord, SessionInfo, TurnRecord


def _iso(ts: float | None) -> str | None:
    return None if ts is None else datetime.fromtimestamp(ts).astimezone().isoformat(
        timespec="seconds")


def to_json(info: SessionInfo, turns: list[TurnRecord]) -> str:
    # asdict is shallow: every field is a scalar but ``blocks``, rebuilt below
    session: dict[str, Any] = asdict(info)
    session["created"], session["updated"] = _iso(info.created), _iso(info.updated)
    out = []
    for t in turns:
        turn = asdict(t)
        turn["created"], turn["completed"] = _iso(t.created), _iso(t.completed)
        turn["blocks"] = [{"type": b.type, "text": b.text, **(b.data or {}),
                           "created": _iso(b.created)} for b in t.blocks]
        out.append(turn)
    return json.dumps({"session": session, "turns": out}, ensure_ascii=False, indent=2)


def _fence(text: str, lang: str = "") -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def _block_md(block: BlockRecord) -> str:
    data = block.data or {}
    if block.type == "text":
        return block.text.strip()
    if block.type == "thinking":
        quoted = "\n".join(f"> {line}" for line in block.text.strip().splitlines())
        return f"> *thinking*\n{quoted}"
    if block.type == "tool_use":
        return f"**Tool call** `{data.get('name', '?')}`\n\n{_fence(block.text, 'json')}"
    label = "Tool error" if data.get("is_error") else "Tool result"
    return f"**{label}** `{data.get('name', '?')}`\n\n{_fence(block.text)}"


def markdown_header(info: SessionInfo) -> str:
    """The title and the facts above the first turn (``to_markdown``'s first part)."""
    return "\n".join([f"# {info.title or 'Untitled session'}", "",
                      f"- session: `{info.id}`", f"- model: {info.model or 'unknown'}",
                      f"- directory: {info.cwd or 'unknown'}",
                      f"- started: {_iso(info.created)}", ""]) + "\n"


def turn_markdown(turn: TurnRecord) -> str:
    """One turn, ending in a blank line (``to_markdown`` is these, joined): `show`
    renders a long session a turn at a time, so its first screen never waits for
    the last turn."""
    rewound = " (rewound: no longer part of the conversation)" if turn.rewound else ""
    lines = [f"## Turn {turn.seq}{rewound}", "", "**You:**", "", turn.user_text.strip(), ""]
    if turn.blocks:
        lines += ["**Assistant:**", ""]
    for b in turn.blocks:
        lines += [_block_md(b), ""]
    if turn.stop_reason and turn.stop_reason != "stop":
        lines += [f"*({turn.stop_reason})*", ""]
    return "\n".join(lines) + "\n"


def to_markdown(info: SessionInfo, turns: list[TurnRecord]) -> str:
    text = markdown_header(info) + "".join(turn_markdown(t) for t in turns)
    return text.rstrip() + "\n"
