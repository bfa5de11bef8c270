"""Common Markdown is drawn without importing ``rich.markdown`` (nor ``rich.table``).

``elements`` holds what rich's loop knows of each element; it is checked against
``rich.markdown``'s classes. A fresh interpreter renders a document of headings,
paragraphs, code, lists and a table with ``FastMarkdown`` and reports which
modules got imported; the twin adds a quote (drawn by rich's loop) and sees
them imported, so the check can fail.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from rich.markdown import Markdown, MarkdownElement, UnknownElement

from swebash_py.render import elements

HEAVY = ["rich.markdown", "rich.table"]
COMMON = ("## Step\n\nRun **this** and `that`.\n\n```python\nprint(1)\n```\n\n- a\n- b\n\n"
          "1. c\n\n| name | value |\n|---|--:|\n| x | 1 |\n")
SCRIPT = """
import io, json, sys
from rich.console import Console
from swebash_py.render.blocks import BlockSplitter
console = Console(file=io.StringIO(), width=80, force_terminal=True, color_system="truecolor")
splitter = BlockSplitter()
splitter.add(sys.argv[1])
for block in splitter.finish():
    console.print(block.markdown)
print(json.dumps([m for m in sys.argv[2].split(",") if m in sys.modules]))
"""


def _loaded(text: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", SCRIPT, text, ",".join(HEAVY)],
                         capture_output=True, text=True, check=True).stdout
    return list(json.loads(out))


def test_common_blocks_import_no_rich_markdown() -> None:
    assert _loaded(COMMON) == []


def test_the_twin_with_a_quote_imports_it() -> None:
    assert _loaded(COMMON + "\n> a quote\n") == HEAVY


@pytest.mark.parametrize("token_type", [*Markdown.elements, "html_block", "no_such"])
def test_the_element_facts_are_rich_s(token_type: str) -> None:
    element = Markdown.elements.get(token_type, UnknownElement)
    assert elements.new_line_after(token_type) == bool(element.new_line)
    assert elements.draws_children(token_type) == (
        element.on_child_close is MarkdownElement.on_child_close)


def test_the_inline_tags_are_rich_s() -> None:
    assert Markdown.inlines == elements.INLINES
