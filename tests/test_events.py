"""The events are msgspec Structs now; they must behave as the frozen dataclasses they
were. Two references: ``tests/events_golden.json`` holds ``to_json()`` and ``repr()``
of every case below as the dataclass events on main (before the change) produced them
(regenerate only on purpose: ``PYTHONPATH=<a main checkout> python tests/test_events.py
--write-golden``), and ``_reference`` rebuilds each event class as a frozen dataclass
and runs the old ``{"type": ..., **dataclasses.asdict(event)}`` on it."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
import sys
from collections import namedtuple
from pathlib import Path
from typing import Any

import msgspec

from swebash_py import events

GOLDEN = Path(__file__).with_name("events_golden.json")
Span = namedtuple("Span", "start end")

# (class name, positional args, keyword args): every event, with defaults and without,
# unicode, quotes and control characters, None, tuples, a namedtuple, nested dicts and
# lists, a non-string key, and an event nested in a payload.
CASES: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("Event", (), {}),
    ("TextDelta", ('héllo 🌍 "quoted"\n\ttab \\ \x00',), {}),
    ("TextDelta", (), {"text": ""}),
    ("ThinkingDelta", ("思考… ✓",), {}),
    ("ThinkingSignature", (), {"signature": "EqQBCkYIARgCKkA+/=="}),
    ("RedactedThinking", ("b64/+=",), {}),
    ("ToolCallStart", (0, "call_1", "read_file"), {}),
    ("ToolCallDelta", (), {"index": 2, "fragment": '{"pa'}),
    ("ToolCallReady", (1, "c", "run_command", '{"command": "ls -la"}'), {}),
    ("UsageReport", (), {}),
    ("UsageReport", (1, 2), {"cache_read_tokens": 3, "cache_write_tokens": 4}),
    ("Finish", ("stop",), {}),
    ("Finish", ("other",), {"raw": "weird_reason"}),
    ("TurnStart", ("openai/x",), {}),
    ("TurnStart", ("anthropic/claude", "ab12cd34", 1), {}),
    ("BlockStart", (0, "text"), {}),
    ("BlockStart", (3, "tool_use", "call_1", "read_file"), {}),
    ("BlockDelta", (1, "thinking", "… ünïcode"), {}),
    ("BlockStop", (0, "text", "the whole answer"), {}),
    ("BlockStop", (2, "tool_use", "", "c1", "edit_file",
                   {"path": "a.py", "edits": [{"old": "x", "new": "ü"}], "pair": (1, (2, "3")),
                    "span": Span(1, 2), "none": None, "flt": 1.5, "yes": True, 7: "int key",
                    "nested": events.TextDelta("inner"), "empty": {}, "list": []},
                   False, "edit a.py"), {}),
    ("BlockStop", (4, "tool_result"), {"content": "out\n", "call_id": "c1", "tool": "t",
                                        "is_error": True}),
    ("ToolProgress", ("c1", "run_command", "output", "line\n"), {}),
    ("ToolProgress", ("c", "t", "queued"), {}),
    ("ApprovalEvent", ("c1", "write_file", "allow", "user"), {}),
    ("ApprovalEvent", ("c", "t", "deny", "no-terminal"), {"reason": "no terminal to ask"}),
    ("PreviewEvent", ("c", "run_command", "applied",
                      [{"path": "a", "kind": "modified", "lines": (1, 2)}, {"path": "b/ç"}],
                      "2 files"), {}),
    ("PreviewEvent", ("c", "t", "no-changes"), {}),
    ("UsageEvent", (), {}),
    ("UsageEvent", (10, 20, 1, 2, 0.0123), {}),
    ("UsageEvent", (), {"cost": None, "input_tokens": 5}),
    ("Notice", ("compacted — 3 turns",), {}),
    ("ErrorEvent", ("ai: boom",), {}),
    ("ErrorEvent", ("x",), {"error": "auth"}),
    ("TurnComplete", ("stop",), {}),
    ("TurnComplete", ("max_iterations", "text"), {"usage": {"input_tokens": 1,
                                                            "output_tokens": 2}}),
]


def _build(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> events.Event:
    event: events.Event = getattr(events, name)(*args, **kwargs)
    return event


def _key(i: int, name: str) -> str:
    return f"{i:02d}-{name}"


def _golden_now() -> dict[str, dict[str, str]]:
    return {_key(i, name): {"json": _build(name, a, k).to_json(), "repr": repr(_build(name, a, k))}
            for i, (name, a, k) in enumerate(CASES)}


def _event_classes() -> list[type[events.Event]]:
    return [obj for obj in vars(events).values()
            if isinstance(obj, type) and issubclass(obj, events.Event)]


# ---------------------------------------------------------------- the reference


_TWINS: dict[type, type] = {}


def _twin(cls: type[events.Event]) -> type:
    """``cls`` as the frozen dataclass it used to be: same name, fields, defaults."""
    if cls not in _TWINS:
        specs: list[Any] = []
        for f in msgspec.structs.fields(cls):
            if f.default is not msgspec.NODEFAULT:
                specs.append((f.name, Any, dataclasses.field(default=f.default)))
            elif f.default_factory is not msgspec.NODEFAULT:
                specs.append((f.name, Any, dataclasses.field(default_factory=f.default_factory)))
            else:
                specs.append((f.name, Any))
        _TWINS[cls] = dataclasses.make_dataclass(cls.__name__, specs, frozen=True)
    return _TWINS[cls]


def _as_twins(value: Any) -> Any:
    """``value`` with every event in it (payloads included) turned into its twin."""
    if isinstance(value, events.Event):
        return _twin(type(value))(*[_as_twins(getattr(value, n)) for n in value.__struct_fields__])
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*[_as_twins(v) for v in value])
    if isinstance(value, (list, tuple)):
        return type(value)(_as_twins(v) for v in value)
    if isinstance(value, dict):
        return type(value)((k, _as_twins(v)) for k, v in value.items())
    return value


def _reference(event: events.Event) -> dict[str, Any]:
    """What ``Event.to_dict`` returned when events were dataclasses."""
    return {"type": event.type, **dataclasses.asdict(_as_twins(event))}


def _typed(value: Any) -> Any:
    """``value`` with the type of every container spelled out, for a strict compare."""
    if isinstance(value, dict):
        return (type(value), [(_typed(k), _typed(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value), [_typed(v) for v in value])
    return (type(value), value)


# ---------------------------------------------------------------- tests


def test_every_event_class_has_a_case() -> None:
    assert {cls.__name__ for cls in _event_classes()} == {name for name, _, _ in CASES}


def test_to_json_and_repr_are_what_main_produced() -> None:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert sorted(golden) == sorted(_key(i, name) for i, (name, _, _) in enumerate(CASES))
    assert _golden_now() == golden


def test_the_golden_compare_catches_another_encoding() -> None:
    """The twin: a msgspec-encoded line (compact separators) is not what main wrote."""
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    name, args, kwargs = CASES[14]
    line = msgspec.json.encode(_build(name, args, kwargs).to_dict()).decode()
    assert json.loads(line) == json.loads(golden[_key(14, name)]["json"])
    assert line != golden[_key(14, name)]["json"]


def test_to_dict_is_what_dataclasses_asdict_gave() -> None:
    for name, args, kwargs in CASES:
        event = _build(name, args, kwargs)
        assert _typed(event.to_dict()) == _typed(_reference(event)), name
        assert event.to_json() == json.dumps(_reference(event), ensure_ascii=False), name


def test_the_asdict_compare_catches_lists_for_tuples() -> None:
    """The twin: msgspec.to_builtins (tuples become lists) would fail the check above."""
    event = _build(*CASES[19])
    assert "pair" in event.to_dict()["input"]
    builtins = {"type": event.type, **msgspec.to_builtins(event)}
    assert _typed(builtins) != _typed(_reference(event))


def test_to_dict_copies_the_payload() -> None:
    event = _build(*CASES[19])
    assert isinstance(event, events.BlockStop) and event.input is not None
    out = event.to_dict()
    out["input"]["edits"][0]["old"] = "changed"
    out["input"]["path"] = "changed"
    assert event.input["edits"][0]["old"] == "x" and event.input["path"] == "a.py"
    assert out["input"]["nested"] == {"text": "inner"}  # a nested event: its fields only


def test_fields_defaults_and_match_args_are_the_dataclass_ones() -> None:
    for cls in _event_classes():
        twin = _twin(cls)
        names = tuple(f.name for f in dataclasses.fields(twin))
        assert cls.__struct_fields__ == names == cls.__match_args__
        assert "type" not in names and isinstance(cls.type, str)
    assert events.PreviewEvent("c", "t", "applied").changes == []
    assert events.PreviewEvent("c", "t", "applied").changes is not events.PreviewEvent(
        "c", "t", "applied").changes


def test_equality_hash_repr_and_construction_behave_as_before() -> None:
    for name, args, kwargs in CASES:
        event, again = _build(name, args, kwargs), _build(name, args, kwargs)
        twin = _as_twins(event)
        assert event == again
        assert repr(event) == repr(twin)
        by_keyword = type(event)(**{n: getattr(event, n) for n in event.__struct_fields__})
        assert by_keyword == event
        try:
            hash(twin)
        except TypeError:  # a dict or list field: unhashable, as before
            continue
        assert hash(event) == hash(again)
    assert events.TextDelta("a") != events.ThinkingDelta("a")
    assert events.TextDelta("a") != events.TextDelta("b")
    assert events.UsageEvent(cost=0.5) != events.UsageEvent()


def test_events_are_frozen() -> None:
    event = events.TextDelta("a")
    try:
        event.text = "b"  # type: ignore[misc]
    except AttributeError:
        pass
    else:  # pragma: no cover - the failure this test exists for
        raise AssertionError("an event was mutated")
    assert event.text == "a"


def test_match_isinstance_type_pickle_and_copy() -> None:
    stop = events.BlockStop(2, "tool_use", "", "c1", "read_file", {"path": "a"})
    match stop:
        case events.BlockStop(index, "tool_use", content, call_id, tool=tool):
            assert (index, content, call_id, tool) == (2, "", "c1", "read_file")
        case _:  # pragma: no cover
            raise AssertionError("no match")
    match events.TextDelta("x"):
        case events.BlockStop():  # pragma: no cover
            raise AssertionError("matched the wrong class")
        case events.TextDelta(text=text):
            assert text == "x"
    assert isinstance(stop, events.Event) and not isinstance(stop, events.BlockStart)
    assert stop.type == events.BlockStop.type == "block_stop" and events.Event.type == "event"
    for name, args, kwargs in CASES:
        event = _build(name, args, kwargs)
        assert pickle.loads(pickle.dumps(event)) == event
        assert copy.copy(event) == event and copy.deepcopy(event) == event


if __name__ == "__main__" and sys.argv[1:] == ["--write-golden"]:
    GOLDEN.write_text(json.dumps(_golden_now(), ensure_ascii=False, indent=1) + "\n",
                      encoding="utf-8")
    print(f"wrote {GOLDEN} from {events.__file__}")
