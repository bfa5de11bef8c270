"""Model facts from litellm's bundled JSON, read without importing litellm."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from swebash_py.engine import modelinfo


def test_reads_the_real_bundled_file() -> None:
    assert len(modelinfo.model_map()) > 500
    assert modelinfo.context_window("gpt-4o") == 128_000
    assert modelinfo.context_window("openai/gpt-4o") == 128_000
    assert modelinfo.max_output_tokens("gpt-4o") == 16_384


@pytest.mark.parametrize(("model", "window"), [
    ("anthropic/claude-sonnet-4-5", 200_000),
    ("gemini/gemini-2.5-flash", 1_048_576),
    ("ollama_chat/llama3.1", 8192),  # alias of ollama/
    ("ollama_chat/llama3.1:latest", 8192),  # tag stripped
])
def test_provider_prefixes_and_aliases(model: str, window: int) -> None:
    assert modelinfo.context_window(model) == window


def test_unknown_model_and_override() -> None:
    assert modelinfo.context_window("acme/unheard-of-model") == modelinfo.DEFAULT_CONTEXT_WINDOW
    assert modelinfo.context_window("gpt-4o", override=4096) == 4096
    assert modelinfo.max_output_tokens("acme/unheard-of-model") is None


def test_cost() -> None:
    entry = modelinfo.model_entry("gpt-4o")
    assert entry is not None
    expected = 1000 * entry["input_cost_per_token"] + 500 * entry["output_cost_per_token"]
    assert modelinfo.cost("openai/gpt-4o", 1000, 500) == pytest.approx(expected)
    cached = modelinfo.cost("openai/gpt-4o", 1000, 500, cache_read=800)
    assert cached is not None and cached < expected
    assert modelinfo.cost("acme/unheard-of-model", 1000, 500) is None
    assert modelinfo.cost("ollama/llama3.1", 1000, 500) == 0.0  # known to be free


def test_does_not_import_litellm() -> None:
    code = ("import sys; from swebash_py.engine import modelinfo as m;"
            "assert m.context_window('gpt-4o') == 128000;"
            "print('litellm' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.strip() == "False"


def test_slim_cache_is_written_then_used_with_the_same_answers(isolated: Path) -> None:
    from swebash_py.engine import modelinfo

    modelinfo.model_map.cache_clear()
    fresh = modelinfo.model_map()
    cached_files = list((isolated / "data" / "cache").glob("models-*"))
    assert len(cached_files) == 1
    full = modelinfo._load_full(modelinfo._data_path())  # type: ignore[arg-type]
    assert fresh["gpt-4o"] == {k: v for k, v in full["gpt-4o"].items() if k in modelinfo.FIELDS}
    modelinfo.model_map.cache_clear()
    cached_files[0].write_bytes(modelinfo.HEADER + b'"gpt-4o"\t{"max_input_tokens":1234}\n')
    assert modelinfo.context_window("openai/gpt-4o") == 1234  # proves it is read
    assert dict(modelinfo.model_map()) == {"gpt-4o": {"max_input_tokens": 1234}}
    modelinfo.model_map.cache_clear()
    cached_files[0].write_text('{"gpt-4o": {"max_input_tokens": 1234}}')  # an old format
    assert modelinfo.context_window("openai/gpt-4o") == full["gpt-4o"]["max_input_tokens"]
    modelinfo.model_map.cache_clear()
    cached_files[0].write_text("not json")  # a broken cache is rebuilt, not trusted
    assert modelinfo.context_window("openai/gpt-4o") == full["gpt-4o"]["max_input_tokens"]
    modelinfo.model_map.cache_clear()


def test_every_name_is_found_by_bisection_as_by_a_scan(isolated: Path) -> None:
    """The sorted cache answers each name (and each missing one) as a scan of it does."""
    import json

    from swebash_py.engine import modelinfo

    modelinfo.model_map.cache_clear()
    lines = modelinfo.model_map()._lines
    scanned = {}
    for line in lines[len(modelinfo.HEADER):].splitlines():
        name, _, entry = line.partition(b"\t")
        scanned[json.loads(name)] = json.loads(entry)
    missing = ["", "x", "openai/x", "zzzz", "\u00e9", "gpt-4o-", " gpt-4o"]
    fresh = modelinfo.ModelMap(lines)
    assert {name: fresh.entry(name) for name in [*scanned, *missing]} == \
        {**scanned, **dict.fromkeys(missing)}
    assert len(scanned) > 1000


@pytest.mark.parametrize("body", [b"\n\n\n", b'"a"\t{}\n\n', b'"b"\n"a"\t{}\n', b"x\n"])
def test_a_damaged_cache_answers_none_without_looping(body: bytes) -> None:
    from swebash_py.engine import modelinfo

    damaged = modelinfo.ModelMap(modelinfo.HEADER + body)
    assert damaged.entry("a") in (None, {}) and damaged.entry("zz") is None
