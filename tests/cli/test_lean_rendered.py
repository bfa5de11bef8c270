"""A rendered one-shot (stdout a terminal) of plain prose imports no Markdown machinery.

``ai`` runs in a pseudo-terminal (as a user runs it) with a short plain answer;
at exit it writes which of markdown-it, rich's Markdown, Pygments and rich's
Syntax are loaded. The twin answer holds a code fence and a quote: all of them
load, so the check sees them when they are there.
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.fakeprovider import Reply

HEAVY = ("markdown_it", "rich.markdown", "pygments", "rich.syntax", "rich.table")
CODE = ("import atexit, json, sys\n"
        "from swebash_py.cli.main import main\n"
        "out, heavy = sys.argv[1], sys.argv[2].split(',')\n"
        "atexit.register(lambda: open(out, 'w').write(json.dumps(\n"
        "    [m for m in heavy if m in sys.modules])))\n"
        "sys.exit(main(['-m', 'openai/x', '--api-base', sys.argv[3], 'hi']))\n")


def rendered(fake_provider: Any, tmp_path: Path, text: str) -> tuple[list[str], str]:
    """(the heavy modules loaded, the terminal's output) of a one-shot answering ``text``."""
    fake_provider.queue(Reply(text=text, chunk_size=4))
    report = tmp_path / "loaded.json"
    controller, terminal = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24"}
    proc = subprocess.Popen([sys.executable, "-c", CODE, str(report), ",".join(HEAVY),
                             fake_provider.url], stdin=terminal, stdout=terminal,
                            stderr=terminal, env=env, start_new_session=True)
    os.close(terminal)
    out = bytearray()
    try:
        while chunk := os.read(controller, 65536):
            out += chunk
    except OSError:  # EIO: the child closed the terminal
        pass
    finally:
        os.close(controller)
    assert proc.wait(timeout=60) == 0, out
    return json.loads(report.read_text()), out.decode()


def test_a_plain_rendered_answer_loads_no_markdown_machinery(fake_provider: Any,
                                                             tmp_path: Path) -> None:
    loaded, screen = rendered(fake_provider, tmp_path, "Hello! How can I help?")
    assert "\x1b[?25l" in screen  # rendered: rich's live region ran
    assert "Hello! How can I help?" in screen
    assert loaded == []


def test_the_twin_with_a_code_fence_loads_it(fake_provider: Any, tmp_path: Path) -> None:
    loaded, screen = rendered(fake_provider, tmp_path,
                              "Run:\n\n```sh\nls -la\n```\n\n> Done.")
    assert "\x1b[?25l" in screen and "ls -la" in re.sub(r"\x1b\[[0-9;]*m", "", screen)
    assert loaded == list(HEAVY)
