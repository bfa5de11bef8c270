"""Messages and blocks are msgspec Structs now; they must behave as the (mutable)
dataclasses they were. ``messages_golden.json`` holds ``repr()``, ``__match_args__``
and the stored JSON (``messages_to_json``) of the cases below as main produced them
with dataclasses, before the change (regenerate only on purpose:
``PYTHONPATH=<a main checkout> python tests/engine/test_messages_structs.py --write-golden``).
"""

from __future__ import annotations

import copy
import gc
import json
import pickle
import sys
import weakref
from pathlib import Path

from swebash_py.engine import context
from swebash_py.engine.messages import (
    Block,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from swebash_py.engine.tokens import TokenCounter
from swebash_py.store.records import messages_from_json, messages_to_json

GOLDEN = Path(__file__).with_name("messages_golden.json")


def _cases() -> list[Message]:
    return [
        Message("user", [TextBlock("héllo 🌍 \"q\"\n")]),
        Message.user("plain"),
        Message("user"),
        Message("assistant", [
            ThinkingBlock("思考…", "sig=="),
            ThinkingBlock("", redacted_data="b64/+="),
            TextBlock("Let me look.", kind="text"),
            ToolUseBlock("call_1", "read_file", '{"path": "a.py"}'),
            ToolUseBlock("call_2", "run_command", "{not json"),
        ]),
        Message("user", [
            ToolResultBlock("call_1", "read_file", "alpha\n"),
            ToolResultBlock("call_2", "run_command", "boom", True),
        ]),
        Message("user", [ImageBlock("image/png", "ab" * 32, "iVBORw0KGgo="),
                         ImageBlock("image/jpeg", "cd" * 32), TextBlock("what is this?")]),
    ]


def _golden_now() -> dict[str, object]:
    messages = _cases()
    blocks: list[Block] = [b for m in messages for b in m.blocks]
    return {"repr": [repr(m) for m in messages],
            "match_args": {type(b).__name__: list(type(b).__match_args__) for b in blocks}
            | {"Message": list(Message.__match_args__)},
            "stored": messages_to_json([m for m in messages if not m.images()])}


def test_repr_fields_and_stored_json_are_what_main_produced() -> None:
    assert _golden_now() == json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_the_golden_catches_an_image_repr_with_its_data() -> None:
    """The twin: the base64 data stays out of the repr, as ``field(repr=False)`` kept it."""
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    image = ImageBlock("image/png", "ab" * 32, "iVBORw0KGgo=")
    assert "iVBORw0KGgo=" not in golden["repr"][5] and "iVBORw0KGgo=" not in repr(image)
    default_repr = f"ImageBlock(media_type='image/png', sha256='{'ab' * 32}', " \
                   "data='iVBORw0KGgo=', kind='image')"
    assert default_repr not in golden["repr"][5]


def test_stored_history_round_trips() -> None:
    messages = [m for m in _cases() if not m.images()]
    assert messages_from_json(messages_to_json(messages)) == [m for m in messages if m.blocks]


def test_equality_and_mutability_are_the_dataclass_ones() -> None:
    assert _cases() == _cases()
    assert TextBlock("a") != TextBlock("b") and TextBlock("a") != ThinkingBlock("a")
    assert ImageBlock("image/png", "x", "d1") != ImageBlock("image/png", "x", "d2")
    message = Message.user("a")
    message.blocks.append(TextBlock("b"))
    message.role = "assistant"
    message.blocks[0].text = "A"  # type: ignore[union-attr]
    assert message == Message("assistant", [TextBlock("A"), TextBlock("b")])
    assert message.text == "Ab"
    assert Message("user").blocks == [] and Message("user").blocks is not Message("user").blocks
    for value in (message, TextBlock("a")):
        try:
            hash(value)
        except TypeError:
            continue
        raise AssertionError(f"{value!r} is hashable; the mutable dataclass was not")


def test_replace_keeps_the_rest_and_leaves_the_original() -> None:
    result = ToolResultBlock("c1", "read_file", "x" * 40_000, True)
    cut = context._shorten_block(result, 100)
    assert isinstance(cut, ToolResultBlock) and cut is not result
    assert (cut.call_id, cut.name, cut.is_error, cut.kind) == ("c1", "read_file", True,
                                                               "tool_result")
    assert len(cut.content) < len(result.content) == 40_000
    use = ToolUseBlock("c2", "write_file", json.dumps({"path": "a", "content": "y" * 40_000}))
    cut_use = context._shorten_block(use, 100)
    assert isinstance(cut_use, ToolUseBlock) and (cut_use.id, cut_use.name) == ("c2", "write_file")
    assert len(cut_use.arguments) < len(use.arguments)
    text = context._shorten_block(TextBlock("z" * 40_000), 100)
    assert isinstance(text, TextBlock) and len(text.text) < 40_000


def test_the_token_cache_holds_messages_weakly() -> None:
    counter, message = TokenCounter(), Message.user("some words here")
    ref = weakref.ref(message)
    assert counter.message(message) == counter.message(message) > 0
    assert len(counter._cache) == 1
    del message
    gc.collect()
    assert ref() is None and counter._cache == {}


def test_pickle_copy_and_match() -> None:
    for message in _cases():
        assert pickle.loads(pickle.dumps(message)) == message
        assert copy.deepcopy(message) == message and copy.copy(message) == message
    match ToolUseBlock("c", "n", "{}"):
        case ToolUseBlock(call_id, name, arguments, "tool_use"):
            assert (call_id, name, arguments) == ("c", "n", "{}")
        case _:  # pragma: no cover
            raise AssertionError("no match")


if __name__ == "__main__" and sys.argv[1:] == ["--write-golden"]:
    GOLDEN.write_text(json.dumps(_golden_now(), ensure_ascii=False, indent=1) + "\n",
                      encoding="utf-8")
    print(f"wrote {GOLDEN} from {sys.modules[Message.__module__].__file__}")
