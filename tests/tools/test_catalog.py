"""The generated catalog of built-in tools: equal to what the classes say, and lazy."""

from __future__ import annotations

import copy
import subprocess
import sys

from swebash_py.config.settings import Settings
from swebash_py.tools import catalog
from swebash_py.tools.base import ToolContext, ToolTraits
from swebash_py.tools.registry import builtin_tool_classes, default_tools


def drift(written: list[dict[str, object]]) -> list[str]:
    """What differs between ``written`` and what the tool classes say (names)."""
    settings = Settings()
    real = {cls.name: cls.configured(settings) for cls in builtin_tool_classes()}
    problems = [] if [e["name"] for e in written] == list(real) else ["order or names"]
    for entry in written:
        tool = real.get(str(entry["name"]))
        if tool is None:
            continue
        spec = tool.spec()
        if (entry["description"], entry["parameters"]) != (spec.description, spec.parameters):
            problems.append(f"{entry['name']}: description or schema")
        if ToolTraits(tool.name, **entry["traits"]) != tool.traits():  # type: ignore[arg-type]
            problems.append(f"{entry['name']}: traits")
        if (entry["module"], entry["class"]) != (type(tool).__module__,
                                                 type(tool).__qualname__):
            problems.append(f"{entry['name']}: class")
    return problems


def test_the_catalog_file_is_what_the_classes_say() -> None:
    """If this fails, regenerate: python -m swebash_py.tools.catalog"""
    again = "regenerate it: python -m swebash_py.tools.catalog"
    assert catalog.CATALOG.read_text(encoding="utf-8") == catalog.render(catalog.generate()), again
    assert drift(list(catalog.entries())) == [], again


def test_a_changed_schema_would_be_caught() -> None:
    """The twin: an argument's description edited in a class but not regenerated."""
    stale = copy.deepcopy(list(catalog.entries()))
    stale[0]["parameters"]["properties"]["path"]["description"] = "an older wording"
    assert drift(stale) == ["read_file: description or schema"]
    stale = copy.deepcopy(list(catalog.entries()))
    stale[6]["module"] = "swebash_py.tools.files"
    assert drift(stale) == ["run_command: class"]


def test_lazy_tools_answer_like_the_real_ones() -> None:
    settings = Settings()
    lazy = default_tools(settings)
    real = [cls.configured(settings) for cls in builtin_tool_classes()]
    assert [t.spec() for t in lazy] == [t.spec() for t in real]
    assert [t.traits() for t in lazy] == [t.traits() for t in real]
    assert [t.read_only for t in lazy] == [t.read_only for t in real]
    web = lazy[9]
    assert web.name == "web_search" and web.Args is type(real[9]).Args  # loads it
    assert web.loaded().settings is settings.web_search  # type: ignore[attr-defined]


async def test_a_lazy_tool_runs_its_class(tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    (tmp_path / "a.txt").write_text("hello\n")
    read = default_tools(Settings())[0]
    args = read.Args.parse({"path": "a.txt"})
    result = await read.run(args, ToolContext(workspace=tmp_path))
    assert "hello" in result.output and not result.is_error


def test_registering_the_tools_imports_no_tool_module() -> None:
    code = ("import sys\nfrom swebash_py.config.settings import Settings\n"
            "from swebash_py.tools.registry import ToolRegistry, default_tools\n"
            "reg = ToolRegistry(default_tools(Settings()))\nreg.specs()\n"
            "from swebash_py.tools.registry import builtin_traits\nbuiltin_traits()\n"
            "print(sorted(m for m in sys.modules if m.startswith('swebash_py.tools.')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == str(["swebash_py.tools.base", "swebash_py.tools.catalog",
                                       "swebash_py.tools.registry"])
