"""web_fetch checks and connects to the address resolved for that very request
(contract, the tools table), through the installed ``ai`` in a real network
namespace: loopback only, its own /etc/hosts and resolv.conf, a tiny DNS server
that answers a public address, then 127.0.0.1, for one name. The "public"
address belongs to the namespace's own loopback device, so nothing is ever sent
off the machine (rebind_netns.py).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import AI

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = "93.184.216.34"
URL = "http://rebind.test:8080/"


def _namespaces_work() -> bool:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return False
    probe = subprocess.run(["unshare", "-n", "-m", "true"], capture_output=True)
    return probe.returncode == 0


pytestmark = pytest.mark.skipif(not _namespaces_work(),
                                reason="needs root to make network and mount namespaces")


def fetch_call(call_id: str, path: str) -> dict[str, Any]:
    return {"id": call_id, "name": "web_fetch", "arguments": json.dumps({"url": URL + path})}


def in_namespace(tmp_path: Path, workspace: Path, answers: list[str],
                 calls: list[dict[str, Any]], *args: str,
                 typed: list[str] | None = None) -> dict[str, Any]:
    """Run ``ai ARGS`` in the namespace with the model asking for ``calls``
    (on a terminal, answering each question with the next of ``typed``)."""
    (tmp_path / "hosts").write_text("127.0.0.1 localhost\n")
    (tmp_path / "resolv.conf").write_text("nameserver 127.0.0.1\noptions attempts:1\n")
    config = {"answers": answers, "ai": AI, "cwd": str(workspace), "args": [*args, "fetch"],
              "replies": [{"tool_calls": calls}, {"text": "Fetched."}], "typed": typed}
    script = (f"ip link set lo up && ip addr add {PUBLIC}/32 dev lo && "
              f"mount --bind {tmp_path / 'hosts'} /etc/hosts && "
              f"mount --bind {tmp_path / 'resolv.conf'} /etc/resolv.conf && "
              f'exec "{sys.executable}" -m tests.e2e.rebind_netns "$0"')
    done = subprocess.run(["unshare", "-n", "-m", "sh", "-c", script, json.dumps(config)],
                          capture_output=True, text=True, cwd=ROOT, timeout=180)
    assert done.returncode == 0, done.stderr
    outcome: dict[str, Any] = json.loads(done.stdout)
    assert outcome["code"] == 0, outcome["stderr"]
    return outcome


def results(outcome: dict[str, Any]) -> dict[str, str]:
    """The tool results the model was sent, by call id."""
    return {m["tool_call_id"]: m["content"] for m in outcome["requests"][-1]["messages"]
            if m["role"] == "tool"}


def test_two_fetches_of_one_host_the_public_one_never_reads_loopback(
        tmp_path: Path, workspace: Path) -> None:
    """Under --yes: call 1 is judged on the public answer, call 2 on 127.0.0.1
    (denied: loopback always asks, and there is no terminal). Call 1 must reach
    the public server, never the loopback service."""
    outcome = in_namespace(tmp_path, workspace, [PUBLIC, "127.0.0.1"],
                           [fetch_call("f1", "one"), fetch_call("f2", "two")], "--yes")
    assert outcome["dns_answers"] == 2  # each call resolved once, for itself
    assert outcome["loopback_hits"] == []
    sent = results(outcome)
    assert "LOOPBACK-SECRET" not in json.dumps(outcome["requests"])
    assert "PUBLIC-PAGE" in sent["f1"]  # the twin: the allowed public fetch reaches it
    assert outcome["public_hits"] == ["/one"]
    assert sent["f2"].startswith("Error:") and "loopback" in sent["f2"]


def test_twin_one_fetch_of_a_public_answer_reaches_the_public_server(
        tmp_path: Path, workspace: Path) -> None:
    outcome = in_namespace(tmp_path, workspace, [PUBLIC], [fetch_call("f1", "page")], "--yes")
    assert "PUBLIC-PAGE" in results(outcome)["f1"]
    assert outcome["public_hits"] == ["/page"] and outcome["loopback_hits"] == []


def test_a_loopback_answer_alone_is_denied_without_a_terminal(
        tmp_path: Path, workspace: Path) -> None:
    outcome = in_namespace(tmp_path, workspace, ["127.0.0.1"], [fetch_call("f1", "x")],
                           "--yes")
    assert results(outcome)["f1"].startswith("Error:")
    assert outcome["loopback_hits"] == [] and outcome["public_hits"] == []


def test_in_ask_mode_the_approved_public_fetch_goes_to_the_public_address(
        tmp_path: Path, workspace: Path) -> None:
    """The user approves call 1 (public) and refuses call 2 (said to be
    loopback): call 1's request still goes where its question said."""
    outcome = in_namespace(tmp_path, workspace, [PUBLIC, "127.0.0.1"],
                           [fetch_call("f1", "one"), fetch_call("f2", "two")],
                           typed=["y", "n"])
    assert outcome["loopback_hits"] == [] and outcome["public_hits"] == ["/one"]
    sent = results(outcome)
    assert "PUBLIC-PAGE" in sent["f1"] and sent["f2"].startswith("Error:")
    assert "LOOPBACK-SECRET" not in json.dumps(outcome["requests"])
