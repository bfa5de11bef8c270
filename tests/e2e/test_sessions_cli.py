"""Sessions from the command line: crash mid-turn and continue; list, show, export, delete."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

from tests.agent.helpers import assert_paired, sent_results
from tests.e2e.conftest import AI, ai_env, run_ai
from tests.fakeprovider import FakeProvider, Reply, ToolCall


def test_kill_9_mid_turn_then_continue(fake_provider: FakeProvider, workspace: Path) -> None:
    calls = [ToolCall("c1", "list_directory", '{"path": "."}')]
    fake_provider.queue(Reply(text="Looking around. ", tool_calls=calls),
                        Reply(text="slow words " * 500, chunk_size=10, delay=0.02))
    process = subprocess.Popen([AI, "-m", "openai/x", "--api-base", fake_provider.url,
                                "what is here?"], cwd=workspace, env=ai_env(),
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, start_new_session=True)
    fake_provider.wait_for_requests(2)
    assert process.stdout is not None
    while b"slow words" not in process.stdout.read1(4096):
        pass
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    fake_provider.queue(Reply(text="Continuing fine."))
    result = run_ai("-c", "-m", "openai/x", "--api-base", fake_provider.url, "go on",
                    cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert "Continuing fine." in result.stdout
    resumed = fake_provider.requests[2]
    body = json.dumps(resumed.body)
    assert "what is here?" in body and "go on" in body
    assert_paired(resumed)
    (result_sent,) = sent_results(resumed)  # the real result survived the crash
    assert result_sent[0] == "c1" and not result_sent[2] and "interrupted" not in result_sent[1]


def test_list_show_export_delete(fake_provider: FakeProvider, workspace: Path) -> None:
    fake_provider.queue(Reply(text="The answer is 42."))
    assert run_ai("-m", "openai/x", "--api-base", fake_provider.url, "the question?",
                  cwd=workspace).returncode == 0
    listed = run_ai("sessions", "list")
    assert listed.returncode == 0 and "the question?" in listed.stdout
    session_id = listed.stdout.split()[0]
    shown = run_ai("sessions", "show", session_id)
    assert "The answer is 42." in shown.stdout
    exported = json.loads(run_ai("sessions", "export", session_id, "--format", "json").stdout)
    assert "The answer is 42." in json.dumps(exported)
    assert run_ai("sessions", "delete", session_id).returncode == 0
    assert run_ai("sessions", "show", session_id).returncode == 1
    assert session_id not in run_ai("sessions", "list").stdout


def test_session_flag_continues_that_session(fake_provider: FakeProvider,
                                             workspace: Path) -> None:
    fake_provider.queue(Reply(text="first"), Reply(text="second"), Reply(text="third"))
    for question in ("alpha question", "beta question"):
        assert run_ai("-m", "openai/x", "--api-base", fake_provider.url, question,
                      cwd=workspace).returncode == 0
    alpha = next(line.split()[0] for line in run_ai("sessions", "list").stdout.splitlines()
                 if "alpha" in line)
    result = run_ai("--session", alpha, "-m", "openai/x", "--api-base", fake_provider.url,
                    "more", cwd=workspace)
    assert result.returncode == 0, result.stderr
    body = json.dumps(fake_provider.requests[2].body)
    assert "alpha question" in body and "beta question" not in body
    missing = run_ai("--session", "nope", "hi")
    assert missing.returncode == 1 and "no session 'nope'" in missing.stderr
