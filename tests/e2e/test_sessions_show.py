"""`ai sessions show` and `list` through the installed `ai`: a pager on a terminal,
fed as the transcript renders (plain when piped); `show` without an id; the
directory column and turn counts that follow /rewind; one-line usage errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pexpect

from swebash_py.config.paths import data_dir
from swebash_py.engine.messages import TextBlock
from swebash_py.store.sessions import Store
from tests.e2e.conftest import AI, ai_env, run_ai

ANSWER = ("Here is what I found, in **Markdown**:\n\n- a point\n- another point\n\n"
          "```python\nprint('hello')\n```\n\n") + "A longer paragraph of the answer. " * 20

# A pager that notes its first bytes, then (as a user's reading takes time) changes
# the stored session's last turn before it reads on: a transcript fed as it renders
# shows the change; one rendered whole before the first byte cannot.
FAKE_PAGER = """\
import json, os, sqlite3, sys, time
log = os.environ["PAGER_LOG"]
first = sys.stdin.buffer.read1(65536)
first_at = time.time()
db = sqlite3.connect(os.environ["PAGER_DB"])
with db:
    db.execute("UPDATE turns SET user_text = 'CHANGED AFTER THE FIRST SCREEN' WHERE seq ="
               " (SELECT MAX(seq) FROM turns)")
db.close()
rest = b"" if os.environ.get("PAGER_QUIT") else sys.stdin.buffer.read()
with open(log, "w") as f:
    json.dump({"first_at": first_at, "end_at": time.time(), "first": first.decode(errors="replace"),
               "all": (first + rest).decode(errors="replace"), "less": os.environ.get("LESS")}, f)
"""


def _session(turns: int, cwd: str, first_words: str = "question") -> str:
    with Store() as store:
        sid = store.create_session("openai/x", cwd)
        for n in range(1, turns + 1):
            turn = store.begin_turn(sid, f"{first_words} {n}?")
            store.add_block(turn, TextBlock(f"Answer {n}. {ANSWER}"))
            store.finish_turn(turn, "stop", 10, 20)
    return sid


def _pager(tmp_path: Path, quit_early: bool = False) -> dict[str, str]:
    script = tmp_path / "fakepager.py"
    script.write_text(FAKE_PAGER)
    env = {"PAGER": f"{sys.executable} {script}", "PAGER_LOG": str(tmp_path / "pager.json"),
           "PAGER_DB": str(data_dir() / "sessions.db")}
    return {**env, "PAGER_QUIT": "1"} if quit_early else env


def _show_on_terminal(workspace: Path, env: dict[str, str], *args: str) -> int:
    child = pexpect.spawn(AI, ["sessions", "show", *args], cwd=str(workspace),
                          env=ai_env(env), encoding="utf-8", timeout=60, dimensions=(40, 100))
    child.expect(pexpect.EOF)
    child.close()
    return int(child.exitstatus if child.exitstatus is not None else -1)


def test_show_on_a_terminal_feeds_the_pager_as_it_renders(workspace: Path,
                                                          tmp_path: Path) -> None:
    sid = _session(300, str(workspace))
    env = _pager(tmp_path)
    assert _show_on_terminal(workspace, env, sid[:8]) == 0
    seen = json.loads(Path(env["PAGER_LOG"]).read_text())
    assert "question 1?" in seen["first"] and "Turn 300" not in seen["first"]
    # the last turn was read after the pager had its first screen
    assert "CHANGED AFTER THE FIRST SCREEN" in seen["all"]
    assert seen["less"] == "FRX"  # git's: one screen is printed, a longer text pages
    assert "\x1b[" in seen["all"]  # drawn for the terminal the pager shows it on
    # twin: the whole transcript reached the pager, in order
    positions = [seen["all"].index(f"question {n}?") for n in (1, 2, 150, 299)]
    assert positions == sorted(positions)


def test_quitting_the_pager_early_ends_show_quietly(workspace: Path, tmp_path: Path) -> None:
    sid = _session(300, str(workspace))
    env = _pager(tmp_path, quit_early=True)
    child = pexpect.spawn(AI, ["sessions", "show", sid], cwd=str(workspace),
                          env=ai_env(env), encoding="utf-8", timeout=60, dimensions=(40, 100))
    child.expect(pexpect.EOF)
    output = child.before or ""
    child.close()
    assert child.exitstatus == 0 and "Traceback" not in output and "Error" not in output


def test_piped_show_is_plain_markdown_without_a_pager(workspace: Path, tmp_path: Path) -> None:
    sid = _session(30, str(workspace))
    env = _pager(tmp_path)
    shown = run_ai("sessions", "show", sid, env=ai_env(env), cwd=workspace)
    assert shown.returncode == 0, shown.stderr
    assert not Path(env["PAGER_LOG"]).exists()  # no pager started
    exported = run_ai("sessions", "export", sid, cwd=workspace).stdout
    assert shown.stdout == exported  # the same Markdown, byte for byte
    assert "\x1b[" not in shown.stdout and "## Turn 30" in shown.stdout


def test_show_without_an_id_is_the_latest_session_here(workspace: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    _session(1, str(workspace), "older here")
    _session(1, str(workspace), "latest here")
    _session(1, str(elsewhere), "latest elsewhere")
    shown = run_ai("sessions", "show", cwd=workspace)
    assert shown.returncode == 0, shown.stderr
    assert "latest here 1?" in shown.stdout
    assert "older here" not in shown.stdout and "elsewhere" not in shown.stdout
    empty = tmp_path / "empty"
    empty.mkdir()
    none_here = run_ai("sessions", "show", cwd=empty)
    assert none_here.returncode == 1
    assert none_here.stderr.startswith("ai: no session in ") and none_here.stderr.count("\n") == 1


def test_list_has_a_directory_column_and_counts_follow_rewind(workspace: Path) -> None:
    sid = _session(5, str(workspace))
    with Store() as store:
        assert store.mark_rewound(sid, 3) == 3  # /rewind to before turn 3
    row = run_ai("sessions", "list", cwd=workspace).stdout.splitlines()[0]
    assert row.split()[0] == sid[:8]
    assert " 2 turns " in row and str(workspace)[-20:] in row
    # twin: a session that was not rewound counts every turn
    _session(4, "/somewhere/else")
    rows = run_ai("sessions", "list").stdout.splitlines()
    assert " 4 turns " in rows[0] and "/somewhere/else" in rows[0]


def test_usage_errors_are_one_ai_line_with_status_2(workspace: Path) -> None:
    for args in (["sessions", "show", "--bogus"], ["sessions", "delete"],
                 ["sessions", "export", "x", "--format", "yaml"], ["sessions", "nosuch"],
                 ["config", "nosuch"]):
        result = run_ai(*args, cwd=workspace)
        assert result.returncode == 2, (args, result.stderr)
        assert result.stderr.startswith("ai: ") and result.stderr.count("\n") == 1, args
        assert "╭" not in result.stderr and "Usage:" not in result.stderr
    # twin: used rightly, the same commands work
    sid = _session(1, str(workspace))
    assert run_ai("sessions", "show", sid, cwd=workspace).returncode == 0
    assert run_ai("sessions", "export", sid, "--format", "json", cwd=workspace).returncode == 0


def test_a_missing_session_is_one_line_with_status_1(workspace: Path) -> None:
    result = run_ai("sessions", "show", "nosuchid", cwd=workspace)
    assert result.returncode == 1 and result.stderr == \
        "ai: no session 'nosuchid' (see `ai sessions list`)\n"
