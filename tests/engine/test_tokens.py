"""Token estimates: cached per message, calibrated by reported usage."""

from __future__ import annotations

import gc
import json

from swebash_py.engine.messages import Message, TextBlock, ToolResultBlock
from swebash_py.engine.tokens import FACTOR_MAX, FACTOR_MIN, TokenCounter, estimate_text


def test_estimates_grow_with_text_and_density() -> None:
    prose = "The quick brown fox jumps over the lazy dog. " * 40
    assert estimate_text("") == 0
    assert 0 < estimate_text(prose[:100]) < estimate_text(prose)
    # chars/4 for prose, give or take
    assert len(prose) / 6 < estimate_text(prose) < len(prose) / 2.5
    data = json.dumps([{"id": i, "v": [i * 7, i * 13]} for i in range(100)])
    assert estimate_text(data) > len(data) / 4  # JSON and digits are denser than prose
    cjk = "这是一个测试消息" * 50
    assert estimate_text(cjk) >= len(cjk) * 0.8


def test_message_counts_are_cached_and_follow_edits() -> None:
    counter = TokenCounter()
    msg = Message.user("hello world " * 50)
    first = counter.message(msg)
    assert counter.message(msg) == first
    msg.blocks.append(ToolResultBlock("c", "read_file", "x = 1\n" * 200))
    assert counter.message(msg) > first
    msg.blocks[0] = TextBlock("short")
    assert counter.message(msg) < counter.message(Message(msg.role, [
        TextBlock("hello world " * 50), *msg.blocks[1:]]))


def test_cache_entries_die_with_their_message() -> None:
    counter = TokenCounter()
    msgs = [Message.user(f"message {i}") for i in range(50)]
    counter.messages(msgs)
    assert len(counter._cache) == 50
    del msgs
    gc.collect()
    assert len(counter._cache) == 0


def test_calibration_moves_towards_reported_usage_within_bounds() -> None:
    counter = TokenCounter()
    counter.calibrate(1000, 1500)
    assert 1.0 < counter.factor <= 1.5
    assert counter.scaled(1000) > 1000
    for _ in range(20):
        counter.calibrate(1000, 100_000)
    assert counter.factor == FACTOR_MAX
    for _ in range(20):
        counter.calibrate(1000, 1)
    assert counter.factor == FACTOR_MIN
    before = counter.factor
    counter.calibrate(50, 5000)  # too small to learn from
    assert counter.factor == before


def test_penalize_raises_the_factor() -> None:
    counter = TokenCounter()
    counter.penalize()
    assert counter.factor > 1.0
