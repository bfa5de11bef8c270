"""Compaction checkpoints: resuming starts from the compacted history plus
whatever was recorded after it, so a long session is not summarised again."""

from __future__ import annotations

from pathlib import Path

import pytest

from swebash_py.engine.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from swebash_py.store import Store
from swebash_py.store.recorder import StoreRecorder
from swebash_py.store.records import TurnRecord
from tests.agent.helpers import make_agent, run, small_window_fitter
from tests.agent.scripted_tools import Journal
from tests.fakeprovider import FakeProvider, Reply


def texts(messages: list[Message]) -> list[str]:
    out = []
    for m in messages:
        for b in m.blocks:
            out.append(getattr(b, "text", None) or getattr(b, "content", None)
                       or getattr(b, "arguments", ""))
    return out


def test_load_starts_at_the_latest_checkpoint(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        sid = store.create_session("m", "/w")
        t1 = store.begin_turn(sid, "old question")
        store.add_block(t1, TextBlock("old answer"))
        t2 = store.begin_turn(sid, "current question")
        store.add_block(t2, ToolUseBlock("c1", "read_file", '{"path": "a"}'))
        store.add_block(t2, ToolResultBlock("c1", "read_file", "contents of a"))
        compacted = [Message.user("[Summary] old stuff\n\ncurrent question"),
                     Message("assistant", [ToolUseBlock("c1", "read_file", '{"path": "a"}')]),
                     Message("user", [ToolResultBlock("c1", "read_file", "contents of a")])]
        store.add_checkpoint(t2, compacted)
        store.add_block(t2, TextBlock("answer after the checkpoint"))
        t3 = store.begin_turn(sid, "next question")
        store.add_block(t3, TextBlock("next answer"))
        loaded = store.load_messages(sid)
    assert texts(loaded) == ["[Summary] old stuff\n\ncurrent question", '{"path": "a"}',
                             "contents of a", "answer after the checkpoint",
                             "next question", "next answer"]
    assert "old question" not in texts(loaded)


def test_checkpoints_are_redacted(tmp_path: Path) -> None:
    secret = "sk-ant-api03-" + "x" * 40
    db = tmp_path / "s.db"
    with Store(db) as store:
        sid = store.create_session("m", "/w")
        turn = store.begin_turn(sid, "q")
        store.add_checkpoint(turn, [Message.user(f"my key is {secret}")])
        assert secret not in texts(store.load_messages(sid))[0]
    data = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file())
    assert secret.encode() not in data


async def test_a_compaction_in_the_loop_is_what_a_resume_loads(fake_provider: FakeProvider,
                                                               tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    recorder = StoreRecorder(store, "openai/test-model", "/w", None)
    agent = make_agent(fake_provider, "openai", Journal(), recorder=recorder)
    fake_provider.queue(*[Reply(text=f"answer {i}: " + "words " * 60) for i in range(40)])
    for i in range(40):
        await run(agent, f"question {i}: " + "details " * 60)
    # The same conversation (history and recorder), now with a small window.
    agent = make_agent(fake_provider, "openai", Journal(), recorder=recorder,
                       fitter=small_window_fitter(fake_provider, "openai"),
                       history=agent.history)
    fake_provider.repeat_last = True
    fake_provider.queue(Reply(text="SUMMARY of forty questions."))
    await run(agent, "and now?")
    assert recorder.session_id is not None
    loaded = store.load_messages(recorder.session_id)
    assert texts(loaded) == texts(agent.history)
    assert any("SUMMARY of forty questions." in t for t in texts(loaded))
    assert not any(t.startswith("question 0:") for t in texts(loaded))
    store.close()


def _long_session(store: Store, turns: int, checkpoint_at: int | None) -> str:
    sid = store.create_session("m", "/w")
    for n in range(1, turns + 1):
        turn = store.begin_turn(sid, f"question {n}")
        store.add_block(turn, TextBlock(f"answer {n}"))
        if n == checkpoint_at:
            store.add_checkpoint(turn, [Message.user(f"[Summary] of 1-{n}")])
    return sid


def _turns_read(store: Store, sid: str, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """load_messages's result, and the seq of every turn it read from the store."""
    read: list[int] = []
    plain = Store.turns

    def counting(self: Store, session_id: str, from_seq: int = 0) -> list[TurnRecord]:
        got = plain(self, session_id, from_seq)
        read.extend(t.seq for t in got)
        return got

    monkeypatch.setattr(Store, "turns", counting)
    return read


def test_resume_reads_nothing_behind_the_checkpoint(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """``ai -c`` of a long compacted session: the turns behind the checkpoint are
    not read (flat in their number), and the context is the summary plus the rest."""
    with Store(tmp_path / "s.db") as store:
        sid = _long_session(store, 300, checkpoint_at=298)
        read = _turns_read(store, sid, monkeypatch)
        loaded = store.load_messages(sid)
    assert read == [298, 299, 300]
    assert texts(loaded) == ["[Summary] of 1-298", "question 299", "answer 299",
                             "question 300", "answer 300"]


def test_the_twin_without_a_checkpoint_every_turn_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Store(tmp_path / "s.db") as store:
        sid = _long_session(store, 30, checkpoint_at=None)
        read = _turns_read(store, sid, monkeypatch)
        loaded = store.load_messages(sid)
    assert read == list(range(1, 31))
    assert texts(loaded)[:2] == ["question 1", "answer 1"] and len(loaded) == 60
