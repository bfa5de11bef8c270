"""The Store API: sessions, turns, blocks, history, usage, export, secrets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from swebash_py.engine.context import INTERRUPTED
from swebash_py.engine.messages import (
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from swebash_py.store import AmbiguousSession, Store


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "sessions.db")


def full_turn(store: Store, sid: str, text: str = "list files") -> int:
    turn = store.begin_turn(sid, text)
    store.add_block(turn, ThinkingBlock("let me look", "sig-1"))
    store.add_block(turn, TextBlock("Listing."))
    store.add_block(turn, ToolUseBlock("c1", "list_directory", '{"path": "."}'))
    store.add_block(turn, ToolUseBlock("c2", "read_file", '{"path": "a.txt"}'))
    store.add_block(turn, ToolResultBlock("c2", "read_file", "A", is_error=False))  # finished first
    store.add_block(turn, ToolResultBlock("c1", "list_directory", "a.txt\nb.txt"))
    store.add_block(turn, TextBlock("There are two files."))
    store.finish_turn(turn, "stop", 1200, 80, 0.0123)
    return turn


def test_session_lifecycle(store: Store) -> None:
    sid = store.create_session("openai/gpt-4o", "/work")
    assert len(sid) == 8 and int(sid, 16) >= 0
    info = store.get_session(sid)
    assert info is not None and info.title is None and info.turns == 0
    full_turn(store, sid, "  \n  list the files in this directory please, and then tell me "
                          "which one is the largest\nsecond line")
    info = store.get_session(sid[:4])
    assert info is not None and info.id == sid and info.turns == 1
    assert info.title is not None and len(info.title) <= 60 and "\n" not in info.title
    assert info.title.startswith("list the files")
    store.set_title(sid, "my title")
    assert store.get_session(sid).title == "my title"  # type: ignore[union-attr]
    assert store.delete_session(sid[:5]) is True
    assert store.get_session(sid) is None and store.delete_session(sid) is False
    assert store.get_session("zz-nothing") is None and store.get_session("") is None


def test_list_and_latest_are_newest_first(store: Store) -> None:
    a = store.create_session("m1", "/one")
    b = store.create_session("m2", "/two")
    store.begin_turn(a, "touch a again")  # a becomes the most recent
    listed = store.list_sessions(10)
    assert [s.id for s in listed] == [a, b]
    assert listed[0].turns == 1 and listed[1].model == "m2"
    assert store.latest_session() == a
    assert store.latest_session(cwd="/two") == b
    assert store.latest_session(cwd="/nowhere") is None
    assert len(store.list_sessions(1)) == 1


def test_ambiguous_prefix(store: Store) -> None:
    ids = [store.create_session("m", "/") for _ in range(40)]
    firsts = [i[0] for i in ids]
    common = next(c for c in firsts if firsts.count(c) > 1)
    with pytest.raises(AmbiguousSession):
        store.get_session(common)


def test_load_messages_rebuilds_the_conversation(store: Store) -> None:
    sid = store.create_session("m", "/")
    full_turn(store, sid)
    store.begin_turn(sid, "thanks")
    msgs = store.load_messages(sid)
    assert [m.role for m in msgs] == ["user", "assistant", "user", "assistant", "user"]
    assert msgs[1].blocks[0] == ThinkingBlock("let me look", "sig-1")
    assert [u.id for u in msgs[1].tool_uses()] == ["c1", "c2"]
    # results come back in call order, whatever order they were stored in
    assert [r.content for r in msgs[2].tool_results()] == ["a.txt\nb.txt", "A"]
    assert msgs[3].text == "There are two files." and msgs[4].text == "thanks"


def test_crashed_turn_loads_as_a_valid_history(store: Store) -> None:
    sid = store.create_session("m", "/")
    turn = store.begin_turn(sid, "run it")
    store.add_block(turn, ToolUseBlock("c9", "run_command", '{"command": "make"}'))
    msgs = store.load_messages(sid)
    assert msgs[-1] == Message("user", [ToolResultBlock("c9", "run_command", INTERRUPTED, True)])


def test_usage_and_unknown_cost(store: Store) -> None:
    sid = store.create_session("m", "/")
    full_turn(store, sid)
    full_turn(store, sid)
    usage = store.session_usage(sid)
    assert (usage.turns, usage.input_tokens, usage.output_tokens) == (2, 2400, 160)
    assert usage.cost == pytest.approx(0.0246)
    turn = store.begin_turn(sid, "on a model without a price")
    store.finish_turn(turn, "stop", 10, 10, None)
    assert store.session_usage(sid).cost is None


def test_export(store: Store) -> None:
    sid = store.create_session("openai/gpt-4o", "/work")
    full_turn(store, sid)
    md = store.export(sid, "markdown")
    assert md.startswith("# list files")
    for part in ["openai/gpt-4o", "**You:**", "list files", "`read_file`", "a.txt\nb.txt",
                 "There are two files."]:
        assert part in md
    data = json.loads(store.export(sid[:4], "json"))
    assert data["session"]["id"] == sid
    blocks = data["turns"][0]["blocks"]
    assert [b["type"] for b in blocks] == ["thinking", "text", "tool_use", "tool_use",
                                           "tool_result", "tool_result", "text"]
    assert blocks[2]["name"] == "list_directory" and data["turns"][0]["cost"] == 0.0123


def test_secrets_never_reach_the_database_file(tmp_path: Path) -> None:
    key = "sk-ant-api03-SECRETSECRETSECRETSECRET0123456789"
    db = tmp_path / "sessions.db"
    with Store(db) as store:
        sid = store.create_session("m", "/")
        turn = store.begin_turn(sid, f"my key is {key}")
        command = json.dumps({"command": f"export ANTHROPIC_API_KEY={key}"})
        store.add_block(turn, ToolUseBlock("c1", "run_command", command))
        store.add_block(turn, ToolResultBlock("c1", "run_command", f"echo: {key}"))
        store.add_block(turn, TextBlock(f"Authorization: Bearer {key}"))
        msgs = store.load_messages(sid)
        assert "[REDACTED]" in msgs[0].text
        json.loads(msgs[1].tool_uses()[0].arguments)  # still valid JSON
        raw = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert b"SECRETSECRET" not in raw
    assert b"[REDACTED]" in raw


def test_results_stored_mid_reply_load_after_the_whole_reply(tmp_path: Path) -> None:
    """A tool result committed while its reply still streamed (step 1) loads
    after that reply, results in call order; the next step follows."""
    with Store(tmp_path / "s.db") as store:
        sid = store.create_session("m", "/w")
        turn = store.begin_turn(sid, "q")
        store.add_block(turn, TextBlock("looking"), 1)
        store.add_block(turn, ToolUseBlock("a", "read_file", "{}"), 1)
        store.add_block(turn, ToolResultBlock("a", "read_file", "A"), 1)  # finished early
        store.add_block(turn, ToolUseBlock("b", "read_file", "{}"), 1)
        store.add_block(turn, ToolResultBlock("b", "read_file", "B"), 1)
        store.add_block(turn, TextBlock("done"), 2)
        loaded = store.load_messages(sid)
    shape = [(m.role, [type(b).__name__ for b in m.blocks]) for m in loaded]
    assert shape == [("user", ["TextBlock"]),
                     ("assistant", ["TextBlock", "ToolUseBlock", "ToolUseBlock"]),
                     ("user", ["ToolResultBlock", "ToolResultBlock"]),
                     ("assistant", ["TextBlock"])]


def test_rows_without_a_step_keep_their_order(tmp_path: Path) -> None:
    """Twin: without step marks (older rows) nothing is reordered, so the
    early result splits the reply — the case the marks exist for."""
    with Store(tmp_path / "s.db") as store:
        sid = store.create_session("m", "/w")
        turn = store.begin_turn(sid, "q")
        store.add_block(turn, ToolUseBlock("a", "read_file", "{}"))
        store.add_block(turn, ToolResultBlock("a", "read_file", "A"))
        store.add_block(turn, ToolUseBlock("b", "read_file", "{}"))
        loaded = store.load_messages(sid)
    assert [m.role for m in loaded] == ["user", "assistant", "user", "assistant", "user"]
