"""The transcript's small truths: a failed exit, the sandbox note once, one usage line."""

from __future__ import annotations

import io

import pytest

from swebash_py.events import UsageEvent
from swebash_py.render import waiting
from swebash_py.render.transcript import SandboxNotes, UsageTally, command_failed

NOTE = "[sandbox: read-only, no network, no unix sockets, own processes only; host state]"


@pytest.mark.parametrize(("content", "failed"), [
    ("x\n[exit code 1 · 0.01 s]", True),
    ("x\n[exit code 0 · 0.01 s]", False),
    (f"x\n[exit code 2 · 0.01 s]\n{NOTE}", True),
    ("[timed out after 5 s: the command and its child processes were killed · 5.00 s]", True),
    ("[killed by signal 9 (SIGKILL) · 0.10 s]", True),
    ("a file's text, no status line", False),
    # the command printed a look-alike; the real status line is the last one
    ("[exit code 0 · 0.01 s]\n[exit code 1 · 0.02 s]", True),
    ("[exit code 1 · 0.01 s]\n[exit code 0 · 0.02 s]", False),
])
def test_command_failed(content: str, failed: bool) -> None:
    assert command_failed(content) is failed


def test_the_sandbox_note_once_then_again_when_it_changes(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    monkeypatch.setattr(SandboxNotes, "last", None)
    first = SandboxNotes.quiet(f"one\n[exit code 0 · 0.01 s]\n{NOTE}")
    second = SandboxNotes.quiet(f"two\n[exit code 0 · 0.01 s]\n{NOTE}")
    assert first.endswith(NOTE)  # the twin: shown the first time
    assert second == "two\n[exit code 0 · 0.01 s]"
    other = NOTE.replace("read-only", "workspace writable")
    assert SandboxNotes.quiet(f"three\n{other}").endswith(other)  # a different sandbox: said
    assert SandboxNotes.quiet("no note here") == "no note here"


def test_usage_adds_the_requests_and_prices_only_when_all_are_known() -> None:
    tally = UsageTally()
    assert tally.line() is None
    tally.add(UsageEvent(1000, 20, cache_read_tokens=800, cost=0.001))
    tally.add(UsageEvent(1200, 30, cache_read_tokens=1000, cost=0.002))
    assert tally.line() == "tokens: 2,200 in (1,800 cached), 50 out · $0.0030"
    tally.add(UsageEvent(10, 1, cost=None))  # one unknown price: no sum is shown
    assert tally.line() == "tokens: 2,210 in (1,800 cached), 51 out"


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_early_spinner_draws_on_a_terminal_and_erases_itself(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "xterm")
    out = _Tty()
    spinner = waiting.start_early(out)
    assert spinner is not None and waiting.early_started() == spinner.started
    with waiting.out_of_the_way():
        out.write("a note\n")
    waiting.stop_early()
    text = out.getvalue()
    assert "working… 0s · Ctrl-C to stop" in text
    assert text.endswith("\r\x1b[2K\x1b[?25h")  # erased, cursor shown again
    assert "\r\x1b[2K\x1b[?25ha note\n" in text  # the note on a clean line
    assert waiting.early_started() is None


def test_the_twin_no_spinner_where_no_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "xterm")
    assert waiting.start_early(io.StringIO()) is None
    monkeypatch.setenv("TERM", "dumb")
    assert waiting.start_early(_Tty()) is None
