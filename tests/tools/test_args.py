"""Tool arguments are msgspec Structs (#28: one schema library): a misfit names
every argument that does not fit, in words the model reads its schema in; what
fits is taken leniently ("5" for an integer); an MCP tool's arguments pass
through whole; a tool's first call loads no pydantic."""

from __future__ import annotations

import subprocess
import sys

import pytest

from swebash_py.mcpclient.tool import McpArgs
from swebash_py.tools.args import ArgsError
from swebash_py.tools.command import RunCommandArgs
from swebash_py.tools.fetch import WebFetchArgs
from swebash_py.tools.files import ReadFileArgs
from swebash_py.tools.find import FindFilesArgs


def problems(args: type, raw: dict[str, object]) -> list[str]:
    with pytest.raises(ArgsError) as caught:
        args.parse(raw)  # type: ignore[attr-defined]
    return caught.value.problems


def test_every_misfit_is_named_once() -> None:
    assert problems(ReadFileArgs, {"limit": "x", "offset": 0, "colour": 1}) == [
        "limit: expected integer, got string", "offset: expected integer >= 1",
        "colour: unknown argument", "path: missing (required)"]
    assert problems(FindFilesArgs, {"pattern": "", "sort": "size"}) == [
        "pattern: expected string of length >= 1", "sort: expected one of 'mtime', 'path'"]
    assert problems(RunCommandArgs, {"command": "ls", "escalate": "maybe", "background": None,
                                     "timeout": "0.01"}) == [
        "escalate: expected boolean, got string", "background: expected boolean, got null",
        "timeout: expected number >= 0.1"]


def test_twin_what_fits_is_taken_as_pydantic_took_it() -> None:
    args = ReadFileArgs.parse({"path": "a", "limit": "5", "offset": 2.0})
    assert (args.path, args.limit, args.offset) == ("a", 5, 2)
    command = RunCommandArgs.parse({"command": "ls", "background": "true", "timeout": 3})
    assert command.background is True and command.timeout == 3.0
    assert command.to_dict() == {"command": "ls", "timeout": 3.0, "background": True}


def test_mcp_arguments_pass_through_whole() -> None:
    """The server checks them against its own schema: nothing dropped or refused here."""
    raw = {"timezone": "UTC", "nested": {"a": [1, None]}, "arguments": 3}
    args = McpArgs.parse(raw)
    assert args.to_dict() == raw and args.to_dict() is not raw


def test_a_fetch_keeps_its_resolution_once() -> None:
    args = WebFetchArgs.parse({"url": "http://example.test/"})
    assert args.take_pinned() is None
    args.pin("found")  # type: ignore[arg-type]
    assert args.take_pinned() == "found" and args.take_pinned() is None
    assert args.to_dict() == {"url": "http://example.test/"}  # never offered or sent


PROBE = """
import sys
from swebash_py.config.settings import Settings
from swebash_py.tools.registry import default_tools
tools = {t.name: t for t in default_tools(Settings())}
for name, raw in (("read_file", {"path": "a"}), ("run_command", {"command": "ls"}),
                  ("web_fetch", {"url": "http://x/"}), ("find_files", {"pattern": "*"})):
    tools[name].spec(), tools[name].Args.parse(raw)
EXTRA
print(sorted(m for m in ("pydantic", "pydantic_core") if m in sys.modules))
"""


def loaded(extra: str = "") -> str:
    code = PROBE.replace("EXTRA", extra)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_a_first_tool_call_loads_no_pydantic() -> None:
    assert loaded() == "[]"


def test_twin_the_probe_sees_pydantic_when_something_loads_it() -> None:
    assert loaded("import mcp.types") == "['pydantic', 'pydantic_core']"
