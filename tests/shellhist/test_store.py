"""shellhist.store: the records the shell appends, parsed, redacted and trimmed
when `ai` reads them; shellhist.context: what the model is shown of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from swebash_py.shellhist import store
from swebash_py.shellhist.context import fix_question, history_block, with_history
from swebash_py.shellhist.store import Entry, failed, read_history, terminal_id

TERM = "b123-456"


def _append(directory: Path, *lines: str) -> Path:
    path = directory / TERM
    with path.open("a") as f:
        f.writelines(line + "\n" for line in lines)
    return path


def test_a_record_round_trips_with_tabs_newlines_and_backslashes() -> None:
    entry = Entry("printf 'a\\tb'\nline two\tx", 2, "/tmp/a\\b", 100.0, 1.5)
    assert store.parse_line(store.format_entry(entry).rstrip("\n")) == entry


@pytest.mark.parametrize("raw", ["", "x\ty", "1\t2\tnot-a-number\t/d\tls", "1\t2\t0\t/d\t  "])
def test_lines_that_are_not_records_are_skipped(raw: str) -> None:
    assert store.parse_line(raw) is None


def test_start_and_end_give_the_duration_and_a_missing_clock_gives_none() -> None:
    assert store.parse_line("10.5\t12.0\t1\t/d\tmake").duration == 1.5  # type: ignore[union-attr]
    clockless = store.parse_line("\t0\t1\t/d\tmake")
    assert clockless is not None and clockless.start is None and clockless.duration is None


def test_read_keeps_the_last_thousand_and_rewrites_the_file(tmp_path: Path) -> None:
    path = _append(tmp_path, *(f"1\t2\t{i % 2}\t/d\techo {i}" for i in range(1_005)))
    entries = read_history(TERM, tmp_path)
    assert len(entries) == store.KEEP and entries[0].line == "echo 5"
    assert len(path.read_text().splitlines()) == store.KEEP
    assert path.stat().st_mode & 0o777 == 0o600


def test_a_secret_is_redacted_for_the_model_and_on_disk(tmp_path: Path) -> None:
    path = _append(tmp_path, "1\t2\t0\t/d\texport API_TOKEN=abcd1234efgh5678",
                   "1\t2\t0\t/d\techo plain")
    entries = read_history(TERM, tmp_path)
    assert [e.line for e in entries] == ["export API_TOKEN=[REDACTED]", "echo plain"]
    assert "abcd1234efgh5678" not in path.read_text()
    assert "echo plain" in path.read_text()  # the twin: the rest is kept as typed


def test_a_secret_value_of_our_environment_is_redacted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "plainvalue-without-pattern")
    _append(tmp_path, "1\t2\t0\t/d\tcurl -H plainvalue-without-pattern x")
    assert read_history(TERM, tmp_path)[0].line == "curl -H [REDACTED] x"


def test_a_file_without_secrets_within_the_bound_is_not_rewritten(tmp_path: Path) -> None:
    path = _append(tmp_path, "1\t2\t0\t/d\techo plain")
    before = path.stat().st_ino
    read_history(TERM, tmp_path)
    assert path.stat().st_ino == before


def test_no_id_or_no_file_is_no_history(tmp_path: Path) -> None:
    assert read_history("nothing-here", tmp_path) == []
    assert read_history(None, tmp_path) == []  # SWEBASH_TERM_ID is cleared in tests


@pytest.mark.parametrize(("value", "expected"), [
    ("b1-2", "b1-2"), ("../../etc", None), ("..", None), ("a/b", None), ("", None),
    ("x" * 81, None),
])
def test_the_terminal_id_never_makes_a_path(value: str, expected: str | None) -> None:
    assert terminal_id({store.ENV_ID: value}) == expected


def test_failed_counts_back_from_the_last_failure() -> None:
    entries = [Entry("a", 1, "/"), Entry("b", 0, "/"), Entry("c", 2, "/"), Entry("d", 0, "/")]
    assert failed(entries) == entries[2]
    assert failed(entries, 2) == entries[0]
    assert failed(entries, 3) is None and failed([], 1) is None
    assert failed([*entries, Entry("ai fix", 1, "/")]) == entries[2]  # not ai fix itself


def test_the_history_block_holds_the_last_ten_marked_as_the_users() -> None:
    entries = [Entry(f"cmd{i}", i % 3, f"/d{i}") for i in range(15)]
    block = history_block(entries) or ""
    assert block.startswith("<shell_history>") and "not yours" in block
    assert "cmd4" not in block and "[exit 2] /d5$ cmd5" in block and "cmd14" in block
    assert history_block([]) is None


def test_a_question_gets_the_history_only_when_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store, "history_dir", lambda: tmp_path)
    monkeypatch.setenv(store.ENV_ID, TERM)
    _append(tmp_path, "1\t2\t127\t/d\tgit psuh")
    assert "git psuh" in with_history("why?", True)
    assert with_history("why?", False) == "why?"


def test_the_fix_question_names_command_status_directory_and_limits() -> None:
    text = fix_question(Entry("git psuh\x1b[2J", 1, "/repo", 5.0, 0.25), "zsh")
    assert "command: git psuh\n" in text and "exit status: 1" in text
    assert "directory: /repo" in text and "duration: 0.2s" in text
    assert "standard input" in text and "terminal" in text and "network" in text
    assert "exactly one corrected command" in text and "```sh" in text


def test_prune_removes_only_terminals_unused_for_a_month(tmp_path: Path) -> None:
    import os
    import time

    old, fresh = _append(tmp_path, "1\t2\t0\t/d\tls"), tmp_path / "b9-9"
    fresh.write_text("1\t2\t0\t/d\tls\n")
    month_ago = time.time() - (store.STALE_DAYS + 1) * 86_400
    os.utime(old, (month_ago, month_ago))
    assert store.prune(tmp_path) == 1
    assert not old.exists() and fresh.exists()  # the twin: a live terminal's file stays
