"""The store's records are msgspec Structs now; a session's export must be what the
frozen dataclasses (and ``dataclasses.asdict``) gave. ``export_golden.json`` holds the
JSON and Markdown exports of the session below as main produced them before the
change, in UTC (regenerate only on purpose: ``PYTHONPATH=<a main checkout>
python tests/store/test_records_structs.py --write-golden``)."""

from __future__ import annotations

import copy
import json
import os
import pickle
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from swebash_py.store import export
from swebash_py.store.records import BlockRecord, SessionInfo, SessionUsage, TurnRecord

GOLDEN = Path(__file__).with_name("export_golden.json")


def _session() -> tuple[SessionInfo, list[TurnRecord]]:
    info = SessionInfo("ab12cd34", "Fix the tésts — 🌍", 1_700_000_000.25, 1_700_000_100.5,
                       "openai/x", "/home/u/proj", turns=2)
    blocks = [
        BlockRecord("thinking", "Read it first.", {"signature": "sig==", "step": 0},
                    1_700_000_001.0),
        BlockRecord("text", "Let me look.", None, 1_700_000_002.0),
        BlockRecord("tool_use", '{"path": "a.py"}', {"id": "c1", "name": "read_file", "step": 0},
                    1_700_000_003.0),
        BlockRecord("tool_result", "alpha\n", {"call_id": "c1", "name": "read_file",
                                               "is_error": False, "nested": {"k": [1, None]}},
                    1_700_000_004.0),
    ]
    turns = [TurnRecord(1, 1, "what is in a.py?", 1_700_000_000.5, 1_700_000_005.0, "stop",
                        120, 30, 0.0012, blocks, cache_read_tokens=100),
             TurnRecord(2, 2, "and then?", 1_700_000_050.0, None, None, 0, 0, None,
                        rewound=1_700_000_090.0)]
    return info, turns


def _golden_now() -> dict[str, str]:
    info, turns = _session()
    return {"json": export.to_json(info, turns), "markdown": export.to_markdown(info, turns)}


@pytest.fixture
def utc() -> Iterator[None]:
    old = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if old is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = old
    time.tzset()


def test_the_export_is_what_main_produced(utc: None) -> None:
    assert _golden_now() == json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_the_golden_catches_a_changed_field(utc: None) -> None:
    """The twin: one changed value on a turn shows in the JSON export."""
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    info, turns = _session()
    turn = json.loads(golden["json"])["turns"][0]
    assert turn["cache_read_tokens"] == 100 and turn["blocks"][3]["nested"] == {"k": [1, None]}
    changed = [TurnRecord(*[getattr(t, n) for n in t.__struct_fields__][:-1], 7) for t in turns]
    assert export.to_json(info, changed) != golden["json"]


def test_records_are_frozen_hashable_and_compare_by_value() -> None:
    info, turns = _session()
    again, turns_again = _session()
    assert info == again and hash(info) == hash(again) and turns == turns_again
    assert SessionUsage() == SessionUsage(0, 0, 0, 0.0) != SessionUsage(cost=None)
    assert hash(SessionUsage(1)) == hash(SessionUsage(1))
    try:
        info.title = "x"  # type: ignore[misc]
    except AttributeError:
        pass
    else:  # pragma: no cover
        raise AssertionError("a record was mutated")
    with pytest.raises(TypeError):  # a list field: unhashable, as with the dataclass
        hash(turns[0])
    assert TurnRecord(1, 1, "", 0.0, None, None, 0, 0, None).blocks == []
    assert pickle.loads(pickle.dumps(turns)) == turns and copy.deepcopy(turns) == turns
    assert turns[0].blocks[0].to_block().text == "Read it first."
    assert turns[0].blocks[2].is_image is False


if __name__ == "__main__" and sys.argv[1:] == ["--write-golden"]:
    os.environ["TZ"] = "UTC"
    time.tzset()
    GOLDEN.write_text(json.dumps(_golden_now(), ensure_ascii=False, indent=1) + "\n",
                      encoding="utf-8")
    print(f"wrote {GOLDEN} from {export.__file__}")
