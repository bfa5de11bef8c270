"""REPL logic in-process: prompt-toolkit reads a pipe, output is captured.

The pty tests in tests/e2e keep the real terminal (Ctrl-C, the early prompt,
questions on /dev/tty); what only checks what a slash command does lives here.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from swebash_py.config.settings import load_settings
from swebash_py.front.invocation import Invocation
from swebash_py.repl.session import Repl
from tests.fakeprovider import FakeProvider, Reply


async def drive(fp: FakeProvider, lines: list[str], capsys: pytest.CaptureFixture[str],
                model: str = "openai/x", invocation: Invocation | None = None) -> str:
    """Run the REPL on ``lines`` (then /exit); returns what it printed."""
    settings = load_settings({"model": model, "api_base": fp.url})
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        repl = Repl(settings, invocation or Invocation())
        pipe.send_text("".join(f"{line}\n" for line in [*lines, "/exit"]))
        assert await repl.run() == 0
    return capsys.readouterr().out


async def test_slash_commands(fake_provider: FakeProvider,
                              capsys: pytest.CaptureFixture[str]) -> None:
    fake_provider.queue(Reply(text="First session answer.", usage=(100, 20)))
    out = await drive(fake_provider, [
        "/help", "/approval strict", "/approval sometimes", "/model anthropic/claude-x",
        "/tools", "remember the first session", "/cost", "/sessions", "/clear", "/cost",
        "/nonsense"], capsys)
    for name in ("/model", "/approval", "/resume", "/compact", "/cost", "!command"):
        assert name in out
    assert "approval: strict" in out and "unknown mode sometimes" in out
    assert re.search(r"model: anthropic/claude-x \(direct \(anthropic wire format\)\)", out)
    assert "run_command" in out and "yes, always (strict)" in out
    assert "First session answer." in out
    assert fake_provider.requests[-1].path.endswith("/messages")  # the /model switch took
    assert "turn 1: 100 in, 20 out, cost unknown" in out
    assert "100 tokens in, 20 out, cost unknown" in out
    assert re.search(r"\* ([0-9a-f]+) ", out)
    assert "new session" in out and "no tokens used yet" in out
    assert "unknown command /nonsense" in out


async def test_resume_brings_back_the_history(fake_provider: FakeProvider,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    fake_provider.queue(Reply(text="First session answer."))
    out = await drive(fake_provider, ["remember the first session", "/sessions"], capsys)
    first = re.search(r"\* ([0-9a-f]+) ", out)
    assert first is not None
    from swebash_py.front.words import directory_text
    listed = next(line for line in out.splitlines() if line.startswith(f"* {first.group(1)}"))
    assert f"  {directory_text(os.getcwd())}  " in listed  # where it was, as `ai sessions list`
    fake_provider.queue(Reply(text="Resumed answer."))
    out = await drive(fake_provider, [f"/resume {first.group(1)}", "and again"], capsys)
    assert f"resumed session {first.group(1)}" in out and "Resumed answer." in out
    recap = out.split(f"resumed session {first.group(1)}")[1].split("Resumed answer.")[0]
    assert "you remember the first session" in recap  # what is being resumed, shown
    assert "ai  First session answer." in recap
    assert "remember the first session" in json.dumps(fake_provider.requests[-1].body)


async def test_an_error_on_the_loop_does_not_eat_the_next_line(
        fake_provider: FakeProvider, capsys: pytest.CaptureFixture[str]) -> None:
    """The cause of the flaky test above: under load, the first REPL's connection
    pool was collected while the second prompt waited ("Task was destroyed but
    it is pending!"), and prompt_toolkit's own handler for the loop's errors
    asked "Press ENTER to continue", reading the typed-ahead line as its Enter.
    Here an error is raised on the loop while the prompt runs, lines typed ahead."""
    fake_provider.queue(Reply(text="First."), Reply(text="Second."))
    settings = load_settings({"model": "openai/x", "api_base": fake_provider.url})
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        repl = Repl(settings, Invocation())

        async def error_while_prompting() -> None:
            while not repl.prompt.app.is_running:
                await asyncio.sleep(0)
            asyncio.get_running_loop().call_exception_handler({"message": "a lost task"})
        raising = asyncio.create_task(error_while_prompting())
        pipe.send_text("one\ntwo\n/exit\n")
        assert await asyncio.wait_for(repl.run(), 30) == 0  # it used to wait for Enter
        await raising
    out = capsys.readouterr().out
    assert "First." in out and "Second." in out  # the twin: both lines, nothing eaten
    assert "Press ENTER" not in out


async def test_compact_with_nothing_to_compact(fake_provider: FakeProvider,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = await drive(fake_provider, ["/compact"], capsys)
    assert "nothing to compact yet" in out


async def test_clear_model_warning_and_the_resume_hint(fake_provider: FakeProvider,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    fake_provider.queue(Reply(text="First."))
    out = await drive(fake_provider, ["/model openai/no-such-model-xyz", "/model openai/gpt-4o",
                                      "hello", "/clear"], capsys)
    assert out.count("is not in the model table") == 1  # the unknown one only, and allowed
    assert "model: openai/no-such-model-xyz" in out
    assert "new session" in out
    assert "resume with `ai -c`" not in out  # /clear left an empty session behind
    fake_provider.queue(Reply(text="Second."))
    out = await drive(fake_provider, ["hello again"], capsys)
    assert re.search(r"resume with `ai -c` \(or `ai --session [0-9a-f-]+`\)", out)


async def test_a_shell_command_does_not_become_the_session_title(
        fake_provider: FakeProvider, capsys: pytest.CaptureFixture[str]) -> None:
    fake_provider.queue(Reply(text="It said hi."))
    out = await drive(fake_provider, ["!echo hi-from-shell", "what did it print?",
                                      "/sessions"], capsys)
    assert re.search(r"\* [0-9a-f]+ .*what did it print\?", out)
    assert "hi-from-shell" in json.dumps(fake_provider.requests[0].body)


async def test_cost_counts_the_compaction_request(fake_provider: FakeProvider,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    fake_provider.queue(Reply(text="One.", usage=(100, 20)), Reply(text="Two.", usage=(50, 5)),
                        Reply(text="SUMMARY: two answers.", usage=(300, 40)))
    out = await drive(fake_provider, ["first", "second", "/compact", "/cost"], capsys)
    assert "compaction (1 request): 300 in, 40 out" in out
    assert "450 tokens in, 65 out" in out  # turns and the summary together


async def test_cost_shows_cache_reads_and_writes(fake_provider: FakeProvider,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    fake_provider.queue(Reply(text="Cached.", usage=(5000, 20), cache_read=3000,
                              cache_write=1500),
                        Reply(text="Plain.", usage=(100, 20)))
    out = await drive(fake_provider, ["a long question", "another", "/cost"], capsys,
                      model="anthropic/claude-x")
    assert "turn 1: 5,000 in (3,000 cache reads, 1,500 cache writes), 20 out" in out
    assert "turn 2: 100 in, 20 out" in out  # nothing cached: nothing said
    flat = " ".join(out.split())  # the console wraps long lines
    assert "5,100 tokens in (3,000 cache reads, 1,500 cache writes), 40 out" in flat


async def test_at_image_attaches_it(fake_provider: FakeProvider, workspace: object,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    from tests.e2e.test_images import PNG, PNG_B64

    (workspace / "shot.png").write_bytes(PNG)  # type: ignore[operator]
    (workspace / "notes.png").write_bytes(b"not an image")  # type: ignore[operator]
    fake_provider.queue(Reply(text="A dot."))
    out = await drive(fake_provider, ["what is @notes.png", "what is @shot.png"], capsys)
    out = " ".join(out.split())  # the long path wraps the error line at 80 columns
    assert "ai: cannot attach" in out and "not a png, jpeg, gif or webp image" in out
    assert "attached shot.png (image)" in out
    assert len(fake_provider.requests) == 1  # the bad one sent nothing
    content = fake_provider.requests[0].body["messages"][-1]["content"]
    assert content[0] == {"type": "text", "text": "what is shot.png"}
    assert content[1]["image_url"]["url"].endswith(PNG_B64)


async def test_image_flag_goes_with_the_first_question(
        fake_provider: FakeProvider, workspace: object,
        capsys: pytest.CaptureFixture[str]) -> None:
    from tests.e2e.test_images import PNG, PNG_B64

    (workspace / "shot.png").write_bytes(PNG)  # type: ignore[operator]
    fake_provider.queue(Reply(text="A dot."), Reply(text="Still a dot."))
    await drive(fake_provider, ["what is it", "and now"], capsys,
                invocation=Invocation(images=["shot.png"]))
    first, second = (r.body["messages"] for r in fake_provider.requests)
    assert first[-1]["content"][1]["image_url"]["url"].endswith(PNG_B64)
    assert second[-1]["content"] == "and now"  # once, not with every question


async def test_approval_fixed_by_a_managed_policy_cannot_be_changed(
        fake_provider: FakeProvider, capsys: pytest.CaptureFixture[str]) -> None:
    import os
    from pathlib import Path

    Path(os.environ["SWEBASH_MANAGED_CONFIG"]).write_text('approval = "strict"\n')
    out = await drive(fake_provider, ["/approval yolo", "/approval"], capsys)
    assert "approval: yolo" not in out  # the twin: test_slash_commands switches freely
    assert "/approval yolo ignored: approval is fixed to 'strict' by the managed policy" in out
    assert out.count("approval: strict") == 2


async def test_trust_shows_what_changed_since_the_folder_was_trusted(
        fake_provider: FakeProvider, capsys: pytest.CaptureFixture[str], workspace: Path) -> None:
    from swebash_py.project import trust

    (workspace / ".swebash").mkdir()
    (workspace / ".swebash" / "config.toml").write_text("")
    trust.remember(workspace, "trusted")
    (workspace / ".swebash" / "config.toml").write_text('[hooks]\npre_tool = ["touch x"]\n')
    out = await drive(fake_provider, ["/trust"], capsys)
    assert "its settings changed since you trusted them" in out
    assert "+ pre_tool hook: touch x" in out and "changed: .swebash/config.toml" in out


async def test_trust_of_an_unchanged_folder_says_no_change(
        fake_provider: FakeProvider, capsys: pytest.CaptureFixture[str], workspace: Path) -> None:
    """The twin: trusted as it is: nothing said about a change."""
    from swebash_py.project import trust

    (workspace / ".swebash").mkdir()
    (workspace / ".swebash" / "config.toml").write_text('[hooks]\npre_tool = ["touch x"]\n')
    trust.remember(workspace, "trusted")
    out = await drive(fake_provider, ["/trust"], capsys)
    flat = " ".join(out.split())  # a long temp path wraps the line at 80 columns
    assert f"{workspace}: trusted" in flat and "pre_tool hook: touch x" in flat
    assert "changed since you trusted" not in flat
