"""What a user sees, whole process, against a provider that thinks before it answers.

The scripted provider (``tests/fakeprovider.py``, in this process) waits ``--ttft``
(300 ms) between a request and its first event and notes, on the system-wide
monotonic clock, when each request arrived and when its first event went out;
this process reads the pty of the installed `ai` and notes when text is painted.
Rows, each as median ms over interleaved rounds and as the median per-round ratio
to ``python -c pass`` (same round):
  (a) exec -> request on the wire, a one-shot in a pty;
  (b) provider's first byte -> first answer text painted in the pty;
  (c) an 80k-character answer (20,000 4-character tokens) in a pty / piped, wall
      ratio at full speed; and a 4k answer at 100 tokens/s: wall ratio and the lag
      from the provider's last event to ``ai``'s exit (what a reader waits);
  (d) CPU (user + system) per 1,000 streamed tokens: the 80k run's less a short
      answer's (start-up), in the same round;
with ``ai --version`` and ``python -c pass`` as baselines. ``--base DIR`` adds the
same rows for another source tree (``git archive main | tar -x -C DIR``), run with
this venv, in the same rounds.
Run: .venv/bin/python bench/bench_user.py [--runs N] [--base DIR] [--ttft S]
"""

from __future__ import annotations

import argparse
import os
import pty
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import ROOT, home_env
from tests.fakeprovider import FakeProvider, Reply

LAUNCH = "import sys; from swebash_py.cli.main import main; sys.exit(main())"
SHORT = "Port **8080** is free.\n\n- checked `ss -ltn`\n"
LONG = "".join(f"Line {n} of the answer, with *some* `code` and words.\n\n" if n % 40 else
               f"```python\nprint({n})\n```\n\n" for n in range(1600))[:80_000]
PACED = LONG[:4_000]
TOKEN = 4  # characters per streamed fragment


@dataclass
class Tree:
    """A source tree to time: this checkout, or ``--base``."""

    name: str
    env: dict[str, str]
    samples: dict[str, list[float]] = field(default_factory=dict)

    def note(self, row: str, value: float) -> None:
        self.samples.setdefault(row, []).append(value)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(argv: list[str], env: dict[str, str], *, in_pty: bool,
        first: bytes = b"") -> tuple[float, float, float | None, float]:
    """(start, end, when ``first`` was first painted, CPU seconds) of one run, on the
    monotonic clock; stdout to a pty, or to a pipe that is read and dropped."""
    cpu = _cpu()
    start = time.monotonic()
    if in_pty:
        controller, terminal = pty.openpty()
        proc = subprocess.Popen(argv, stdin=terminal, stdout=terminal, stderr=terminal,
                                env={**env, "TERM": "xterm-256color", "COLUMNS": "100",
                                     "LINES": "30"}, start_new_session=True)
        os.close(terminal)
        fd = controller
    else:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, env=env)
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
    seen, painted = b"", None
    try:
        while chunk := os.read(fd, 65536):
            if painted is None:
                seen += chunk
                if first and first in seen:
                    painted = time.monotonic()
    except OSError:  # EIO: the pty's last holder closed it
        pass
    proc.wait()
    end = time.monotonic()
    if in_pty:
        os.close(controller)
    return start, end, painted, _cpu() - cpu


def one_round(trees: list[Tree], fp: FakeProvider, pass_cmd: list[str]) -> None:
    for tree in trees:
        ask = [sys.executable, "-c", LAUNCH, "-m", "openai/x", "--api-base", fp.url, "q"]
        start, end, _, _ = run(pass_cmd, tree.env, in_pty=False)
        tree.note("python -c pass", end - start)
        start, end, _, _ = run([sys.executable, "-c", LAUNCH, "--version"], tree.env,
                               in_pty=False)
        tree.note("ai --version", end - start)
        fp.ttft = OPTS.ttft
        fp.queue(Reply(text=SHORT, chunk_size=TOKEN))
        start, end, painted, _ = run(ask, tree.env, in_pty=True, first=b"Port")
        record = fp.requests[-1]
        tree.note("(a) exec -> request", record.arrived - start)
        assert painted is not None and record.first_byte is not None
        tree.note("(b) first byte -> text", painted - record.first_byte)
        fp.ttft = 0.0
        for mode, in_pty in (("pty", True), ("plain", False)):
            fp.queue(Reply(text=SHORT, chunk_size=TOKEN))
            tree.note(f"short {mode} cpu", run(ask, tree.env, in_pty=in_pty)[3])
            fp.queue(Reply(text=LONG, chunk_size=TOKEN))
            start, end, _, cpu = run(ask, tree.env, in_pty=in_pty)
            tree.note(f"80k {mode} wall", end - start)
            tree.note(f"80k {mode} cpu", cpu)


def paced(trees: list[Tree], fp: FakeProvider) -> None:
    """The 4k answer at 100 tokens/s, once per tree and mode (it takes ~10 s)."""
    for tree in trees:
        ask = [sys.executable, "-c", LAUNCH, "-m", "openai/x", "--api-base", fp.url, "q"]
        for mode, in_pty in (("pty", True), ("plain", False)):
            fp.queue(Reply(text=PACED, chunk_size=TOKEN, delay=0.01))
            start, end, _, _ = run(ask, tree.env, in_pty=in_pty)
            tree.note(f"paced {mode} wall", end - start)
            tree.note(f"paced {mode} lag", end - fp.last_event)


def report(trees: list[Tree]) -> None:
    tokens = len(LONG) / TOKEN
    print(f"ttft {OPTS.ttft * 1000:.0f} ms, {OPTS.runs} rounds; medians (ratio: median of "
          "per-round ratios)")
    for tree in trees:
        s = tree.samples
        passes = s["python -c pass"]

        def ratio(row: str, to: list[float] = passes, s: dict[str, list[float]] = s) -> float:
            return statistics.median(a / b for a, b in zip(s[row], to, strict=False))

        def ms(row: str, s: dict[str, list[float]] = s) -> float:
            return statistics.median(s[row]) * 1000

        print(f"== {tree.name}")
        for row in ("python -c pass", "ai --version", "(a) exec -> request"):
            print(f"  {row:28} {ms(row):8.1f} ms  {ratio(row):5.2f}x pass")
        print(f"  {'(b) first byte -> text':28} {ms('(b) first byte -> text'):8.1f} ms")
        print(f"  {'(c) 80k pty / plain':28} {ratio('80k pty wall', s['80k plain wall']):5.2f}x"
              f"  ({ms('80k pty wall'):.0f} / {ms('80k plain wall'):.0f} ms)")
        if "paced pty wall" in s:
            print(f"  {'(c) 4k @100 tok/s pty/plain':28} "
                  f"{ratio('paced pty wall', s['paced plain wall']):5.2f}x  "
                  f"(lag after the last token: pty {ms('paced pty lag'):.0f} ms, "
                  f"plain {ms('paced plain lag'):.0f} ms)")
        for mode in ("pty", "plain"):  # the short answer's CPU (start-up) taken off
            per = statistics.median(a - b for a, b in zip(
                s[f"80k {mode} cpu"], s[f"short {mode} cpu"], strict=True)) / tokens * 1e6
            print(f"  {f'(d) cpu / 1k tokens, {mode}':28} {per:8.1f} ms")


class Provider(FakeProvider):
    """The scripted provider, noting when its last event of a reply went out."""

    last_event = 0.0


def _track_last_event(fp: Provider) -> None:
    from tests import fakeprovider

    real = fakeprovider._Handler._flush

    def flush(handler: object, buf: list[str]) -> None:
        real(handler, buf)  # type: ignore[arg-type]
        fp.last_event = time.monotonic()

    fakeprovider._Handler._flush = flush  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--base", help="another source tree (holding swebash_py/)")
    parser.add_argument("--ttft", type=float, default=0.3)
    parser.add_argument("--no-paced", action="store_true", help="skip the 100 tokens/s rows")
    global OPTS
    OPTS = parser.parse_args()
    home = tempfile.mkdtemp(prefix="bench-user-")
    # An installed copy has its byte code cached: a run that may not write it
    # compiles every module of ours each time (it was a third of row (a)).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    trees = [Tree("this tree", home_env(f"{home}/here", PYTHONPATH=str(ROOT)))]
    if OPTS.base:
        trees.append(Tree(f"base {OPTS.base}", home_env(f"{home}/base",
                                                        PYTHONPATH=OPTS.base)))
    fp = Provider(repeat_last=False)
    _track_last_event(fp)
    fp.start()
    try:
        one_round(trees, fp, [sys.executable, "-c", "pass"])  # warm-up: caches, pyc
        for tree in trees:
            tree.samples.clear()
        for n in range(OPTS.runs):
            one_round(trees if n % 2 == 0 else trees[::-1], fp, [sys.executable, "-c", "pass"])
        if not OPTS.no_paced:
            paced(trees, fp)
    finally:
        fp.stop()
    report(trees)


OPTS: argparse.Namespace

if __name__ == "__main__":
    main()
