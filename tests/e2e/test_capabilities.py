"""find_files, web_fetch, background commands and undo through the installed `ai`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.agent.helpers import sent_results
from tests.e2e.conftest import model_args, run_ai, start_repl
from tests.fakeprovider import FakeProvider, Reply, ToolCall
from tests.tools.webpages import Site


def call(name: str, call_id: str = "c1", **arguments: Any) -> Reply:
    return Reply(tool_calls=[ToolCall(call_id, name, json.dumps(arguments))])


def test_find_files_honours_gitignore_without_a_question(fake_provider: FakeProvider,
                                                         workspace: Path) -> None:
    for name in ("src/app.py", "build/gen.py", "notes.py", ".env"):
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text("x\n")
    (workspace / ".gitignore").write_text("build/\n")
    fake_provider.queue(call("find_files", pattern="**/*.py", sort="path"), Reply(text="ok"))
    result = run_ai(*model_args(fake_provider), "which python files?", cwd=workspace)
    assert result.returncode == 0, result.stderr
    ((_, content, is_error),) = sent_results(fake_provider.requests[1])
    assert not is_error
    assert content.splitlines()[1:] == ["notes.py", "src/app.py"]


@pytest.mark.pty
def test_web_fetch_of_a_loopback_page_asks_saying_so(fake_provider: FakeProvider,
                                                     spawn_ai: Any, site: Site) -> None:
    fake_provider.queue(call("web_fetch", url=site.url + "/page.html"), Reply(text="Fetched."))
    child = spawn_ai(*model_args(fake_provider), "read the local page")
    child.expect("loopback or private")
    child.expect("Allow")
    child.sendline("y")
    child.expect("Fetched.")
    child.expect(pexpect.EOF)
    ((_, content, is_error),) = sent_results(fake_provider.requests[1])
    assert not is_error and "# Hello" in content


def test_web_fetch_of_a_loopback_page_is_not_answered_by_yes(fake_provider: FakeProvider,
                                                             site: Site,
                                                             workspace: Path) -> None:
    fake_provider.queue(call("web_fetch", url=site.url + "/page.html"), Reply(text="ok"))
    result = run_ai("-y", *model_args(fake_provider), "read the local page", cwd=workspace)
    assert result.returncode == 0, result.stderr
    ((_, content, is_error),) = sent_results(fake_provider.requests[1])
    assert is_error and "--yes does not answer it" in content
    assert site.hits == []


def test_ai_undo_reverts_the_last_turn_and_refuses_without_a_terminal(
        fake_provider: FakeProvider, workspace: Path) -> None:
    (workspace / "app.py").write_text("x = 1\n")
    fake_provider.queue(
        Reply(tool_calls=[ToolCall("w1", "write_file", json.dumps({"path": "new.txt",
                                                                    "content": "n\n"})),
                          ToolCall("e1", "edit_file", json.dumps({"path": "app.py",
                                                                  "old_text": "x = 1",
                                                                  "new_text": "x = 2"}))]),
        Reply(text="done"))
    result = run_ai("-y", *model_args(fake_provider), "change things", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert (workspace / "app.py").read_text() == "x = 2\n"
    refused = run_ai("undo", cwd=workspace)
    assert refused.returncode == 1 and "no terminal" in refused.stderr
    assert (workspace / "app.py").read_text() == "x = 2\n"
    done = run_ai("undo", "--yes", cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert "-x = 2" in done.stdout and "+x = 1" in done.stdout
    assert (workspace / "app.py").read_text() == "x = 1\n"
    assert not (workspace / "new.txt").exists()
    again = run_ai("undo", "--yes", cwd=workspace)
    assert again.returncode == 0 and "nothing to undo" in again.stdout


@pytest.mark.pty
def test_repl_undo_and_rewind_across_three_turns(fake_provider: FakeProvider, spawn_ai: Any,
                                                 workspace: Path) -> None:
    for n in (1, 2, 3):
        fake_provider.queue(call("write_file", f"w{n}", path="f.txt", content=f"v{n}\n"),
                            Reply(text=f"wrote v{n}"))
    child = spawn_ai("-y", *model_args(fake_provider))
    for n in (1, 2, 3):
        child.expect("swebash>")
        child.sendline(f"write version {n}")
        child.expect(f"wrote v{n}")
    child.expect("swebash>")
    child.sendline("/undo")
    child.expect("turn 3")
    child.expect(r"Undo these changes\? \[y/N\]")
    child.sendline("y")
    child.expect("restored 1 file")
    assert (workspace / "f.txt").read_text() == "v2\n"
    child.expect("swebash>")
    child.sendline("/rewind 2")
    child.expect(r"Rewind to before turn 2\? \[y/N\]")
    child.sendline("y")
    child.expect("rewound")
    assert (workspace / "f.txt").read_text() == "v1\n"
    fake_provider.queue(Reply(text="fresh answer"))
    child.expect("swebash>")
    child.sendline("what now?")
    child.expect("fresh answer")
    child.expect("swebash>")
    child.sendline("/exit")
    child.expect(pexpect.EOF)
    sent = [m.get("content") for m in fake_provider.requests[-1].body["messages"]
            if m["role"] == "user"]
    assert "write version 1" in str(sent) and "write version 2" not in str(sent)
    assert "write version 3" not in str(sent) and "what now?" in str(sent), sent


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_background_server_then_a_fetch_then_stop_leaves_nothing(
        fake_provider: FakeProvider, workspace: Path) -> None:
    import os
    import sys

    from tests.tools.conftest import alive

    # the sandbox has no network unless configured: this scenario needs it
    Path(os.environ["SWEBASH_CONFIG"]).write_text("[sandbox]\nnetwork = true\n")

    port = free_port()
    (workspace / "index.html").write_text("served-by-the-background-server\n")
    # the base interpreter, not the venv's: a checkout under /tmp is out of the
    # sandbox's sight (its /tmp is its own)
    python = Path(sys.base_prefix) / "bin" / "python3"
    fetch = (f"{python} -c \"import time, urllib.request as u\n"
             f"for _ in range(300):\n"
             f"    try:\n"
             f"        print(u.urlopen('http://127.0.0.1:{port}/index.html').read().decode())\n"
             f"        break\n"
             f"    except OSError:\n"
             f"        time.sleep(0.05)\"")
    fake_provider.queue(
        call("run_command", "r1", command=f"{python} -m http.server {port} "
                                          "--bind 127.0.0.1", background=True),
        call("run_command", "r2", command=fetch),
        call("command_output", "o1", id="bg1", wait=5),
        call("stop_command", "s1", id="bg1"),
        Reply(text="all done"))
    result = run_ai("-y", *model_args(fake_provider), "serve and fetch", cwd=workspace)
    assert result.returncode == 0, result.stderr
    started, fetched, output, stopped = [sent_results(fake_provider.requests[i])[-1][1]
                                         for i in (1, 2, 3, 4)]
    pid = int(started.split("(pid ")[1].split(")")[0])
    assert "served-by-the-background-server" in fetched
    assert "GET /index.html" in output and "running" in output
    assert "stopped after" in stopped
    assert not alive(pid)


def test_background_commands_stop_when_ai_exits(fake_provider: FakeProvider,
                                                workspace: Path) -> None:
    from tests.tools.conftest import alive

    fake_provider.queue(call("run_command", "r1", command="sleep 600", background=True),
                        Reply(text="left it running"))
    result = run_ai("-y", *model_args(fake_provider), "start it", cwd=workspace)
    assert result.returncode == 0, result.stderr
    started = sent_results(fake_provider.requests[1])[0][1]
    pid = int(started.split("(pid ")[1].split(")")[0])
    assert not alive(pid)


def test_a_background_command_printing_1_gb_keeps_ai_small(fake_provider: FakeProvider,
                                                          workspace: Path) -> None:
    import subprocess
    import sys

    from tests.e2e.conftest import AI, ai_env

    fake_provider.queue(
        call("run_command", "r1", background=True,
             command="head -c 1000000000 /dev/zero | tr '\\0' a; echo; echo END"),
        call("command_output", "o1", id="bg1", wait=60),
        call("command_output", "o2", id="bg1", wait=60),
        call("command_output", "o3", id="bg1", wait=60),
        Reply(text="done"))
    measure = ("import resource, subprocess, sys\n"
               "code = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL,"
               " stdout=subprocess.DEVNULL).returncode\n"
               "print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    proc = subprocess.run([sys.executable, "-c", measure, AI, "-y",
                           *model_args(fake_provider), "print a lot"],
                          capture_output=True, text=True, cwd=workspace, env=ai_env(),
                          timeout=300)
    code, max_rss_kib = map(int, proc.stdout.split())
    assert code == 0, proc.stderr
    results = [sent_results(fake_provider.requests[i])[-1][1] for i in (2, 3, 4)]
    assert all(len(r) <= 30_000 for r in results)
    assert "END" in "".join(results) and "exited with code 0" in "".join(results)
    assert max_rss_kib < 400 * 1024  # 1 GB went through; memory stayed bounded


@pytest.mark.pty
def test_repl_ps_lists_and_killing_ai_ends_its_background_commands(
        fake_provider: FakeProvider, spawn_ai: Any) -> None:
    import os
    import signal

    from tests.sandbox.conftest import host_pids, wait_until
    from tests.tools.conftest import alive

    sleeper = f"sleep 777.{os.getpid()}"  # checked by host PID (it runs in the sandbox)
    fake_provider.queue(call("run_command", "r1", command=sleeper, background=True),
                        Reply(text="started it"))
    child = start_repl(spawn_ai, fake_provider, "-y")
    child.sendline("start a sleeper")
    child.expect("started it")
    child.expect("swebash>")
    child.sendline("/ps")
    child.expect(r"bg1\s+running · pid (\d+)")
    pid = int(child.match.group(1))
    child.expect("sleep 777")
    assert alive(pid) and wait_until(lambda: host_pids(sleeper))
    os.kill(child.pid, signal.SIGKILL)  # no cleanup code runs in ai
    assert wait_until(lambda: not host_pids(sleeper) and not alive(pid))


@pytest.mark.pty
def test_ai_undo_in_a_terminal_shows_the_diff_and_asks(fake_provider: FakeProvider,
                                                       spawn_ai: Any, workspace: Path) -> None:
    (workspace / "app.py").write_text("x = 1\n")
    fake_provider.queue(call("edit_file", path="app.py", old_text="x = 1", new_text="x = 2"),
                        Reply(text="edited"))
    assert run_ai("-y", *model_args(fake_provider), "edit", cwd=workspace).returncode == 0
    child = spawn_ai("undo")
    child.expect("-x = 2")
    child.expect(r"Undo these changes\? \[y/N\]")
    child.sendline("n")
    child.expect("nothing undone")
    child.expect(pexpect.EOF)
    assert (workspace / "app.py").read_text() == "x = 2\n"
    child = spawn_ai("undo")
    child.expect(r"Undo these changes\? \[y/N\]")
    child.sendline("y")
    child.expect("restored 1 file: app.py")
    child.expect(pexpect.EOF)
    assert (workspace / "app.py").read_text() == "x = 1\n"


@pytest.mark.pty
def test_repl_undo_before_any_question_undoes_the_latest_session_here(
        fake_provider: FakeProvider, spawn_ai: Any, workspace: Path) -> None:
    fake_provider.queue(call("write_file", path="made.txt", content="m\n"), Reply(text="ok"))
    assert run_ai("-y", *model_args(fake_provider), "make", cwd=workspace).returncode == 0
    child = start_repl(spawn_ai, fake_provider)
    child.sendline("/undo")
    child.expect(r"delete made\.txt")
    child.expect(r"Undo these changes\? \[y/N\]")
    child.sendline("y")
    child.expect("restored 1 file")
    child.expect("swebash>")
    child.sendline("/exit")
    child.expect(pexpect.EOF)
    assert not (workspace / "made.txt").exists()
