"""Issue #28: the walk of a one-shot question's ``argv`` from ``cli.main`` to the agent
loop stays short and one way. ``scripts/argv_walk.py`` traces a real one-shot (the
scripted provider on loopback) with a profile hook; here its numbers are held: at
most 8 files on the path, no step back up to a higher layer on the path or in what
the path's files hand off to, no import back up among the files visited.

The twin plants steps back up in a copy of the package (the agent's consumer calls
a front-end function, and reads the turn's events through a front-end wrapper) and
the same script sees them, on the path, in the hand-offs and among the imports: the
numbers above are not held because the method is blind."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import swebash_py

PACKAGE = Path(swebash_py.__file__).parent
ROOT = PACKAGE.parent
SCRIPT = ROOT / "scripts" / "argv_walk.py"


def walk(pythonpath: Path | None = None) -> dict[str, Any]:
    env = {**os.environ}
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    result = subprocess.run([sys.executable, str(SCRIPT), "--json"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    numbers: dict[str, Any] = json.loads(result.stdout)
    return numbers


def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("argv_walk", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


def test_the_walk_to_the_loop_is_short_and_one_way() -> None:
    numbers = walk()
    path = numbers["path"]
    assert numbers["package"] == str(PACKAGE)
    assert path[0] == "swebash_py.cli.main" and path[-1] == "swebash_py.agent.loop", path
    assert len(path) <= 8, path
    assert numbers["path_steps_back_up"] == 0, path
    assert numbers["hand_offs"] and numbers["hand_offs_back_up"] == []
    # no import back up: a call that goes up before the loop can only be a callback
    # handed down (calls_back_up lists them: the trust decider given to load_settings)
    assert numbers["imports_back_up"] == []


def test_steps_back_up_counts_each_climb() -> None:
    walk_script = script()
    layers = walk_script.layer_order(ROOT / "pyproject.toml")
    down = ["swebash_py.cli.main", "swebash_py.front.build", "swebash_py.agent.loop"]
    assert walk_script.steps_back_up(down, layers) == 0
    climbing = [*down, "swebash_py.repl.session", "swebash_py.config.paths",
                "swebash_py.cli.args"]
    assert walk_script.steps_back_up(climbing, layers) == 2


PLANTED_NOTE = '''

def planted_note() -> None:
    """Planted by the twin: a call from the agent up to the front end that returns."""
'''
PLANTED = '''

async def planted_events(events):  # type: ignore[no-untyped-def]
    """Planted by the twin: the agent's turn events through the front end."""
    async for event in events:
        yield event
'''


def test_twin_a_planted_step_back_up_is_seen(tmp_path: Path) -> None:
    shutil.copytree(PACKAGE, tmp_path / "swebash_py",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    for name, planted in (("pipes", PLANTED), ("helptext", PLANTED_NOTE)):
        module = tmp_path / "swebash_py" / "cli" / f"{name}.py"
        module.write_text(module.read_text() + planted)
    consume = tmp_path / "swebash_py" / "agent" / "consume.py"
    text = consume.read_text()
    loop = "    async for event in events:\n"
    assert text.count(loop) == 1
    consume.write_text(text.replace(loop, "    from swebash_py.cli.helptext import planted_note\n"
                                          "    from swebash_py.cli.pipes import planted_events\n\n"
                                          "    planted_note()\n"
                                          "    async for event in planted_events(events):\n"))
    numbers = walk(tmp_path)
    assert numbers["package"] == str(tmp_path / "swebash_py")
    assert numbers["path"][-3:] == ["swebash_py.agent.consume", "swebash_py.cli.pipes",
                                    "swebash_py.agent.loop"]
    assert numbers["path_steps_back_up"] == 1
    # a call up that returned before the loop is off the path: a hand-off back up
    assert numbers["hand_offs_back_up"] == [["swebash_py.agent.consume",
                                             "swebash_py.cli.helptext"]]
    assert ["swebash_py.agent.consume", "swebash_py.cli.pipes"] in numbers["imports_back_up"]
