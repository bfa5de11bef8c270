"""A piped one-shot draws with the stdlib plain renderer: rich is never imported,
tool lines included (issue #28: a stdlib-only plain renderer for pipes)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.e2e.conftest import model_args, run_ai
from tests.fakeprovider import FakeProvider, Reply, ToolCall

IMPORTED = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)", re.M)


def _ask_with_a_tool_call(fp: FakeProvider, workspace: Path,
                          env: dict[str, str]) -> tuple[str, str, set[str]]:
    (workspace / "notes.txt").write_text("alpha\n")
    fp.queue(Reply(text="Let me look.",
                   tool_calls=[ToolCall("call_1", "read_file", '{"path": "notes.txt"}')]),
             Reply(text="One note: alpha."))
    result = run_ai(*model_args(fp), "what is here?", cwd=workspace,
                    env={"PYTHONPROFILEIMPORTTIME": "1", **env})
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout, result.stderr, set(IMPORTED.findall(result.stderr))


def test_a_piped_answer_with_a_tool_call_imports_no_rich(
        fake_provider: FakeProvider, workspace: Path) -> None:
    out, err, modules = _ask_with_a_tool_call(fake_provider, workspace, {})
    assert out == "Let me look.\nOne note: alpha.\n"  # the answer alone on stdout
    assert "» read_file  notes.txt" in err  # the tool lines, on stderr, uncoloured
    assert re.search(r"^✓ read_file  notes.txt\n  .*alpha$", err, re.M) and "\x1b[" not in err
    assert "swebash_py.render.plain" in modules
    assert {m for m in modules if m == "rich" or m.startswith("rich.")} == set()


def test_the_twin_rich_is_seen_when_it_is_imported(
        fake_provider: FakeProvider, workspace: Path) -> None:
    """FORCE_COLOR makes rich decide (a terminal, for it): the import log shows
    rich, so the first test's empty set is not an import log that misses it."""
    _, _, modules = _ask_with_a_tool_call(fake_provider, workspace, {"FORCE_COLOR": "1"})
    assert "rich.console" in modules
