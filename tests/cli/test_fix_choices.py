"""`ai fix`'s choices and arguments, and the snippet with and without history."""

from __future__ import annotations

from pathlib import Path

import pytest

from swebash_py.cli.commands.fix_cmd import _nth
from swebash_py.cli.shell_init import snippet
from swebash_py.errors import UsageError
from swebash_py.front.shell_helper import clipboard_sequence, extract_fenced, parse_fix_choice


@pytest.mark.parametrize(("typed", "choice"), [
    ("r", "run"), ("R", "run"), ("e", "edit"), ("c", "copy"), ("a", "abort"), ("", "abort"),
    ("x", "unclear"),
])
def test_fix_choices(typed: str, choice: str) -> None:
    assert parse_fix_choice(typed) == choice


def test_n_is_a_positive_number() -> None:
    assert _nth("") == 1 and _nth("3") == 3
    for bad in ("0", "two", "-1"):
        with pytest.raises(UsageError):
            _nth(bad)


def test_only_a_fenced_block_is_a_fix() -> None:
    assert extract_fenced("x\n```sh\ngit push\n```") == "git push"
    assert extract_fenced("No command can fix this: the server is down.") is None


def test_the_clipboard_gets_the_sanitised_command() -> None:
    import base64

    data = clipboard_sequence("echo \x1b[2Jhi")[len("\x1b]52;c;"):-1]
    assert base64.b64decode(data) == b"echo hi"


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_history_hooks_come_only_with_a_directory(shell: str) -> None:
    directory = Path("/data/it's here")
    with_hooks = snippet(shell, history_dir=directory)
    assert "SWEBASH_TERM_ID" in with_hooks and "__swebash_wish" in with_hooks
    assert "SWEBASH_TERM_ID" not in snippet(shell)  # history = false: no hooks
    assert "ai fix" in snippet(shell)  # the key still offers fix (it needs the history)
