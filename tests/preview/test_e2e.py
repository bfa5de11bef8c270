"""Through the installed ``ai``: a command that would ask runs as a preview; the
question shows the command, its output and its changes; ``y`` applies, ``n``
discards with an error result, no terminal discards; no changes ask nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.agent.helpers import sent_results
from tests.e2e.conftest import run_ai
from tests.e2e.test_json_events import SCHEMA_PATH
from tests.e2e.test_pty import finish, model_args
from tests.fakeprovider import FakeProvider, Reply
from tests.preview.conftest import needs_overlay, snapshot
from tests.sandbox.conftest import command_reply

pytestmark = [needs_overlay, pytest.mark.pty]
COMMAND = "echo previewed-output && echo new > made.txt && echo more >> kept.txt && rm gone.txt"


def seed(workspace: Path) -> None:
    (workspace / "kept.txt").write_text("kept\n")
    (workspace / "gone.txt").write_text("gone\n")


def last_result(fake_provider: FakeProvider) -> tuple[str, bool]:
    ((_id, sent, is_error),) = sent_results(fake_provider.requests[1])
    return str(sent), is_error


def test_y_applies_what_the_question_showed(fake_provider: FakeProvider, spawn_ai: Any,
                                            workspace: Path) -> None:
    seed(workspace)
    fake_provider.queue(command_reply(COMMAND), Reply(text="all done"))
    child = spawn_ai(*model_args(fake_provider), "go")
    child.expect("ran as a preview")
    child.expect("previewed-output")  # the output's tail
    child.expect(r"1 created, 1 modified, 1 deleted")
    child.expect(r"- gone.txt")
    child.expect(r"~ kept.txt")
    child.expect(r"\+ made.txt")
    child.expect(r"\+more")  # the diff of the modified text file
    child.expect("Allow these changes")
    assert not (workspace / "made.txt").exists()  # nothing real changed before the answer
    child.sendline("y")
    child.expect("all done")
    assert finish(child) == 0
    assert (workspace / "made.txt").read_text() == "new\n"
    assert (workspace / "kept.txt").read_text() == "kept\nmore\n"
    assert not (workspace / "gone.txt").exists()
    sent, is_error = last_result(fake_provider)
    assert not is_error and "changes applied" in sent and "previewed-output" in sent


def test_n_discards_with_an_error_result(fake_provider: FakeProvider, spawn_ai: Any,
                                         workspace: Path) -> None:
    seed(workspace)
    fake_provider.queue(command_reply(COMMAND), Reply(text="understood"))
    child = spawn_ai(*model_args(fake_provider), "go")
    child.expect("Allow these changes")
    child.sendline("n")
    child.expect("understood")
    assert finish(child) == 0
    assert not (workspace / "made.txt").exists()
    assert (workspace / "kept.txt").read_text() == "kept\n"
    assert (workspace / "gone.txt").exists()
    sent, _is_error = last_result(fake_provider)
    assert sent.startswith("Error: changes discarded") or "changes discarded" in sent
    assert "previewed-output" in sent  # followed by the output


def test_no_terminal_discards(fake_provider: FakeProvider, workspace: Path) -> None:
    seed(workspace)
    fake_provider.queue(command_reply(COMMAND), Reply(text="ok"))
    result = run_ai("-m", "openai/x", "--api-base", fake_provider.url, "go", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert not (workspace / "made.txt").exists()
    assert (workspace / "gone.txt").exists()
    sent, _ = last_result(fake_provider)
    assert "changes discarded" in sent and "no terminal" in sent
    assert "previewed-output" in sent
    assert "+ made.txt" in result.stderr  # plain output lists the changes (tool lines: stderr)


def test_no_changes_ask_nothing(fake_provider: FakeProvider, workspace: Path) -> None:
    """Not on the read-only list, so it would ask; its preview changed nothing."""
    seed(workspace)
    fake_provider.queue(command_reply("python3 -c 'print(6*7)'"), Reply(text="ok"))
    result = run_ai("-m", "openai/x", "--api-base", fake_provider.url, "go", cwd=workspace)
    assert result.returncode == 0, result.stderr
    sent, is_error = last_result(fake_provider)
    assert "42" in sent and not is_error


def test_without_previews_the_same_call_is_refused(fake_provider: FakeProvider,
                                                   workspace: Path, tmp_path: Path) -> None:
    """Twin: with ``[sandbox] preview = false`` it asks first (no terminal: refused)."""
    config = tmp_path / "config.toml"
    config.write_text("[sandbox]\npreview = false\n")
    fake_provider.queue(command_reply("python3 -c 'print(6*7)'"), Reply(text="ok"))
    result = run_ai("-m", "openai/x", "--api-base", fake_provider.url, "go", cwd=workspace,
                    env={"SWEBASH_CONFIG": str(config)})
    assert result.returncode == 0, result.stderr
    sent, is_error = last_result(fake_provider)
    assert is_error and "no terminal" in sent and "42" not in sent


def test_json_has_the_change_list(fake_provider: FakeProvider, workspace: Path) -> None:
    seed(workspace)
    fake_provider.queue(command_reply(COMMAND), Reply(text="ok"))
    result = run_ai("--json", "-m", "openai/x", "--api-base", fake_provider.url, "go",
                    cwd=workspace)
    events = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    (preview,) = [e for e in events if e["type"] == "preview"]
    assert preview["outcome"] == "discarded"
    schema = json.loads(SCHEMA_PATH.read_text())
    validator = jsonschema.Draft202012Validator(schema)
    for event in events:  # the preview event is in the --json schema like every other
        validator.validate(event)
    assert {(Path(c["path"]).name, c["action"]) for c in preview["changes"]} == {
        ("made.txt", "create"), ("kept.txt", "modify"), ("gone.txt", "delete")}


def test_ai_undo_takes_back_an_applied_preview(fake_provider: FakeProvider, spawn_ai: Any,
                                               workspace: Path) -> None:
    """Applied changes are checkpointed like edits: ``ai undo`` reverts them."""
    seed(workspace)
    fake_provider.queue(command_reply(COMMAND), Reply(text="all done"))
    child = spawn_ai(*model_args(fake_provider), "go")
    child.expect("Allow these changes")
    child.sendline("y")
    child.expect("all done")
    assert finish(child) == 0
    assert (workspace / "made.txt").exists() and not (workspace / "gone.txt").exists()
    done = run_ai("undo", "--yes", cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert not (workspace / "made.txt").exists()
    assert (workspace / "kept.txt").read_text() == "kept\n"
    assert (workspace / "gone.txt").read_text() == "gone\n"


RICH = ("mkdir -p d/e && echo f > d/e/f && ln -s kept.txt lnk && chmod 600 kept.txt && "
        "mkfifo p && rm -r tree && ln gone.txt gone.hard && mv sub moved && "
        "python3 -c \"import os; os.setxattr('kept.txt', 'user.x', b'1')\"")


def test_ai_undo_takes_back_every_kind_of_change(fake_provider: FakeProvider, spawn_ai: Any,
                                                 workspace: Path) -> None:
    """Folders made and removed, a symlink, bits, a FIFO, a hard link, a renamed
    folder, an xattr: after ``ai undo`` the tree is exactly as before."""
    seed(workspace)
    (workspace / "tree" / "in").mkdir(parents=True)
    (workspace / "tree" / "in" / "x").write_text("x\n")
    os.symlink("../kept.txt", workspace / "tree" / "in" / "up")
    (workspace / "sub").mkdir()
    (workspace / "sub" / "s").write_text("s\n")
    before = snapshot(workspace)
    fake_provider.queue(command_reply(RICH), Reply(text="all done"))
    child = spawn_ai(*model_args(fake_provider), "go")
    child.expect("Allow these changes")
    child.sendline("y")
    child.expect("all done")
    assert finish(child) == 0
    assert (workspace / "lnk").is_symlink() and not (workspace / "tree").exists()
    done = run_ai("undo", "--yes", cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert snapshot(workspace) == before


def test_without_checkpoints_undo_has_nothing(fake_provider: FakeProvider, spawn_ai: Any,
                                              workspace: Path) -> None:
    """Twin: a command approved the ordinary way (no preview) is not recorded."""
    seed(workspace)
    config = workspace.parent / "config.toml"
    config.write_text("[sandbox]\npreview = false\n")
    fake_provider.queue(command_reply(COMMAND), Reply(text="all done"))
    child = spawn_ai(*model_args(fake_provider), "go", env={"SWEBASH_CONFIG": str(config)})
    child.expect("Allow")
    child.sendline("y")
    child.expect("all done")
    assert finish(child) == 0
    assert (workspace / "made.txt").exists()
    done = run_ai("undo", "--yes", cwd=workspace, env={"SWEBASH_CONFIG": str(config)})
    assert (workspace / "made.txt").exists()
    assert "nothing to undo" in done.stdout


def test_always_applies_and_later_runs_skip_the_preview(fake_provider: FakeProvider,
                                                        spawn_ai: Any, workspace: Path) -> None:
    call = command_reply("mkdir -p out/a")
    fake_provider.queue(call, Reply(text="first done"), call, Reply(text="second done"))
    child = spawn_ai(*model_args(fake_provider), "go")
    child.expect(r"\[a\]lways remembers: run_command\(mkdir:\*\)")  # the contract's rule
    child.expect("Allow these changes")
    child.sendline("a")
    child.expect("first done")
    assert finish(child) == 0
    assert (workspace / "out" / "a").is_dir()
    # the remembered rule allows it: no preview, no question, even with no terminal
    again = run_ai("--json", *model_args(fake_provider), "go", cwd=workspace)
    assert again.returncode == 0, again.stderr
    events = [json.loads(line) for line in again.stdout.splitlines() if line.strip()]
    assert [(e["decision"], e["by"]) for e in events if e["type"] == "approval"] == \
        [("allow", "rule")]
    assert not [e for e in events if e["type"] == "preview"]


def test_strict_asks_before_the_run_and_then_about_the_changes(
        fake_provider: FakeProvider, spawn_ai: Any, workspace: Path) -> None:
    seed(workspace)
    fake_provider.queue(command_reply(COMMAND), Reply(text="all done"))
    child = spawn_ai("--approval", "strict", *model_args(fake_provider), "go")
    child.expect("wants to run")
    child.expect(r"Allow\? ")
    assert not (workspace / "made.txt").exists()
    child.sendline("y")
    child.expect("ran as a preview")  # the preview follows the question
    child.expect("Allow these changes")
    assert not (workspace / "made.txt").exists()
    child.sendline("y")
    child.expect("all done")
    assert finish(child) == 0
    assert (workspace / "made.txt").read_text() == "new\n"


def test_an_instruction_discards_and_reaches_the_model(fake_provider: FakeProvider,
                                                       spawn_ai: Any, workspace: Path) -> None:
    seed(workspace)
    fake_provider.queue(command_reply(COMMAND), Reply(text="will do"))
    child = spawn_ai(*model_args(fake_provider), "go")
    child.expect("Allow these changes")
    child.sendline("keep gone.txt please")
    child.expect("will do")
    assert finish(child) == 0
    assert (workspace / "gone.txt").exists() and not (workspace / "made.txt").exists()
    sent, _ = last_result(fake_provider)
    assert "changes discarded" in sent and "keep gone.txt please" in sent


@pytest.mark.parametrize("answer", ["n", "y"])
def test_a_file_changed_meanwhile_is_shown_and_asked_about_again(
        fake_provider: FakeProvider, spawn_ai: Any, workspace: Path, answer: str) -> None:
    seed(workspace)
    fake_provider.queue(command_reply(COMMAND), Reply(text="all done"))
    child = spawn_ai(*model_args(fake_provider), "go")
    child.expect("Allow these changes")
    (workspace / "kept.txt").write_text("the user's edit\n")  # while the question waits
    child.sendline("y")
    child.expect("some of its changes meet yours")
    child.expect(r"! ~ kept.txt")
    child.expect("Allow these changes")
    assert (workspace / "made.txt").exists()  # what did not conflict is applied already
    child.sendline(answer)
    child.expect("all done")
    assert finish(child) == 0
    sent, _ = last_result(fake_provider)
    if answer == "n":
        assert (workspace / "kept.txt").read_text() == "the user's edit\n"
        assert "not applied, to keep the user's changes: kept.txt" in sent
    else:  # twin: only the user's own yes overwrites
        assert (workspace / "kept.txt").read_text() == "kept\nmore\n"
        assert "not applied" not in sent
