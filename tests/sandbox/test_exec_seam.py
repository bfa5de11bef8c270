"""The one execution seam: ``Runner.run(ExecRequest) -> ProcResult``.

run_command describes its process as an ``ExecRequest`` and runs it with the
runner its context carries (the ordinary sandbox unless the executor chose the
preview's); it never picks one, and tools never import the preview. Real
bwrap, real overlays; the recording runner only watches the real one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from swebash_py.process.proc import ProcResult
from swebash_py.sandbox.runner import DIRECT, ExecRequest, Runner
from swebash_py.tools.base import ToolContext
from swebash_py.tools.command import RunCommand, RunCommandArgs
from tests.preview.conftest import needs_overlay

ROOT = Path(__file__).resolve().parents[2] / "swebash_py"


class Watching:
    """The ordinary runner, with every request it ran kept."""

    writes_land = True

    def __init__(self) -> None:
        self.requests: list[ExecRequest] = []

    async def run(self, request: ExecRequest) -> ProcResult:
        self.requests.append(request)
        return await DIRECT.run(request)


async def run_command(workspace: Path, command: str, runner: Runner | None = None) -> str:
    ctx = ToolContext(workspace=workspace, runner=runner)
    result = await RunCommand().run(RunCommandArgs(command=command), ctx)
    return result.output


async def test_run_command_runs_through_the_runner_its_context_carries(
        workspace: Path) -> None:
    watching = Watching()
    output = await run_command(workspace, "echo through-the-seam", watching)
    assert "through-the-seam" in output and "exit code 0" in output
    ((request,),) = [watching.requests]
    assert request.argv[-1] == "echo through-the-seam"
    assert request.policy.workspace == workspace


async def test_twin_without_a_runner_the_ordinary_one_runs_it(workspace: Path) -> None:
    watching = Watching()
    output = await run_command(workspace, "echo through-the-seam")
    assert "through-the-seam" in output and "exit code 0" in output
    assert watching.requests == []


@needs_overlay
async def test_a_preview_runner_behind_run_command_catches_the_writes(workspace: Path) -> None:
    from swebash_py.preview.run import PreviewRunner

    runner = PreviewRunner(max_mb=16)
    output = await run_command(workspace, "echo caught > f.txt && echo ran", runner)
    try:
        assert "ran" in output and not (workspace / "f.txt").exists()  # caught, not made
        assert runner.preview is not None
        assert [c.rel for c in runner.preview.changes.changes] == ["f.txt"]
        runner.preview.apply()
        assert (workspace / "f.txt").read_text() == "caught\n"
    finally:
        runner.discard()


@needs_overlay
async def test_twin_the_ordinary_runner_makes_the_writes(workspace: Path) -> None:
    output = await run_command(workspace, "echo made > f.txt && echo ran")
    assert "ran" in output and (workspace / "f.txt").read_text() == "made\n"


PLANT = "mkdir -p .swebash && echo '[hooks]' > .swebash/config.toml && echo planted"


@needs_overlay
async def test_a_preview_plants_no_settings_and_nothing_is_swept(workspace: Path) -> None:
    """A preview's writes are caught (its change set drops settings), so the
    settings guard sweeps nothing after it (``Runner.writes_land``)."""
    from swebash_py.preview.run import PreviewRunner

    runner = PreviewRunner(max_mb=16)
    output = await run_command(workspace, PLANT, runner)
    try:
        assert "planted" in output and "removed settings" not in output
        assert not (workspace / ".swebash").exists()
        assert runner.preview is not None and runner.preview.changes.refused
    finally:
        runner.discard()


@needs_overlay
async def test_twin_the_ordinary_runs_planted_settings_are_swept(workspace: Path) -> None:
    output = await run_command(workspace, PLANT)
    assert "planted" in output and "the sandbox removed settings" in output
    assert not (workspace / ".swebash" / "config.toml").exists()


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _preview_importers(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                  if any(m.startswith("swebash_py.preview") for m in _imports(p)))


def test_no_tool_imports_the_preview() -> None:
    assert _preview_importers(ROOT / "tools") == []


def test_twin_the_scan_sees_an_import_of_the_preview(tmp_path: Path) -> None:
    (tmp_path / "tool.py").write_text("def f():\n    from swebash_py.preview.run import x\n")
    assert _preview_importers(tmp_path) == ["tool.py"]


SEAM = ["agent/executor.py", "preview/flow.py", "preview/run.py", "tools/command.py",
        "sandbox/runner.py", "approvals/decision.py", "approvals/approver.py",
        "approvals/grant.py"]


def _duck_typing(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()
            if "type: ignore" in line or "hasattr(" in line]


@pytest.mark.parametrize("name", SEAM)
def test_the_seam_is_typed_not_probed(name: str) -> None:
    assert _duck_typing((ROOT / name).read_text()) == []


def test_twin_a_probe_is_seen() -> None:
    assert _duck_typing('if hasattr(record, "commit"):\n    x = y  # type: ignore[attr]') == [
        'if hasattr(record, "commit"):', "x = y  # type: ignore[attr]"]
