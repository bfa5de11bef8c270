"""MCP servers through the installed `ai` and the real tool loop: the scripted
model calls a real server's tool; approved (-y, an allow rule, a pty answer),
denied (no terminal), failing, and a project's .swebash/ that is not trusted."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.agent.helpers import sent_results
from tests.e2e.conftest import run_ai
from tests.fakeprovider import FakeProvider, Reply, ToolCall
from tests.mcp.conftest import stdio_server, time_server


def toml_servers(**servers: dict[str, Any]) -> str:
    lines = []
    for name, keys in servers.items():
        lines.append(f"[mcp_servers.{name}]")
        lines += [f"{key} = {json.dumps(value)}" for key, value in keys.items()]
    return "\n".join(lines) + "\n"


def call(name: str, **arguments: Any) -> Reply:
    return Reply(tool_calls=[ToolCall("c1", name, json.dumps(arguments))])


def ask(fake: FakeProvider, workspace: Path, *args: str) -> Any:
    return run_ai(*args, "-m", "openai/x", "--api-base", fake.url, "what time is it?",
                  cwd=workspace)


def test_yes_runs_the_published_time_server(fake_provider: FakeProvider, workspace: Path,
                                            isolated: Path) -> None:
    (isolated / "config.toml").write_text(toml_servers(time=time_server()))
    fake_provider.queue(call("mcp__time__get_current_time", timezone="UTC"), Reply(text="Noon."))
    result = ask(fake_provider, workspace, "-y")
    assert result.returncode == 0, result.stderr
    offered = [t["function"]["name"] for t in fake_provider.requests[0].body["tools"]]
    assert "mcp__time__get_current_time" in offered and "read_file" in offered
    ((_, content, is_error),) = sent_results(fake_provider.requests[1])
    assert not is_error and json.loads(content)["timezone"] == "UTC"


def test_without_a_terminal_an_mcp_call_is_denied(fake_provider: FakeProvider, workspace: Path,
                                                  isolated: Path) -> None:
    """echo carries readOnlyHint: the hint alone does not skip the question."""
    (isolated / "config.toml").write_text(toml_servers(t=stdio_server()))
    fake_provider.queue(call("mcp__t__echo", text="hi"), Reply(text="ok"))
    result = ask(fake_provider, workspace)
    assert result.returncode == 0, result.stderr
    ((_, content, is_error),) = sent_results(fake_provider.requests[1])
    assert is_error and "no terminal" in content
    assert "echo: hi" not in content
    assert "mcp__t__echo was not run" in result.stderr


def test_an_allow_rule_admits_one_server_only(fake_provider: FakeProvider, workspace: Path,
                                              isolated: Path) -> None:
    (isolated / "config.toml").write_text('[permissions]\nallow = ["mcp__t__*"]\n'
                                          + toml_servers(t=stdio_server(), u=stdio_server()))
    fake_provider.queue(Reply(tool_calls=[
        ToolCall("c1", "mcp__t__echo", json.dumps({"text": "allowed"})),
        ToolCall("c2", "mcp__u__echo", json.dumps({"text": "not allowed"}))]), Reply(text="ok"))
    result = ask(fake_provider, workspace)
    assert result.returncode == 0, result.stderr
    (first, second) = sent_results(fake_provider.requests[1])
    assert first[1:] == ("echo: allowed", False)
    assert second[2] and "no terminal" in second[1]


def test_failures_reach_the_model_as_errors(fake_provider: FakeProvider, workspace: Path,
                                            isolated: Path) -> None:
    (isolated / "config.toml").write_text(toml_servers(
        t={**stdio_server(), "tool_timeout": 10}, bad=stdio_server("--fail-at-start")))
    fake_provider.queue(Reply(tool_calls=[
        ToolCall("c1", "mcp__t__boom", "{}"),
        ToolCall("c2", "mcp__t__slow", json.dumps({"seconds": 60})),
        ToolCall("c3", "mcp__t__die", "{}"),
        ToolCall("c4", "mcp__bad__echo", json.dumps({"text": "x"}))]), Reply(text="ok"))
    result = ask(fake_provider, workspace, "-y")
    assert result.returncode == 0, result.stderr
    offered = [t["function"]["name"] for t in fake_provider.requests[0].body["tools"]]
    assert not [n for n in offered if n.startswith("mcp__bad__")]
    boom, slow, die, missing = sent_results(fake_provider.requests[1])
    assert boom[2] and "boom" in boom[1]
    assert slow[2] and "tool_timeout" in slow[1]
    assert die[2] and "'t'" in die[1]
    assert missing[2] and "unknown tool" in missing[1].lower()
    assert result.stderr.count("'bad' failed to start") == 1


def test_an_untrusted_project_folder_changes_nothing(fake_provider: FakeProvider,
                                                     workspace: Path, tmp_path: Path) -> None:
    marker = tmp_path / "hook-ran"
    project = workspace / ".swebash"
    (project / "commands").mkdir(parents=True)
    (project / "config.toml").write_text(
        '[permissions]\nallow = ["write_file"]\n'
        f'[hooks]\npre_tool = ["touch {marker}"]\n' + toml_servers(t=stdio_server()))
    fake_provider.queue(Reply(tool_calls=[ToolCall("c1", "write_file", json.dumps(
        {"path": "x.txt", "content": "x"}))]), Reply(text="ok"))
    result = ask(fake_provider, workspace)
    assert result.returncode == 0, result.stderr
    offered = [t["function"]["name"] for t in fake_provider.requests[0].body["tools"]]
    assert not [n for n in offered if n.startswith("mcp__")]
    ((_, content, is_error),) = sent_results(fake_provider.requests[1])
    assert is_error and "no terminal" in content  # the project's allow rule did not count
    assert not (workspace / "x.txt").exists() and not marker.exists()
    assert "/.swebash/ is not used: not trusted (no terminal" in result.stderr
    listed = run_ai("mcp", "list", cwd=workspace)
    assert "not used" in listed.stdout and "mcp__t__" not in listed.stdout


def test_trust_flag_uses_the_project_folder(fake_provider: FakeProvider, workspace: Path) -> None:
    (workspace / ".swebash").mkdir()
    (workspace / ".swebash" / "config.toml").write_text(
        '[permissions]\nallow = ["mcp__t__*"]\n' + toml_servers(t=stdio_server()))
    fake_provider.queue(call("mcp__t__echo", text="trusted"), Reply(text="ok"))
    result = ask(fake_provider, workspace, "--trust")
    assert result.returncode == 0, result.stderr
    ((_, content, is_error),) = sent_results(fake_provider.requests[1])
    assert (content, is_error) == ("echo: trusted", False)
    listed = run_ai("mcp", "list", "--trust", cwd=workspace)
    assert "mcp__t__echo" in listed.stdout


def test_agents_md_reaches_the_system_prompt(fake_provider: FakeProvider, workspace: Path,
                                             isolated: Path) -> None:
    (workspace / ".git").mkdir()
    (workspace / "AGENTS.md").write_text("Always answer in French.")
    sub = workspace / "sub"
    sub.mkdir()
    (sub / "AGENTS.md").write_text("Use tabs in this folder.")
    user = isolated / "xdg-config" / "swebash"  # <user config dir>/swebash
    user.mkdir(parents=True)
    (user / "AGENTS.md").write_text("The user likes short answers.")
    fake_provider.queue(Reply(text="ok"))
    result = run_ai("-m", "openai/x", "--api-base", fake_provider.url, "hi", cwd=sub)
    assert result.returncode == 0, result.stderr
    system = fake_provider.requests[0].body["messages"][0]["content"]
    assert (system.index("short answers") < system.index("in French")
            < system.index("tabs in this folder"))


def loads_mcp(cwd: Path, *args: str) -> bool:
    """Whether running ``ai ARGS`` in-process imported the SDK's ``mcp`` package."""
    probe = (f"import sys, runpy; sys.argv = ['ai', *{list(args)!r}]\n"
             "try:\n    runpy.run_module('swebash_py', run_name='__main__')\n"
             "except SystemExit: pass\n"
             "sys.__stdout__.write('MCP-LOADED' if 'mcp' in sys.modules else 'MCP-ABSENT')")
    out = subprocess.run([sys.executable, "-c", probe], cwd=cwd, capture_output=True,
                         text=True, timeout=60)
    assert "MCP-" in out.stdout, out.stderr
    return "MCP-LOADED" in out.stdout


def test_start_up_never_imports_the_sdk_without_servers(fake_provider: FakeProvider,
                                                        workspace: Path) -> None:
    fake_provider.queue(Reply(text="ok"))
    assert not loads_mcp(workspace, "--version")
    assert not loads_mcp(workspace, "--help")
    assert not loads_mcp(workspace, "-m", "openai/x", "--api-base", fake_provider.url, "hi")


def test_the_import_probe_sees_the_sdk_when_a_server_is_configured(
        fake_provider: FakeProvider, workspace: Path, isolated: Path) -> None:
    (isolated / "config.toml").write_text(toml_servers(t=stdio_server()))
    fake_provider.queue(Reply(text="ok"))
    assert loads_mcp(workspace, "-m", "openai/x", "--api-base", fake_provider.url, "hi")


@pytest.mark.pty
def test_a_pty_user_approves_an_mcp_call(spawn_ai: Any, fake_provider: FakeProvider,
                                         workspace: Path, isolated: Path) -> None:
    (isolated / "config.toml").write_text(toml_servers(t=stdio_server()))
    fake_provider.queue(call("mcp__t__echo", text="from the pty"), Reply(text="All done."))
    child = spawn_ai("-m", "openai/x", "--api-base", fake_provider.url, "echo please")
    child.expect("Allow")
    child.sendline("y")
    child.expect("All done.")
    child.expect(pexpect.EOF)
    ((_, content, is_error),) = sent_results(fake_provider.requests[1])
    assert (content, is_error) == ("echo: from the pty", False)


@pytest.mark.pty
def test_repl_custom_command_mcp_and_memory(spawn_ai: Any, fake_provider: FakeProvider,
                                            workspace: Path, isolated: Path) -> None:
    (isolated / "config.toml").write_text('[permissions]\nallow = ["mcp__t__*"]\n'
                                          + toml_servers(t=stdio_server()))
    commands = isolated / "xdg-config" / "swebash" / "commands"  # <user config dir>/swebash
    commands.mkdir(parents=True)
    (commands / "greet.md").write_text("---\ndescription: Greet someone\n---\n"
                                       "Say hello to $1 (all: $ARGUMENTS).\n")
    (commands / "help.md").write_text("shadowing a built-in")
    (workspace / "AGENTS.md").write_text("Project rule: be brief.")
    fake_provider.queue(call("mcp__t__echo", text="Bob"), Reply(text="Greeted him."))
    child = spawn_ai("-m", "openai/x", "--api-base", fake_provider.url)
    child.expect("swebash> ")
    child.expect("/help")  # the clash warning (the path, and so the line, may wrap)
    child.expect("is built in")
    child.sendline("/greet Bob Smith")
    child.expect("Greeted him.")
    child.sendline("/mcp")
    child.expect(r"t  \[ready\]")
    child.expect("mcp__t__echo")
    child.sendline("/memory")
    child.expect("Project rule: be brief.")
    child.sendline("/help")
    child.expect("/greet")
    child.expect("Greet someone")
    child.sendline("/exit")
    child.expect(pexpect.EOF)
    first = fake_provider.requests[0].body["messages"]
    assert "Project rule: be brief." in first[0]["content"]
    assert "Say hello to Bob (all: Bob Smith)." in json.dumps(first[-1])
    ((_, content, is_error),) = sent_results(fake_provider.requests[1])
    assert (content, is_error) == ("echo: Bob", False)


@pytest.mark.pty
def test_trust_is_asked_once_on_a_terminal_and_revocable(spawn_ai: Any, workspace: Path,
                                                         fake_provider: FakeProvider) -> None:
    (workspace / ".swebash" / "commands").mkdir(parents=True)
    (workspace / ".swebash" / "config.toml").write_text(toml_servers(t=stdio_server()))
    (workspace / ".swebash" / "commands" / "proj.md").write_text("project command $1")
    child = spawn_ai("-m", "openai/x", "--api-base", fake_provider.url)
    child.expect("own swebash settings")
    child.expect("MCP server t:")
    child.expect("/proj")
    child.expect(r"Trust this folder\? \[y\]es / \[n\]o: ")
    child.sendline("y")
    child.expect("swebash>")
    child.sendline("/mcp")
    child.expect(r"t  \[(ready|starting)\]")
    child.sendline("/help")
    child.expect("/proj")
    child.sendline("/exit")
    child.expect(pexpect.EOF)
    listed = run_ai("config", "trust", "list", cwd=workspace)
    assert f"trusted   {workspace}" in listed.stdout
    again = spawn_ai("-m", "openai/x", "--api-base", fake_provider.url)
    again.expect("swebash> ")  # not asked a second time
    again.sendline("/exit")
    again.expect(pexpect.EOF)
    assert "Trust this folder" not in (again.before or "")
    assert run_ai("config", "trust", "revoke", str(workspace), cwd=workspace).returncode == 0
    assert str(workspace) not in run_ai("config", "trust", "list", cwd=workspace).stdout


@pytest.mark.pty
def test_init_asks_the_model_and_its_write_asks_the_user(spawn_ai: Any, workspace: Path,
                                                         fake_provider: FakeProvider) -> None:
    write = Reply(tool_calls=[ToolCall("w1", "write_file", json.dumps(
        {"path": "AGENTS.md", "content": "# Agents\n"}))])
    fake_provider.queue(write, Reply(text="Not written, as you wish."))
    child = spawn_ai("-m", "openai/x", "--api-base", fake_provider.url)
    child.expect("swebash> ")
    child.sendline("/init")
    child.expect("Allow")
    child.sendline("n")
    child.expect("Not written")
    child.sendline("/exit")
    child.expect(pexpect.EOF)
    assert not (workspace / "AGENTS.md").exists()
    sent = json.dumps(fake_provider.requests[0].body["messages"][-1])
    assert "AGENTS.md" in sent and "write_file" in sent


def test_no_tools_starts_no_server(fake_provider: FakeProvider, workspace: Path,
                                   isolated: Path) -> None:
    (isolated / "config.toml").write_text(toml_servers(bad=stdio_server("--fail-at-start")))
    fake_provider.queue(Reply(text="plain"), Reply(text="plain"))
    result = run_ai("--no-tools", "-m", "openai/x", "--api-base", fake_provider.url, "hi",
                    cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert "failed to start" not in result.stderr
    assert not (isolated / "data" / "mcp" / "bad.log").exists()
    assert not loads_mcp(workspace, "--no-tools", "-m", "openai/x", "--api-base",
                         fake_provider.url, "hi")


def test_doctor_checks_each_mcp_server(workspace: Path, isolated: Path) -> None:
    (isolated / "config.toml").write_text(toml_servers(
        good=stdio_server(), bad=stdio_server("--fail-at-start")))
    result = run_ai("doctor", cwd=workspace)
    assert "mcp good: " in result.stdout and "tools" in result.stdout
    assert "fail  mcp bad: " in result.stdout and "missing something" in result.stdout
    assert result.returncode == 1  # a configured server that does not start is broken


def test_mcp_list_exits_1_when_a_server_fails_and_lists_the_rest(workspace: Path,
                                                                  isolated: Path) -> None:
    (isolated / "config.toml").write_text(toml_servers(good=stdio_server(),
                                                       bad=stdio_server("--fail-at-start")))
    result = run_ai("mcp", "list", cwd=workspace)
    assert "good  [ready]" in result.stdout and "mcp__good__echo" in result.stdout
    assert "bad  [failed]" in result.stdout and "missing something" in result.stdout
    assert result.stderr == "ai: bad failed to start\n"
    assert result.returncode == 1  # like `ai doctor`: a configured server is broken
    # the twin: all of them up, or the broken one disabled, is a success
    (isolated / "config.toml").write_text(toml_servers(
        good=stdio_server(), bad={**stdio_server("--fail-at-start"), "enabled": False}))
    result = run_ai("mcp", "list", cwd=workspace)
    assert "bad  [disabled]" in result.stdout
    assert (result.returncode, result.stderr) == (0, "")


# unknown models (sent), and ones the model table knows take images (issue #31)
@pytest.mark.parametrize("model", ["openai/x", "anthropic/claude-x", "openai/gpt-4o-mini",
                                   "anthropic/claude-sonnet-4-5"])
def test_an_image_from_a_tool_reaches_the_model_as_an_image(
        fake_provider: FakeProvider, workspace: Path, isolated: Path, model: str) -> None:
    from tests.mcp.testserver import PNG

    png = base64.b64encode(PNG).decode()
    (isolated / "config.toml").write_text(toml_servers(t=stdio_server()))
    fake_provider.queue(call("mcp__t__picture"), Reply(text="A dot."), Reply(text="Still."))
    args = ["-y", "-m", model, "--api-base", fake_provider.url]
    result = run_ai(*args, "draw", cwd=workspace)
    assert result.returncode == 0, result.stderr
    ((_, content, _),) = sent_results(fake_provider.requests[1])
    assert "[image returned by the tool: image/png" in content
    sent = json.dumps(fake_provider.requests[1].body["messages"][-1])
    assert png in sent  # the image itself, after the result
    if model.startswith("anthropic/"):  # inside its tool_result
        (result_block,) = [b for b in fake_provider.requests[1].body["messages"][-1]["content"]
                           if b["type"] == "tool_result"]
        assert png in json.dumps(result_block["content"])
    assert png not in json.dumps(fake_provider.requests[0].body)
    result = run_ai(*args, "-c", "and now?", cwd=workspace)  # resumed: sent again
    assert result.returncode == 0, result.stderr
    assert png in json.dumps(fake_provider.requests[2].body["messages"])


def test_a_model_without_vision_gets_a_note_instead(fake_provider: FakeProvider,
                                                    workspace: Path, isolated: Path) -> None:
    from tests.mcp.testserver import PNG

    (isolated / "config.toml").write_text(toml_servers(t=stdio_server()))
    fake_provider.queue(call("mcp__t__picture"), Reply(text="Cannot see it."))
    result = run_ai("-y", "-m", "openai/gpt-3.5-turbo", "--api-base", fake_provider.url,
                    "draw", cwd=workspace)
    assert result.returncode == 0, result.stderr
    ((_, content, _),) = sent_results(fake_provider.requests[1])
    assert "1 image(s) not shown: this model does not take images" in content
    body = json.dumps(fake_provider.requests[1].body)
    assert "image_url" not in body and base64.b64encode(PNG).decode() not in body


@pytest.mark.parametrize("name", ["WIDGET_TOKEN", "WIDGET_COLOUR"])
def test_secret_values_in_mcp_results_are_redacted(fake_provider: FakeProvider,
                                                   workspace: Path, isolated: Path,
                                                   name: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A server handed a secret (``env = {X = "${WIDGET_TOKEN}"}``) returns it, in a
    result and in a tool description: the model sees ``[REDACTED]``. The twin: the
    same value under a name that is not secret-looking reaches the model."""
    value = "mcp-secret-value-8431"
    monkeypatch.setenv(name, value)
    server = stdio_server()
    (isolated / "config.toml").write_text(
        '[permissions]\nallow = ["mcp__t__*"]\n[mcp_servers.t]\n'
        f'command = {json.dumps(server["command"])}\nargs = {json.dumps(server["args"])}\n'
        f'cwd = {json.dumps(server["cwd"])}\n'
        f'env = {{ X = "${{{name}}}", DESCRIPTION_EXTRA = "${{{name}}}" }}\n')
    fake_provider.queue(Reply(tool_calls=[ToolCall("c1", "mcp__t__getenv", '{"name": "X"}')]),
                        Reply(text="ok"))
    result = ask(fake_provider, workspace)
    assert result.returncode == 0, result.stderr
    ((_id, sent, _error),) = sent_results(fake_provider.requests[1])
    log = json.dumps([r.body for r in fake_provider.requests])
    if name == "WIDGET_TOKEN":
        assert sent == "[REDACTED]" and value not in log, sent
    else:
        assert sent == value and value in log  # the twin: it would have been seen
