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


def to_markdown(info: SessionInfo, turns: list[TurnRecord]) -> str:
    lines = [f"# {info.title or 'Untitled session'}", "",
             f"- session: `{info.id}`", f"- model: {info.model or 'unknown'}",
             f"- directory: {info.cwd or 'unknown'}", f"- started: {_iso(info.created)}", ""]
    for t in turns:
        rewound = " (rewound: no longer part of the conversation)" if t.rewound else ""
        lines += [f"## Turn {t.seq}{rewound}", "", "**You:**", "", t.user_text.strip(), ""]
        if t.blocks:
            lines += ["**Assistant:**", ""]
        for b in t.blocks:
            lines += [_block_md(b), ""]
        if t.stop_reason and t.stop_reason != "stop":
            lines += [f"*({t.stop_reason})*", ""]
    return "\n".join(lines).rstrip() + "\n"
