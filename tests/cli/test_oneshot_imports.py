"""What only a tool call, an approval, MCP, checkpoints or the team store needs stays
off the path of a one-shot answer that calls no tool; so does HTTP/2 (h2), and so do
the standard-library modules only a write, a misnamed call or an audit row needs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

# ours, each needed only once the model calls a tool (or a feature is configured).
# (text.truncate is not among them: the renderer's tool view cuts results with it,
# and the renderer is loaded for every answer, in the background once the request is out.)
OURS = tuple(f"swebash_py.{name}" for name in (
    "agent.executor", "approvals.audit", "approvals.decision",
    "approvals.rules", "process.values", "approvals.grant", "process.proc", "process.reaper",
    "approvals.policy", "approvals.shellparse", "agent.hooks", "project.commands",
    "tools.args", "tools.files", "tools.find", "tools.command", "tools.edit", "tools.fetch",
    "tools.web", "tools.jobs", "checkpoints.model", "checkpoints.flow", "checkpoints.revert",
    "sandbox.runner", "sandbox.policy", "mcpclient.connection", "mcpclient.manager",
    "mcpclient.tool", "team.remote", "team.uploader", "preview.policy", "ui.tty_asker",
))
# the standard library's: a file written (tempfile), a misnamed tool (difflib), an
# audit row's digest (hashlib). (The first run in a data directory writes its
# model-info cache: tempfile then too. random is not among them: rich imports it.)
STDLIB = ("tempfile", "difflib", "hashlib")
# h2: httpcore's HTTP/2, loaded with httpx (behind a proxy: see the twin in
# tests/provider/test_lean_transport.py), never on the direct backend's path
HEAVY = (*OURS, *STDLIB, "h2")

CODE = ("import sys\nfrom swebash_py.cli.main import main\n"
        "try:\n    main(sys.argv[1:])\n"
        "except SystemExit as exit:\n    assert exit.code == 0, exit.code\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)\n")


def heavy_loaded(fake_provider: Any, workspace: Path, *options: str, **env: str) -> str:
    """Which of ``HEAVY`` `ai -m openai/x --api-base URL --yes [options] hi` loaded."""
    argv = ["-m", "openai/x", "--api-base", fake_provider.url, "--yes", *options, "hi"]
    result = subprocess.run([sys.executable, "-c", CODE, *argv], capture_output=True,
                            text=True, stdin=subprocess.DEVNULL, check=True, cwd=workspace,
                            env={**os.environ, **env})
    assert result.stdout.endswith("fine\n")
    return result.stderr.strip().splitlines()[-1]


def test_a_text_only_one_shot_imports_none_of_them(fake_provider: Any, tmp_path: Path) -> None:
    from tests.fakeprovider import Reply

    fake_provider.queue(Reply(text="fine"))
    fake_provider.queue(Reply(text="fine"))
    first = heavy_loaded(fake_provider, tmp_path)
    assert first == "['tempfile']"  # the model-info cache, written once
    assert heavy_loaded(fake_provider, tmp_path) == "[]"


def test_the_twin_a_tool_call_loads_the_tool_and_the_policy(fake_provider: Any,
                                                             tmp_path: Path) -> None:
    """The same check sees them once a call is validated and judged."""
    from tests.fakeprovider import Reply, ToolCall

    (tmp_path / "notes.txt").write_text("hello\n")
    fake_provider.queue(Reply(tool_calls=[ToolCall("c1", "read_file",
                                                   json.dumps({"path": "notes.txt"}))]))
    fake_provider.queue(Reply(text="fine"))
    loaded = heavy_loaded(fake_provider, tmp_path)
    for module in ("approvals.policy", "approvals.shellparse", "tools.args", "tools.files",
                   "agent.executor", "approvals.audit", "approvals.decision",
                   "approvals.rules", "process.values", "approvals.grant"):
        assert f"'swebash_py.{module}'" in loaded
    assert "'hashlib'" in loaded  # the call's audit row


def test_the_twin_a_write_a_command_and_a_misnamed_tool_load_theirs(
        fake_provider: Any, tmp_path: Path) -> None:
    """A write goes through a temporary file; a command through the process helpers;
    a call to a tool that does not exist gets a "did you mean" (difflib)."""
    from tests.fakeprovider import Reply, ToolCall

    fake_provider.queue(Reply(tool_calls=[
        ToolCall("c1", "write_file", json.dumps({"path": "new.txt", "content": "x\n"})),
        ToolCall("c2", "run_command", json.dumps({"command": "cat new.txt > copy.txt"})),
        ToolCall("c3", "read_fil", json.dumps({"path": "new.txt"}))]))
    fake_provider.queue(Reply(text="fine"))
    loaded = heavy_loaded(fake_provider, tmp_path)
    assert (tmp_path / "copy.txt").read_text() == "x\n"
    for module in ("'tempfile'", "'difflib'", "'swebash_py.process.proc'",
                   "'swebash_py.process.reaper'"):
        assert module in loaded
