"""The path a one-shot question's ``argv`` takes from ``cli.main`` to the agent loop.

Run it as ``.venv/bin/python scripts/import_path.py`` (add ``PYTHONPATH=OTHER_CHECKOUT``
to measure another checkout's package with the same method and the same layers).

Method. The scripted provider (``tests/fakeprovider.py``, on loopback) answers; the
one-shot ``main(["-m", "openai/x", "--api-base", URL, QUESTION])`` runs in this process
under a profile hook (``sys.setprofile``) that watches every call into our package
until the first call of the agent loop (``Agent.run_turn``):

* **path**: the call stack at that moment, our frames only, outermost first, one
  step per file (a file calling itself again is the same step). This is the chain
  ``argv`` really passes through to reach the loop: the number to keep at 8 or less.
* **visited**: every file of ours called before the loop, in order of first call.
* **imports back up**: among the files visited, the import statements (grimp's graph,
  imports inside functions counted, as import-linter counts them) from a file into a
  file of a higher layer: what ties the path's lower layers back to the upper ones.

Each file's layer comes from the layers contract in this checkout's
``pyproject.toml`` (``[tool.importlinter]``, top first; a package it does not list is a
layer of its own). A **step back up** is a call from a file into a file of a higher
layer than the caller's: counted over the path and over every call before the
loop. With one-way imports a call can go back up only through a callback handed
down (``load_settings(project=...)`` calling the CLI's trust decider): such calls
are listed, and the imports back up should be none.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import os
import sys
import tempfile
import tomllib
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))  # tests.fakeprovider (after any PYTHONPATH given)
QUESTION = "what is 2+2?"


def layer_order() -> list[list[str]]:
    """The layers contract's layers, top first, each a list of module names."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    layers = next(c["layers"] for c in contracts if c["type"] == "layers")
    # "a | b" (independent) and "a : b" (siblings that may import each other): one layer
    return [[name.strip() for name in layer.replace(":", "|").split("|")] for layer in layers]


def layer_of(module: str, layers: list[list[str]]) -> tuple[int, str]:
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


class Recorder:
    """The profile hook: our calls until the loop starts, and the stack then."""

    def __init__(self, package: Path, layers: list[list[str]]) -> None:
        self.package, self.layers = str(package), layers
        self.visited: list[str] = []
        self.ups: list[tuple[str, str]] = []
        self.path: list[str] | None = None

    def module(self, frame: FrameType | None) -> str | None:
        """The module of ours a frame runs in, or None."""
        if frame is None or not frame.f_code.co_filename.startswith(self.package):
            return None
        name = frame.f_globals.get("__name__")
        return name if isinstance(name, str) else None

    def ours_above(self, frame: FrameType | None) -> FrameType | None:
        while frame is not None and self.module(frame) is None:
            frame = frame.f_back
        return frame

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if self.path is not None or event != "call":
            return
        callee = self.module(frame)
        if callee is None:
            return
        if callee not in self.visited:
            self.visited.append(callee)
        caller_frame = self.ours_above(frame.f_back)
        caller = self.module(caller_frame)
        if caller is not None and caller != callee and self.higher(callee, caller):
            self.ups.append((caller, callee))
        if frame.f_code.co_name == "run_turn" and callee.endswith("agent.loop"):
            self.path = self.stack(frame)

    def higher(self, callee: str, caller: str) -> bool:
        return layer_of(callee, self.layers)[0] < layer_of(caller, self.layers)[0]

    def stack(self, frame: FrameType | None) -> list[str]:
        chain: list[str] = []
        while frame is not None:
            name = self.module(frame)
            if name is not None and (not chain or chain[-1] != name):
                chain.append(name)
            frame = frame.f_back
        return chain[::-1]


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


def steps_back_up(chain: list[str], layers: list[list[str]]) -> int:
    """Along ``chain``: how often a step goes to a higher layer than the one before."""
    index = [layer_of(m, layers)[0] for m in chain]
    return sum(1 for a, b in itertools.pairwise(index) if b < a)


def report(recorder: Recorder, layers: list[list[str]]) -> None:
    path = recorder.path
    if path is None:
        raise SystemExit("the agent loop was never reached")
    print(f"path from cli.main to the agent loop ({len(path)} files, "
          f"{steps_back_up(path, layers)} steps back up):")
    for module in path:
        print(f"  {module:<40} layer {layer_of(module, layers)[1]}")
    print(f"visited before the loop: {len(recorder.visited)} files; calls back up to a "
          f"higher layer: {len(set(recorder.ups))} distinct")
    for caller, callee in sorted(set(recorder.ups)):
        print(f"  up: {caller} -> {callee}")
    ups = imports_back_up(recorder.visited, layers)
    print(f"imports back up among the visited files: {len(ups)}")
    for importer, imported in ups:
        print(f"  import: {importer} -> {imported}")


def imports_back_up(modules: list[str], layers: list[list[str]]) -> list[tuple[str, str]]:
    import grimp  # the graph import-linter builds (a dev requirement)

    graph = grimp.build_graph("swebash_py", cache_dir=None)
    loaded = set(modules)
    return sorted((a, b) for a in loaded for b in graph.find_modules_directly_imported_by(a)
                  if b in loaded and layer_of(b, layers)[0] < layer_of(a, layers)[0])


def main() -> None:
    import swebash_py

    layers = layer_order()
    recorder = Recorder(Path(swebash_py.__file__).parent, layers)
    print(f"package: {Path(swebash_py.__file__).parent}")
    run_one_shot(recorder)
    report(recorder, layers)


if __name__ == "__main__":
    main()
