"""Tokens of the first request's fixed part: the system prompt and the tools.

Counted per model family with tiktoken's encodings (OpenAI's o200k for gpt-4o
and later, cl100k for older ones) and with the app's own estimator
(``engine.tokens``, which the context fitting uses), plus the older Claude
tokenizer litellm ships (current Anthropic and Gemini tokenizers are not
public: the estimator is built to over-count them slightly). Offline: the
tokenizer files are litellm's bundled ones.
The tools are counted as the OpenAI wire sends them (name, description, JSON
schema); Anthropic's ``input_schema`` form is the same text within a few tokens.

    .venv/bin/python bench/bench_prompt_tokens.py
"""

from __future__ import annotations

import json
from pathlib import Path

from swebash_py.config.settings import Settings
from swebash_py.engine.system_prompt import build_system_prompt
from swebash_py.engine.tokens import estimate_text
from swebash_py.tools.registry import default_tools


def first_request_parts() -> tuple[str, str]:
    tools = default_tools(Settings())
    system = build_system_prompt(Path("/home/user/project"), [t.name for t in tools])
    specs = [t.spec() for t in tools]
    wire = json.dumps([{"type": "function", "function": {
        "name": s.name, "description": s.description, "parameters": s.parameters}}
        for s in specs])
    return system, wire


def main() -> None:
    system, tools = first_request_parts()
    rows = [("estimator (engine/tokens.py)", estimate_text)]
    try:
        import importlib.util
        import os

        spec = importlib.util.find_spec("litellm")  # found, not imported (no cost-map fetch)
        assert spec and spec.submodule_search_locations
        folder = os.path.join(spec.submodule_search_locations[0], "litellm_core_utils",
                              "tokenizers")
        os.environ.setdefault("TIKTOKEN_CACHE_DIR", folder)
        import tiktoken
        from tokenizers import Tokenizer

        claude = Tokenizer.from_file(os.path.join(folder, "anthropic_tokenizer.json"))
        rows.append(("anthropic (legacy claude json)",
                     lambda text: len(claude.encode(text).ids)))

        for name in ("o200k_base", "cl100k_base"):
            enc = tiktoken.get_encoding(name)
            rows.append((f"tiktoken {name}", lambda text, enc=enc: len(enc.encode(text))))
    except Exception as exc:  # offline without the files: the estimate only
        print(f"(tiktoken unavailable: {exc})")
    print(f"{'counter':<32} {'system':>7} {'tools':>7} {'total':>7}")
    for label, count in rows:
        s, t = count(system), count(tools)
        print(f"{label:<32} {s:>7} {t:>7} {s + t:>7}")


if __name__ == "__main__":
    main()
