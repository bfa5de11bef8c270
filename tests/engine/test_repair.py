"""repair(): any history becomes valid for the providers."""

from __future__ import annotations

from collections.abc import Callable

from swebash_py.engine.context import INTERRUPTED, repair
from swebash_py.engine.messages import (
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from tests.engine.synthetic_history import assert_valid


def use(i: str) -> ToolUseBlock:
    return ToolUseBlock(i, "run_command", '{"command": "ls"}')


def result(i: str, text: str = "ok") -> ToolResultBlock:
    return ToolResultBlock(i, "run_command", text)


def test_valid_history_is_kept_as_is(session: Callable[..., list[Message]]) -> None:
    msgs = session(3)
    fixed = repair(msgs)
    assert len(fixed) == len(msgs)
    assert all(a is b for a, b in zip(fixed, msgs, strict=True))


def test_dangling_tool_use_at_the_end_gets_an_interrupted_result() -> None:
    msgs = [Message.user("go"),
            Message("assistant", [ThinkingBlock("t", "sig"), use("a"), use("b")])]
    fixed = repair(msgs)
    assert_valid(fixed)
    results = fixed[-1].tool_results()
    assert [r.call_id for r in results] == ["a", "b"]
    assert all(r.is_error and r.content == INTERRUPTED for r in results)


def test_partially_answered_calls_in_the_middle() -> None:
    msgs = [Message.user("go"), Message("assistant", [use("a"), use("b")]),
            Message("user", [result("b", "B")]), Message.user("what happened?")]
    fixed = repair(msgs)
    assert_valid(fixed)
    assert [r.call_id for r in fixed[2].tool_results()] == ["a", "b"]
    assert fixed[2].tool_results()[1].content == "B"
    assert fixed[2].text == "what happened?"


def test_results_are_put_in_call_order_and_deduplicated() -> None:
    msgs = [Message.user("go"), Message("assistant", [use("a"), use("b")]),
            Message("user", [result("b", "B"), result("a", "A"), result("a", "again")])]
    fixed = repair(msgs)
    assert_valid(fixed)
    assert [r.content for r in fixed[2].tool_results()] == ["A", "B"]


def test_orphan_results_are_dropped_and_roles_merged() -> None:
    msgs = [Message.user("one"), Message("user", [result("zz")]), Message.user("two"),
            Message("assistant", [TextBlock("x")]), Message("assistant", [TextBlock("y")]),
            Message("assistant", [])]
    fixed = repair(msgs)
    assert_valid(fixed)
    assert [m.role for m in fixed] == ["user", "assistant"]
    assert fixed[0].text == "onetwo" and fixed[1].text == "xy"


def test_history_starting_with_the_assistant_gets_a_user_message() -> None:
    fixed = repair([Message("assistant", [TextBlock("hi")]), Message.user("q")])
    assert_valid(fixed)
    assert fixed[1].text == "hi"


def test_empty_history() -> None:
    assert repair([]) == []
