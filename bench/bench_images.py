"""Whole-process numbers for images (issue #31): one-shot ``ai -i shot.png`` against the
scripted provider on 127.0.0.1, median of 15 runs each, for a vision model (the bytes
go), a text-only one (a note goes) and an unknown model whose server refuses images
(one request more, with notes); a question without an image as the baseline. And the
slim model table's size with ``supports_vision`` kept, and its one-time rebuild.

    .venv/bin/python bench/bench_images.py
"""

from __future__ import annotations

import base64
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from swebash_py.engine import modelinfo
from tests.fakeprovider import ErrorReply, FakeProvider, Reply

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ"
                       "/PchI7wAAAABJRU5ErkJggg==")
AI = str(Path(sys.executable).parent / "ai")
Replies = Callable[[], list[Reply | ErrorReply]]


def _median_ms(fp: FakeProvider, env: dict[str, str], cwd: Path, model: str,
               args: list[str], replies: Replies, runs: int = 15) -> int:
    times = []
    for _ in range(runs):
        fp.queue(*replies())
        started = time.perf_counter()
        done = subprocess.run([AI, "-m", model, "--api-base", fp.url, "--no-tools", *args, "q"],
                              cwd=cwd, env=env, capture_output=True, text=True, check=False)
        times.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise SystemExit(done.stderr)
    return round(statistics.median(times) * 1000)


def table_numbers() -> None:
    path = modelinfo._data_path()
    if path is None:
        print("litellm's table is not installed")
        return
    started = time.perf_counter()
    full = modelinfo._load_full(path)
    lines = modelinfo._as_lines(modelinfo._slim(full))
    rebuild = (time.perf_counter() - started) * 1000
    without = tuple(f for f in modelinfo.FIELDS if f != "supports_vision")
    before = modelinfo._as_lines({name: {f: e[f] for f in without if f in e}
                                  for name, e in full.items()})
    print(f"slim table: {len(full)} models, {len(before):,} -> {len(lines):,} bytes with "
          f"supports_vision; rebuilt once after the upgrade in {rebuild:.0f} ms")


def main() -> None:
    table_numbers()
    home = Path(tempfile.mkdtemp())
    cwd = home / "ws"
    cwd.mkdir()
    (cwd / "shot.png").write_bytes(PNG)
    env = dict(os.environ, SWEBASH_HOME=str(home / "data"), SWEBASH_CONFIG=str(home / "c.toml"),
               OPENAI_API_KEY="sk-bench")

    def ok() -> list[Reply | ErrorReply]:
        return [Reply(text="ok")]

    def refused() -> list[Reply | ErrorReply]:
        return [ErrorReply(400, message="image_url is only supported by certain models"),
                Reply(text="ok")]

    cases = [("gpt-4o-mini, no image", "openai/gpt-4o-mini", [], ok),
             ("gpt-4o-mini, -i (the bytes go)", "openai/gpt-4o-mini", ["-i", "shot.png"], ok),
             ("gpt-3.5-turbo, -i (a note goes)", "openai/gpt-3.5-turbo", ["-i", "shot.png"], ok),
             ("unknown model refusing, -i (one retry)", "openai/local-x", ["-i", "shot.png"],
              refused)]
    with FakeProvider() as fp:
        _median_ms(fp, env, cwd, "openai/gpt-4o-mini", [], ok, runs=2)  # warm caches
        for label, model, args, replies in cases:
            print(f"{label:42s} median {_median_ms(fp, env, cwd, model, args, replies)} ms")


if __name__ == "__main__":
    main()
