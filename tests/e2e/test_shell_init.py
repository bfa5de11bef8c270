"""`ai shell-init`: in a real bash, zsh and fish (pty), the key turns the typed wish
into the suggested command on the line, cursor at the end, and nothing runs."""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pexpect
import pytest

from swebash_py.cli.shell_init import key_sequence, snippet
from swebash_py.errors import UsageError
from tests.e2e.conftest import run_ai
from tests.fakeprovider import FakeProvider, Reply

BIN = str(Path(sys.executable).parent)
ALT_BACKSLASH = "\x1b\\"
CTRL_X_P = "\x18p"  # the test's own binding: dump the line buffer and cursor to a file


@dataclass
class Shell:
    argv: list[str]
    setup: list[str]  # lines typed after start: a plain prompt, the dump binding

    @property
    def name(self) -> str:
        return self.argv[0]


SHELLS = {
    "bash": Shell(["bash", "--norc", "--noprofile", "-i"], [
        "PS1='$ '",
        """bind -x '"\\C-xp": printf "%s\\n%s\\n" "$READLINE_LINE" "$READLINE_POINT" > dump'""",
    ]),
    "zsh": Shell(["zsh", "-f", "-i"], [
        "PS1='$ '; PROMPT_EOL_MARK=''",
        "__dump() { print -r -- \"$BUFFER\"$'\\n'\"$CURSOR\" > dump }; zle -N __dump; "
        "bindkey '^Xp' __dump",
    ]),
    "fish": Shell(["fish", "--no-config", "-i"], [
        "function fish_prompt; echo -n '$ '; end; set -g fish_greeting",
        "bind \\cxp 'begin; commandline; commandline -C; end > dump'",
    ]),
}


def _wait_for(check: Callable[[], bool], what: str, timeout: float = 30) -> None:
    """Poll an observable condition until it holds (AssertionError after ``timeout``)."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def _start(shell: Shell, workspace: Path, provider: FakeProvider, init: str) -> pexpect.spawn:
    home = workspace.parent / "home"
    home.mkdir(exist_ok=True)
    env = dict(os.environ)
    env.update({"PATH": f"{BIN}:{env.get('PATH', '/usr/bin:/bin')}", "HOME": str(home),
                "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".data"),
                "TERM": "xterm-256color", "LANG": "C.UTF-8", "SWEBASH_MODEL": "openai/x",
                "SWEBASH_API_BASE": provider.url, "PROMPT_TOOLKIT_NO_CPR": "1"})
    child = pexpect.spawn(shell.argv[0], shell.argv[1:], cwd=str(workspace), env=env,
                          encoding="utf-8", timeout=30, dimensions=(40, 120))
    for line in [*shell.setup, init, "echo READY-$((6*7))" if shell.name != "fish"
                 else "echo READY-(math 6 \\* 7)"]:
        child.sendline(line)
    child.expect("READY-42")
    return child


def _dumped(workspace: Path) -> tuple[str, int] | None:
    dump = workspace / "dump"
    try:
        lines = dump.read_text().splitlines()
    except FileNotFoundError:
        return None
    return (lines[0], int(lines[1])) if len(lines) >= 2 else None


def _ask_then_dump(child: pexpect.spawn, workspace: Path, provider: FakeProvider,
                   wish: str) -> tuple[str, int]:
    """Type ``wish``, ask with the key, then dump the line buffer: (line, cursor)."""
    child.send(wish)
    child.send(ALT_BACKSLASH)
    provider.wait_for_requests(1)
    child.send(CTRL_X_P)
    _wait_for(lambda: _dumped(workspace) is not None, "the line buffer dump")
    return _dumped(workspace) or ("", 0)


@pytest.mark.pty
@pytest.mark.parametrize("name", list(SHELLS))
def test_key_puts_the_command_on_the_line_and_runs_nothing(
        name: str, fake_provider: FakeProvider, workspace: Path) -> None:
    if shutil.which(name) is None:
        pytest.skip(f"{name} is not installed")
    shell = SHELLS[name]
    init = "ai shell-init fish | source" if name == "fish" else f'eval "$(ai shell-init {name})"'
    command = "touch marker  # café"  # not ASCII: the cursor counts characters
    fake_provider.queue(Reply(text=f"```sh\n{command}\n```"))
    child = _start(shell, workspace, fake_provider, init)
    try:
        line, _ = _ask_then_dump(child, workspace, fake_provider, "make a marker file")
        assert line == command
        assert not (workspace / "marker").exists()
        (workspace / "dump").unlink()
        child.send("Z" + CTRL_X_P)  # typed text lands at the end: the cursor is there
        _wait_for(lambda: _dumped(workspace) is not None, "the second dump")
        assert (_dumped(workspace) or ("", 0))[0] == command + "Z"
        body = fake_provider.requests[0].body
        assert "make a marker file" in body["messages"][-1]["content"]
        assert name in body["messages"][-1]["content"]  # asked in the shell's own dialect
        # The twin: Enter runs the line, and the marker check sees it.
        child.send("\r")
        _wait_for(lambda: (workspace / "marker").exists(), "the marker after Enter")
    finally:
        child.terminate(force=True)


DISGUISED = "echo \x1b]0;pwned\x07safe\x1b[2K\u202e # done\x08"
CLEANED = "echo safe # done"


@pytest.mark.pty
@pytest.mark.parametrize("name", list(SHELLS))
def test_a_suggestion_reaches_the_line_without_escapes_controls_or_bidi(
        name: str, fake_provider: FakeProvider, workspace: Path) -> None:
    """The twin is the test above: a plain suggestion arrives intact."""
    if shutil.which(name) is None:
        pytest.skip(f"{name} is not installed")
    init = "ai shell-init fish | source" if name == "fish" else f'eval "$(ai shell-init {name})"'
    fake_provider.queue(Reply(text=f"```sh\n{DISGUISED}\n```"))
    child = _start(SHELLS[name], workspace, fake_provider, init)
    try:
        line, cursor = _ask_then_dump(child, workspace, fake_provider, "say done")
        assert line == CLEANED and cursor == len(CLEANED)
    finally:
        child.terminate(force=True)


def test_bare_output_is_sanitised_and_says_so(fake_provider: FakeProvider) -> None:
    fake_provider.queue(Reply(text=f"```sh\n{DISGUISED}\n```"))
    result = run_ai("-m", "openai/x", "--api-base", fake_provider.url, "-s", "say done")
    assert result.returncode == 0, result.stderr
    assert result.stdout == CLEANED + "\n"
    assert "were removed" in result.stderr


@pytest.mark.pty
def test_a_failed_request_leaves_the_wish_on_the_line(
        fake_provider: FakeProvider, workspace: Path) -> None:
    from tests.fakeprovider import ErrorReply

    fake_provider.queue(ErrorReply(401))
    child = _start(SHELLS["bash"], workspace, fake_provider, 'eval "$(ai shell-init bash)"')
    try:
        line = _ask_then_dump(child, workspace, fake_provider, "list big files")
        assert line == ("list big files", len("list big files"))
    finally:
        child.terminate(force=True)


def test_piped_shell_mode_prints_the_bare_command(fake_provider: FakeProvider) -> None:
    fake_provider.queue(Reply(text="Here you go:\n```bash\ndu -sh * | sort -h\n```\nDone."))
    result = run_ai("-m", "openai/x", "--api-base", fake_provider.url, "-s", "sizes")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "du -sh * | sort -h\n"
    assert "removed" not in result.stderr  # the twin: nothing to remove, nothing said


def test_shell_init_prints_a_snippet_for_each_shell_and_honours_the_key(
        isolated: Path) -> None:
    for name in ("bash", "zsh", "fish"):
        result = run_ai("shell-init", name)
        assert result.returncode == 0, result.stderr
        assert "__swebash_wish" in result.stdout
    assert "bind -m emacs -x '\"\\e\\\\\": __swebash_wish'" in run_ai("shell-init", "bash").stdout
    (isolated / "config.toml").write_text('[shell_init]\nkey = "ctrl-g"\n')
    assert "bindkey -M viins '^G' __swebash_wish" in run_ai("shell-init", "zsh").stdout
    assert "bind \\cx __swebash_wish" in run_ai("shell-init", "fish", "--key", "ctrl-x").stdout
    bad = run_ai("shell-init", "tcsh")
    assert bad.returncode == 2
    assert bad.stderr.startswith("ai: unknown shell 'tcsh'")


@pytest.mark.parametrize(("shell", "key", "seq"), [
    ("bash", "alt-\\", "\\e\\\\"), ("zsh", "alt-\\", "^[\\\\"), ("fish", "alt-\\", "\\e\\\\"),
    ("bash", "alt-l", "\\el"), ("zsh", "ctrl-g", "^G"), ("fish", "alt-.", "\\e\\."),
])
def test_key_sequence(shell: str, key: str, seq: str) -> None:
    assert key_sequence(shell, key) == seq


@pytest.mark.parametrize("key", ["alt-", "meta-x", "ctrl-1", "alt-'", "alt-xy"])
def test_bad_keys_are_refused(key: str) -> None:
    with pytest.raises(UsageError, match="invalid key"):
        snippet("bash", key)
