"""Behaviour by trait, never by tool name (#28): outside ``swebash_py/tools/``, no
code decides what to do by comparing with a built-in tool's name (``== "run_command"``,
``in ("read_file", ...)``, ``case "run_command":``) or defaults a parameter to one
(``tool: str = "run_command"``) or keeps a collection of them to compare with later
(``_WRITERS = ("write_file", "edit_file")``). What a tool is lives in its class, as traits
(``ToolTraits``: ``command_arg``, ``escalate_arg``, ``previews``, ``path_arg``...);
a second tool with the same traits must get the same treatment, and a renamed
tool must keep it. A survivor is listed below with why it cannot read the traits
yet; a stale entry fails. Twins: a planted comparison of each kind is seen; the
trait-based code that replaced them is not flagged."""

from __future__ import annotations

import ast
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "swebash_py"
TOOLS = "swebash_py/tools/"  # where a tool is declared: its own name is its business
NAMES = frozenset(entry["name"] for entry in json.loads(
    (PACKAGE / "data" / "builtin_tools.json").read_text(encoding="utf-8")))
# (file, name): why it is still there
ALLOWED: dict[tuple[str, str], str] = {}


def _names_in(node: ast.AST) -> list[str]:
    """Built-in tool names that ``node`` is (a string) or holds (a tuple/list/set)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if node.value in NAMES else []
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [name for item in node.elts for name in _names_in(item)]
    return []


def found_in(source: str, where: str) -> list[str]:
    """``where:line: name (how)`` for each name-based decision in ``source``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            how, parts = "compared", [node.left, *node.comparators]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            how = "default"
            parts = [*node.args.defaults, *[d for d in node.args.kw_defaults if d is not None]]
        elif isinstance(node, ast.MatchValue):
            how, parts = "matched", [node.value]
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            value = node.value  # a collection kept to compare with: ``x in _WRITERS``
            if isinstance(value, ast.Call) and value.args:  # frozenset({...})
                value = value.args[0]
            how = "kept"
            parts = [value] if isinstance(value, ast.Tuple | ast.List | ast.Set) else []
        else:
            continue
        found += [(node.lineno, f"{where}:{node.lineno}: {name} ({how})")
                  for part in parts for name in _names_in(part)]
    return [text for _line, text in sorted(found, key=lambda item: item[0])]


def _found() -> list[str]:
    found: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        if not where.startswith(TOOLS):
            found += found_in(path.read_text(encoding="utf-8"), where)
    return found


def _key(finding: str) -> tuple[str, str]:
    where, name = finding.split(": ", 1)
    return where.rsplit(":", 1)[0], name.split(" ", 1)[0]


def test_no_builtin_tool_name_is_compared_outside_tools() -> None:
    found = [f for f in _found() if _key(f) not in ALLOWED]
    assert found == [], "decide by the tool's traits (tools/base.py ToolTraits), not its name"


def test_no_stale_allowance() -> None:
    assert set(ALLOWED) - {_key(f) for f in _found()} == set()


def test_twin_a_planted_comparison_of_each_kind_is_seen() -> None:
    planted = '''
def judge(pending, tool: str = "run_command", *, other="web_fetch"):
    if pending.tool.name == "run_command":
        return 1
    if "read_file" != pending.tool.name:
        return 2
    if pending.tool.name in ("write_file", "edit_file", "not_a_tool"):
        return 3
    match pending.tool.name:
        case "find_files":
            return 4
READERS = frozenset({"read_file", "list_directory"})
'''
    assert found_in(planted, "x.py") == [
        "x.py:2: run_command (default)", "x.py:2: web_fetch (default)",
        "x.py:3: run_command (compared)", "x.py:5: read_file (compared)",
        "x.py:7: write_file (compared)", "x.py:7: edit_file (compared)",
        "x.py:10: find_files (matched)", "x.py:12: read_file (kept)",
        "x.py:12: list_directory (kept)"]


def test_twin_trait_based_code_and_mere_mentions_pass() -> None:
    """What replaced the comparisons (traits), and names in text (a docstring, a
    rule's example, a message), are not decisions by name."""
    source = '''
"""A ``run_command`` that would ask runs as a preview."""
def judge(pending, args):
    traits = pending.tool.traits()
    if traits.command_arg is None or not traits.previews:
        return "e.g. run_command(git status)"
    return traits.escalates(args) and pending.tool.name == pending.call.name
'''
    assert found_in(source, "x.py") == []
    assert "run_command" in NAMES and len(NAMES) >= 10  # the catalog was read
