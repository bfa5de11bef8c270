"""User messages with several text blocks keep them apart on the OpenAI wire."""

from __future__ import annotations

from swebash_py.agent.fitting import SUMMARY_INSTRUCTION
from swebash_py.engine.context import merge_same_role
from swebash_py.engine.messages import Message, TextBlock
from swebash_py.provider import openai_wire


def test_merged_user_texts_are_not_glued_together() -> None:
    # the compaction summary request appends its instruction to the last user message
    merged = merge_same_role([Message("user", [TextBlock("fix the bug")]),
                              Message("user", [TextBlock(SUMMARY_INSTRUCTION)])])
    [wire] = openai_wire.convert_message(merged[0])
    assert wire["content"] == f"fix the bug\n\n{SUMMARY_INSTRUCTION}"
    assert "bugSummarise" not in wire["content"]


def test_single_text_block_is_sent_as_is() -> None:
    [wire] = openai_wire.convert_message(Message("user", [TextBlock("hello")]))
    assert wire == {"role": "user", "content": "hello"}
