"""A rendered one-shot (stdout a terminal) of plain prose imports no rich at all.

``ai`` runs in a pseudo-terminal (as a user runs it) with a short plain answer;
at exit it writes which of markdown-it, rich's Markdown, Pygments and rich's
Syntax are loaded, and which rich modules. The twin answer holds a code fence
and a quote: all of them load, so the check sees them when they are there.
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
        "    [[m for m in heavy if m in sys.modules],\n"
        "     sorted(m for m in sys.modules if m == 'rich' or m.startswith('rich.'))])))\n"
        "sys.exit(main(['-m', 'openai/x', '--api-base', sys.argv[3], 'hi']))\n")


def rendered(fake_provider: Any, tmp_path: Path, text: str) -> tuple[list[str], list[str], str]:
    """(the heavy modules loaded, the rich modules loaded, the terminal's output) of a
    one-shot answering ``text``."""
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
    heavy, rich = json.loads(report.read_text())
    return heavy, rich, out.decode()


def test_a_plain_rendered_answer_loads_no_markdown_machinery(fake_provider: Any,
                                                             tmp_path: Path) -> None:
    loaded, rich, screen = rendered(fake_provider, tmp_path, "Hello! How can I help?")
    assert "\x1b[?25l" in screen  # rendered: a live region ran (cursor hidden)
    assert "Hello! How can I help?" + " " * 58 in screen  # padded as rich pads it
    assert loaded == []
    assert rich == []  # not even rich.console: cli.tty_text drew it


def test_the_twin_with_a_code_fence_loads_it(fake_provider: Any, tmp_path: Path) -> None:
    loaded, rich, screen = rendered(fake_provider, tmp_path,
                                    "Run:\n\n```sh\nls -la\n```\n\n> Done.")
    assert "\x1b[?25l" in screen and "ls -la" in re.sub(r"\x1b\[[0-9;]*m", "", screen)
    assert loaded == list(HEAVY)
    assert "rich.console" in rich and "rich.live" in rich
