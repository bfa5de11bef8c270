"""Offline model facts (context window, output limit, prices) without importing litellm.

litellm ships its price and context-window map as
``litellm/model_prices_and_context_window_backup.json``. Importing litellm
costs 3-4 s, so we locate the package with ``importlib.util.find_spec`` (which
does not execute it) and read that file ourselves, once, on first use (then a
slim copy of it, see ``model_map``).

Model strings are litellm's (``anthropic/claude-sonnet-4-5``, ``gpt-4o``,
``ollama_chat/llama3.1:8b``). A lookup tries the full string, the bare name,
the provider's aliases (``ollama_chat/`` -> ``ollama/``) and finally the name
without a ``:tag``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from swebash_py.config.paths import data_dir

DATA_FILE = "model_prices_and_context_window_backup.json"

# For a model we know nothing about (a local model behind an OpenAI-compatible
# server, a brand-new name): 32k. Guessing too small only costs an early
# compaction; guessing too large means the provider refuses requests (and for
# Ollama, silently truncates). 32k is what most current open-weight models
# offer at least, and users can set ``context_window`` for the exact figure.
DEFAULT_CONTEXT_WINDOW = 32_768

# Provider prefixes that share another prefix's entries in the map.
_ALIASES: dict[str, tuple[str, ...]] = {
    "ollama_chat": ("ollama",),
    "ollama": ("ollama_chat",),
    "openai": ("azure",),
    "anthropic": ("bedrock",),
    "gemini": ("vertex_ai",),
    "vertex_ai": ("gemini",),
    "together_ai": ("together",),
}


def _data_path() -> Path | None:
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        path = Path(location) / DATA_FILE
        if path.is_file():
            return path
    return None


_PRICE_KEYS = ("input_cost_per_token", "output_cost_per_token",
               "cache_read_input_token_cost", "cache_creation_input_token_cost")
FIELDS = ("max_input_tokens", "max_tokens", "max_output_tokens", "litellm_provider", "mode",
          "supports_vision", *_PRICE_KEYS,
          *(f"{key}_above_200k_tokens" for key in _PRICE_KEYS))


# a cache file without it is rebuilt (1: lines unsorted; 2: no provider and mode;
# 3: no supports_vision, so every known model looked text-only)
HEADER = b"swebash model map 4\n"


class ModelMap(Mapping[str, dict[str, Any]]):
    """The slim map as its cache file's bytes: one ``"name"<TAB>{entry}`` line per
    model, sorted by the name's bytes, an entry found by bisection and decoded only
    when it is asked for (decoding all ~4000 of them cost every run ~5 ms; scanning
    the file for each name asked, ~0.3 ms a name)."""

    def __init__(self, lines: bytes) -> None:
        self._lines = lines  # starts with HEADER, each line ends with a newline
        self._found: dict[str, dict[str, Any] | None] = {}

    def get(self, name: str, default: Any = None) -> Any:
        found = self.entry(name)
        return default if found is None else found

    def entry(self, name: str) -> dict[str, Any] | None:
        """The entry named exactly ``name``, or None."""
        if name not in self._found:
            self._found[name] = self._decode(name)
        return self._found[name]

    def _decode(self, name: str) -> dict[str, Any] | None:
        try:
            found = self._line_of(json.dumps(name).encode())
            entry = json.loads(found) if found is not None else None
        except ValueError:  # a damaged line
            return None
        return entry if isinstance(entry, dict) else None

    def _line_of(self, key: bytes) -> bytes | None:
        """The entry part of the line named ``key`` (bisecting the sorted lines)."""
        lines = self._lines
        low, high = len(HEADER), len(lines)  # both at the start of a line
        while low < high:
            # the start of the line holding the middle byte (HEADER ends with a newline)
            start = lines.rfind(b"\n", low - 1, (low + high) // 2 + 1) + 1
            if start >= high:  # only in a damaged file (a line is 6 bytes at least)
                return None
            end = lines.index(b"\n", start)
            tab = lines.index(b"\t", start, end)
            name = lines[start:tab]
            if name == key:
                return lines[tab + 1:end]
            if name < key:
                low = end + 1
            else:
                high = start
        return None

    def __getitem__(self, name: str) -> dict[str, Any]:
        found = self.entry(name)
        if found is None:
            raise KeyError(name)
        return found

    def __iter__(self) -> Iterator[str]:
        for line in self._lines.splitlines()[1:]:
            with contextlib.suppress(ValueError):
                yield json.loads(line.partition(b"\t")[0])

    def __len__(self) -> int:
        return self._lines.count(b"\n") - 1


@cache
def model_map() -> ModelMap:
    """The bundled map (loaded once); empty when litellm or its file is missing.

    Parsing the whole bundled file costs ~30 ms per process; a slim copy with
    only the fields we read is cached in the data directory, keyed on the
    bundled file's size and mtime, one model a line, so later runs decode only
    the entries they look up.
    """
    path = _data_path()
    if path is None:
        return ModelMap(HEADER)
    try:
        stat = path.stat()
    except OSError:
        return ModelMap(HEADER)
    slim_path = data_dir() / "cache" / f"models-{stat.st_size}-{stat.st_mtime_ns}.lines"
    with contextlib.suppress(OSError):
        lines = slim_path.read_bytes()
        if lines.startswith(HEADER) and lines.endswith(b"\n"):
            return ModelMap(lines)
    lines = _as_lines(_slim(_load_full(path)))
    _write_quietly(slim_path, lines)
    return ModelMap(lines)


def _load_full(path: Path) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    data.pop("sample_spec", None)
    return {k: v for k, v in data.items() if isinstance(v, dict)}


def _slim(full: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {name: {f: entry[f] for f in FIELDS if f in entry} for name, entry in full.items()}


def _as_lines(slim: dict[str, dict[str, Any]]) -> bytes:
    """The cache file's bytes: ``HEADER``, then one ``"name"<TAB>{entry}`` line per model,
    in the order of the names' bytes."""
    lines = sorted((json.dumps(name).encode(), json.dumps(entry, separators=(",", ":")).encode())
                   for name, entry in slim.items())
    return HEADER + b"".join(name + b"\t" + entry + b"\n" for name, entry in lines)


def _write_quietly(path: Path, data: bytes) -> None:
    """Write a cache file atomically; a cache that cannot be written is skipped."""
    from swebash_py.atomic import write_atomic

    with contextlib.suppress(OSError):
        write_atomic(path, data)


def _candidates(model: str) -> list[str]:
    names = [model]
    provider, _, bare = model.partition("/")
    if bare:
        names.append(bare)
        names += [f"{alias}/{bare}" for alias in _ALIASES.get(provider, ())]
    more = [n.split(":", 1)[0] for n in names if ":" in n]
    seen: dict[str, None] = dict.fromkeys(names + more)
    return list(seen)


def model_entry(model: str) -> dict[str, Any] | None:
    """The map's entry for ``model`` (first matching candidate name), or None."""
    data = model_map()
    for name in _candidates(model.strip()):
        if (entry := data.entry(name)) is not None:
            return entry
    return None


def _int(entry: dict[str, Any] | None, *keys: str) -> int | None:
    if entry is None:
        return None
    for key in keys:
        value = entry.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            return int(value)
    return None


def context_window(model: str, override: int | None = None) -> int:
    """Input window in tokens: the override, else the map, else a safe default."""
    if override:
        return int(override)
    found = _int(model_entry(model), "max_input_tokens", "max_tokens")
    return found or DEFAULT_CONTEXT_WINDOW


def max_output_tokens(model: str) -> int | None:
    """The model's output limit, or None when unknown."""
    return _int(model_entry(model), "max_output_tokens", "max_tokens")


def supports_vision(model: str) -> bool | None:
    """Whether ``model`` takes images: the table's word for a model it knows (a
    known entry without the key is text-only, as litellm's own ``supports_vision``
    reads it), None for a model it does not know."""
    entry = model_entry(model)
    if entry is None:
        return None
    return entry.get("supports_vision") is True


def _price(entry: dict[str, Any], key: str, tokens: int) -> float | None:
    value = entry.get(key)
    above = entry.get(f"{key}_above_200k_tokens")
    if tokens > 200_000 and isinstance(above, int | float):
        value = above
    return float(value) if isinstance(value, int | float) else None


def cost(model: str, input_tokens: int, output_tokens: int,
         cache_read: int = 0, cache_write: int = 0) -> float | None:
    """Dollar cost of one request, or None when the price is unknown (never 0 for that).

    ``input_tokens`` counts every prompt token, cached ones included (litellm's
    ``prompt_tokens``); ``cache_read`` / ``cache_write`` say how many of them
    were read from / written to the prompt cache, priced at their own rates
    when the map has them and at the input rate otherwise.
    """
    entry = model_entry(model)
    if entry is None:
        return None
    size = input_tokens
    input_rate = _price(entry, "input_cost_per_token", size)
    output_rate = _price(entry, "output_cost_per_token", size)
    if input_rate is None or output_rate is None:
        return None
    read_rate = _price(entry, "cache_read_input_token_cost", size)
    write_rate = _price(entry, "cache_creation_input_token_cost", size)
    read_rate = input_rate if read_rate is None else read_rate
    write_rate = input_rate if write_rate is None else write_rate
    plain = max(0, input_tokens - cache_read - cache_write)
    return (plain * input_rate + cache_read * read_rate + cache_write * write_rate
            + output_tokens * output_rate)
