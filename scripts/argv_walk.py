"""The walk of a one-shot question's ``argv`` from ``cli.main`` to the agent loop.

Run it as ``.venv/bin/python scripts/argv_walk.py`` (``--json`` for the numbers as
JSON; ``PYTHONPATH=OTHER_CHECKOUT`` measures another checkout's package with the same
method and that checkout's layers).

Method. The scripted provider (``tests/fakeprovider.py``, on loopback) answers; the
real one-shot ``main(["-m", "openai/x", "--api-base", URL, QUESTION])`` runs in this
process under a profile hook (``sys.setprofile``) that sees every call into our
package until the first call of the agent loop (``Agent.run_turn``):

* **path** (the number to keep at 8 or less): the call stack at that moment, our
  frames only, outermost first, one step per file (a file calling itself again is
  the same step). This is the chain ``argv`` really passes through to reach the loop.
* **hand-offs**: the files the path's own files call directly before the loop (a call
  whose caller's stack, one step per file, is a start of the path): where the
  invocation and what is made of it (settings, session) are handed on the way; each
  returned before the loop started. The walk is the path and its hand-offs.
  A module's body running (an import) is no hand-off: imports are counted below.
* **visited**: every file of ours whose code ran before the loop (imports too).
* **imports back up**: among the files visited, the import statements (grimp's graph,
  imports inside functions counted, as import-linter counts them) from a file into a
  file of a higher layer: what would tie the path's lower layers back to upper ones.

Each file's layer comes from the layers contract in the measured checkout's
``pyproject.toml`` (``[tool.importlinter]``, top first; ``a | b`` and ``a : b`` count
as one layer; a package it does not list is a layer of its own). A **step back up**
is a call from a file into a file of a higher layer than the caller's: counted along
the path, over the hand-offs and over every call before the loop. With one-way
imports a call can go back up only through a callback handed down
(``load_settings(project=...)`` calling the front end's trust decider): such calls
are listed; the path and the hand-offs should have none, the imports back up none.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import os
import sys
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))  # tests.fakeprovider (after any PYTHONPATH given)
QUESTION = "what is 2+2?"
GOAL = 8  # files on the path, issue #28

Layers = list[list[str]]


def layer_order(pyproject: Path) -> Layers:
    """The layers contract's layers, top first, each a list of module names."""
    config = tomllib.loads(pyproject.read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    layers = next(c["layers"] for c in contracts if c["type"] == "layers")
    # "a | b" (independent) and "a : b" (siblings that may import each other): one layer
    return [[name.strip() for name in layer.replace(":", "|").split("|")] for layer in layers]


def layer_of(module: str, layers: Layers) -> tuple[int, str]:
    """(index, name) of the layer ``module`` belongs to (longest prefix); an unlisted
    package is its own layer, placed with the base modules."""
    best: tuple[int, int, str] | None = None
    for index, names in enumerate(layers):
        for name in names:
            inside = module == name or module.startswith(name + ".")
            if inside and (best is None or len(name) > best[1]):
                best = (index, len(name), name)
    if best is None:
        return len(layers), ".".join(module.split(".")[:2])
    return best[0], best[2]


def goes_up(caller: str, callee: str, layers: Layers) -> bool:
    """Whether a call from ``caller`` into ``callee`` goes to a higher layer."""
    return layer_of(callee, layers)[0] < layer_of(caller, layers)[0]


def steps_back_up(chain: list[str], layers: Layers) -> int:
    """Along ``chain``: how often a step goes to a higher layer than the one before."""
    return sum(1 for a, b in itertools.pairwise(chain) if goes_up(a, b, layers))


@dataclass
class Recorder:
    """The profile hook: our calls until the loop starts, and the stack then."""

    package: str
    layers: Layers
    visited: list[str] = field(default_factory=list)
    ups: set[tuple[str, str]] = field(default_factory=set)
    calls: set[tuple[tuple[str, ...], str]] = field(default_factory=set)  # (caller chain, callee)
    path: list[str] | None = None

    def module(self, frame: FrameType | None) -> str | None:
        """The module of ours a frame runs in, or None."""
        if frame is None or not frame.f_code.co_filename.startswith(self.package):
            return None
        name = frame.f_globals.get("__name__")
        return name if isinstance(name, str) else None

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if self.path is not None or event != "call":
            return
        callee = self.module(frame)
        if callee is None:
            return
        if callee not in self.visited:
            self.visited.append(callee)
        chain = self.chain(frame.f_back)
        if chain and chain[-1] != callee and frame.f_code.co_name != "<module>":
            self.calls.add((tuple(chain), callee))
            if goes_up(chain[-1], callee, self.layers):
                self.ups.add((chain[-1], callee))
        if frame.f_code.co_name == "run_turn" and callee.endswith("agent.loop"):
            self.path = [*chain, callee] if not chain or chain[-1] != callee else chain

    def chain(self, frame: FrameType | None) -> list[str]:
        """Our frames from ``frame`` out, outermost first, one step per file."""
        steps: list[str] = []
        while frame is not None:
            name = self.module(frame)
            if name is not None and (not steps or steps[-1] != name):
                steps.append(name)
            frame = frame.f_back
        return steps[::-1]

    def hand_offs(self) -> list[tuple[str, str]]:
        """(path file, file it called) for the calls made from the path's files."""
        path = tuple(self.path or ())
        found = {(chain[-1], callee) for chain, callee in self.calls
                 if path[:len(chain)] == chain and callee not in path}
        return sorted(found, key=lambda pair: (path.index(pair[0]), pair[1]))


def run_one_shot(recorder: Recorder) -> None:
    from swebash_py.cli.main import main
    from tests.fakeprovider import FakeProvider, Reply

    with tempfile.TemporaryDirectory() as home, FakeProvider() as provider:
        provider.queue(Reply(text="4"))
        os.environ.update({"SWEBASH_HOME": home, "SWEBASH_CONFIG": f"{home}/c.toml",
                           "NO_PROXY": "127.0.0.1"})
        argv = ["-m", "openai/x", "--api-base", provider.url, QUESTION]
        sys.setprofile(recorder)
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
                main(argv)
        finally:
            sys.setprofile(None)


def imports_back_up(modules: list[str], layers: Layers) -> list[tuple[str, str]]:
    import grimp  # the graph import-linter builds (a dev requirement)

    graph = grimp.build_graph("swebash_py", cache_dir=None)
    loaded = set(modules)
    return sorted((a, b) for a in loaded for b in graph.find_modules_directly_imported_by(a)
                  if b in loaded and goes_up(a, b, layers))


def measure(recorder: Recorder) -> dict[str, Any]:
    path = recorder.path
    if path is None:
        raise SystemExit("the agent loop was never reached")
    layers = recorder.layers
    hand_offs = recorder.hand_offs()
    return {
        "package": recorder.package,
        "path": path,
        "path_steps_back_up": steps_back_up(path, layers),
        "hand_offs": [list(pair) for pair in hand_offs],
        "hand_offs_back_up": [list(p) for p in hand_offs if goes_up(*p, layers)],
        "walk_files": len(set(path) | {callee for _, callee in hand_offs}),
        "visited": len(recorder.visited),
        "calls_back_up": sorted(list(pair) for pair in recorder.ups),
        "imports_back_up": [list(pair) for pair in imports_back_up(recorder.visited, layers)],
        "layers": {m: layer_of(m, layers)[1] for m in recorder.visited},
    }


def report(numbers: dict[str, Any]) -> None:
    path, layer = numbers["path"], numbers["layers"]
    print(f"package: {numbers['package']}")
    print(f"path from cli.main to the agent loop: {len(path)} files (goal <= {GOAL}), "
          f"{numbers['path_steps_back_up']} steps back up")
    for module in path:
        print(f"  {module:<40} layer {layer[module]}")
    print(f"hand-offs from the path's files: {len(numbers['hand_offs'])} "
          f"({len(numbers['hand_offs_back_up'])} back up); the walk: "
          f"{numbers['walk_files']} files")
    for caller, callee in numbers["hand_offs"]:
        up = "  (back up)" if [caller, callee] in numbers["hand_offs_back_up"] else ""
        print(f"  {caller:<24} -> {callee:<34} layer {layer[callee]}{up}")
    print(f"visited before the loop: {numbers['visited']} files; calls back up to a "
          f"higher layer: {len(numbers['calls_back_up'])} distinct")
    for caller, callee in numbers["calls_back_up"]:
        print(f"  up: {caller} -> {callee}")
    print(f"imports back up among the visited files: {len(numbers['imports_back_up'])}")
    for importer, imported in numbers["imports_back_up"]:
        print(f"  import: {importer} -> {imported}")


def main() -> None:
    import swebash_py

    package = Path(swebash_py.__file__).parent
    recorder = Recorder(str(package), layer_order(package.parent / "pyproject.toml"))
    run_one_shot(recorder)
    numbers = measure(recorder)
    if "--json" in sys.argv[1:]:
        print(json.dumps(numbers, indent=1))
    else:
        report(numbers)


if __name__ == "__main__":
    main()
