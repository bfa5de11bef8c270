"""The local-model guards on recorded reply shapes: calls written as text (Hermes/
Qwen tags, a fenced JSON call) become calls, anything else stays text; a line
repeated without end stops the reply."""

from __future__ import annotations

from swebash_py.agent.repetition import RepeatedLines
from swebash_py.agent.textcalls import TextCalls
from swebash_py.events import Finish, ProviderEvent, TextDelta, ToolCallReady, ToolCallStart

TOOLS = ("read_file", "run_command")
# recorded shapes: Qwen2.5 through llama.cpp without --jinja, Hermes-2-Pro via a
# plain OpenAI-compatible server, and a small model answering with a fenced call
QWEN = ('<tool_call>\n{"name": "run_command", "arguments": {"command": "ls -la"}}\n'
        '</tool_call>')
HERMES = ('I will read it.\n<tool_call>\n{"arguments": {"path": "setup.py"}, '
          '"name": "read_file"}\n</tool_call>')
FENCED = 'Reading:\n```json\n{"name": "read_file", "parameters": {"path": "a.md"}}\n```\n'


def run(text: str, size: int = 3, tools: tuple[str, ...] = TOOLS) -> list[ProviderEvent]:
    calls = TextCalls(tools)
    out: list[ProviderEvent] = []
    for i in range(0, len(text), size):
        out += calls.feed(TextDelta(text[i:i + size]))
    return out + calls.feed(Finish("stop"))


def text_of(events: list[ProviderEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def ready(events: list[ProviderEvent]) -> list[tuple[str, str]]:
    return [(e.name, e.arguments) for e in events if isinstance(e, ToolCallReady)]


def test_recorded_shapes_become_calls() -> None:
    for size in (1, 3, 50):
        assert ready(run(QWEN, size)) == [("run_command", '{"command": "ls -la"}')]
        events = run(HERMES, size)
        assert ready(events) == [("read_file", '{"path": "setup.py"}')]
        assert text_of(events) == "I will read it.\n"
        assert ready(run(FENCED, size)) == [("read_file", '{"path": "a.md"}')]
    starts = [e for e in run(QWEN + QWEN) if isinstance(e, ToolCallStart)]
    assert len({(e.index, e.id) for e in starts}) == 2


def test_a_missing_closing_tag_at_the_end_still_counts() -> None:
    assert ready(run(QWEN.removesuffix("</tool_call>"))) == [
        ("run_command", '{"command": "ls -la"}')]


def test_twins_prose_unknown_tools_and_plain_json_stay_text() -> None:
    for text in ("Servers print <tool_call> tags as text when they do not parse them.",
                 '<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>',
                 '```json\n{"name": "Ada", "age": 36}\n```\n',
                 "a < b and <tool but not a call"):
        events = run(text)
        assert ready(events) == [] and text_of(events) == text


def test_a_native_call_leaves_the_text_alone() -> None:
    calls = TextCalls(TOOLS)
    native = ToolCallStart(0, "c1", "read_file")
    out = calls.feed(TextDelta("<tool_call>")) + calls.feed(native)
    out += calls.feed(TextDelta(QWEN)) + calls.feed(Finish("tool_calls"))
    assert ready(out) == [] and text_of(out) == "<tool_call>" + QWEN


def test_repeated_lines_trip_and_twin_short_lists_do_not() -> None:
    loop = RepeatedLines(12)
    assert any(loop.feed("The answer is 42.\n\n") for _ in range(12))
    assert loop.count == 12
    listing = RepeatedLines(12)
    assert not listing.feed("- ok\n" * 8 + "|---|---|\n" * 3 + "- ok\n" * 8)


def test_twin_nested_closing_braces_are_different_lines() -> None:
    code = "".join(" " * (4 * depth) + "}\n" for depth in range(14, 0, -1))
    assert not RepeatedLines(12).feed(code)


def test_a_fenced_example_followed_by_prose_stays_text() -> None:
    """The wall: a fenced call-shaped block with prose after it is an example."""
    for after in ("That is how a call looks.", "`x` is the path.", "<tool_call> tags too"):
        text = FENCED + after
        for size in (1, 3, 50):
            events = run(text, size)
            assert ready(events) == [] and text_of(events) == text


def test_twin_a_fenced_call_followed_by_whitespace_or_calls_is_made() -> None:
    """The twin: only whitespace (or further calls) after the block: still calls."""
    for size in (1, 3, 50):
        assert ready(run(FENCED + " \n\n", size)) == [("read_file", '{"path": "a.md"}')]
        events = run(FENCED + "\n" + QWEN + "\n" + FENCED.removeprefix("Reading:\n"), size)
        assert ready(events) == [("read_file", '{"path": "a.md"}'),
                                 ("run_command", '{"command": "ls -la"}'),
                                 ("read_file", '{"path": "a.md"}')]
        assert text_of(events) == "Reading:\n"
        starts = [e for e in events if isinstance(e, ToolCallStart)]
        assert len({(e.index, e.id) for e in starts}) == 3
    # a tagged call is unambiguous: prose after it does not undo it
    assert ready(run(QWEN + "\nDone.")) == [("run_command", '{"command": "ls -la"}')]
