"""The collector waits while the program starts, and is back to its usual pace
(with start-up's objects frozen) once the session is built."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

CODE = ("import gc, sys\nusual = gc.get_threshold()\n"
        "import swebash_py.front.build as build\n"
        "seen = []\noriginal = build.startup_gc.settle\n"
        "def spy():\n    seen.append(gc.get_threshold())\n    original()\n"
        "build.startup_gc.settle = spy\n"
        "from swebash_py.cli.main import main\n"
        "try:\n    main(['-m', 'openai/x', '--api-base', sys.argv[1], 'hi'])\n"
        "except SystemExit as exit:\n    assert exit.code == 0, exit.code\n"
        "print(seen[0][0], gc.get_threshold() == usual, gc.get_freeze_count() > 10_000,"
        " file=sys.stderr)\n")


def test_start_up_collects_rarely_then_the_usual_pace_returns(fake_provider: Any) -> None:
    from tests.fakeprovider import Reply

    fake_provider.queue(Reply(text="fine"))
    result = subprocess.run([sys.executable, "-c", CODE, fake_provider.url], capture_output=True,
                            text=True, stdin=subprocess.DEVNULL, check=True, env=os.environ)
    assert result.stdout == "fine\n"
    assert result.stderr.split() == ["100000", "True", "True"]


def test_settle_without_relax_changes_nothing() -> None:
    """The twin: a process that never relaxed keeps its thresholds and freezes nothing."""
    import gc

    from swebash_py.front import startup_gc

    before = gc.get_threshold(), gc.get_freeze_count()
    startup_gc.settle()
    assert (gc.get_threshold(), gc.get_freeze_count()) == before
