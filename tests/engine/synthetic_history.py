"""Synthetic conversations and a validity check for the context-window tests.

Imported by the tests as ``tests.engine.synthetic_history``.
"""

from __future__ import annotations

import json
import random

from swebash_py.engine.messages import (
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)


def make_turn(rng: random.Random, n: int, *, rounds: int = 2, result_chars: int = 600,
              calls: int = 2) -> list[Message]:
    """One turn: a request, ``rounds`` tool rounds (``calls`` parallel calls), an answer."""
    msgs = [Message.user(f"request {n}: please look at file_{n}.py and fix the bug")]
    for r in range(rounds):
        uses = [ToolUseBlock(f"call_{n}_{r}_{c}", "read_file",
                             json.dumps({"path": f"src/file_{n}_{c}.py"}))
                for c in range(calls)]
        msgs.append(Message("assistant", [ThinkingBlock(f"thinking {n}.{r}", "sig"),
                                          TextBlock(f"Reading files for {n}."), *uses]))
        results = [ToolResultBlock(u.id, u.name, _payload(rng, result_chars)) for u in uses]
        msgs.append(Message("user", list(results)))
    msgs.append(Message("assistant", [TextBlock(f"Done with request {n}. " * 5)]))
    return msgs


def _payload(rng: random.Random, chars: int) -> str:
    size = rng.randint(chars // 2, chars * 3 // 2)
    words = ["def", "return", "self", "value", "(x)", "import", "os", "42", "\n", "    "]
    out: list[str] = []
    length = 0
    while length < size:
        w = rng.choice(words)
        out.append(w)
        length += len(w) + 1
    return " ".join(out)


def assert_valid(msgs: list[Message]) -> None:
    """Alternating roles, user first, each tool_use answered right after, nothing orphaned."""
    assert msgs, "empty history"
    assert msgs[0].role == "user"
    for i, m in enumerate(msgs):
        assert m.blocks, f"message {i} is empty"
        if i:
            assert m.role != msgs[i - 1].role, f"messages {i - 1} and {i} share a role"
        results = m.tool_results()
        if m.role == "assistant":
            assert not results
            continue
        assert all(not isinstance(b, ToolUseBlock) for b in m.blocks)
        prev_uses = msgs[i - 1].tool_uses() if i else []
        assert [r.call_id for r in results] == [u.id for u in prev_uses], f"message {i}"
        assert m.blocks[: len(results)] == results, "tool results must come first"
    last_uses = msgs[-1].tool_uses() if msgs[-1].role == "assistant" else []
    assert not last_uses, "history ends with unanswered tool calls"


def build_session(turns: int, seed: int = 0, **kwargs: int) -> list[Message]:
    """A complete, valid history of ``turns`` turns."""
    rng = random.Random(seed)
    msgs: list[Message] = []
    for n in range(turns):
        msgs += make_turn(rng, n, **kwargs)
    return msgs
