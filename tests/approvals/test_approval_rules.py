"""Rule syntax: parsing, errors, matching."""

from __future__ import annotations

from pathlib import Path

import pytest

from swebash_py.approvals.rules import RuleSet, parse_rule


@pytest.mark.parametrize(("text", "words", "prefix"), [
    ("run_command(git status)", ("git", "status"), False),
    ("run_command(npm run test:*)", ("npm", "run", "test"), True),
    ("run_command(ls *)", ("ls",), True),
    ("run_command(*)", (), True),
    ("run_command(echo 'a b')", ("echo", "a b"), False),
    ("run_command(echo '*')", ("echo", "*"), False),
    ("  run_command( git  status )  ", ("git", "status"), False),
])
def test_command_rules(text: str, words: tuple[str, ...], prefix: bool) -> None:
    rule = parse_rule(text)
    assert (rule.tool, rule.words, rule.prefix) == ("run_command", words, prefix)


@pytest.mark.parametrize(("text", "why"), [
    ("run_comand(ls)", "unknown tool"), ("run_command()", "empty"), ("run_command(ls", "expected"),
    ("run_command(echo 'x)", "cannot split"), ("web_search(foo)", "takes no pattern"),
    ("write_file(a\nb)", "control"), ("", "expected"), ("read_file(a) b", "expected"),
])
def test_bad_rules_name_the_rule(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=why) as info:
        parse_rule(text)
    assert repr(text) in str(info.value)


def test_ruleset_parse_error_names_the_bad_rule() -> None:
    with pytest.raises(ValueError, match="'bogus'"):
        RuleSet.from_lists(["web_search", "bogus"], [])


@pytest.mark.parametrize(("glob", "path", "hit"), [
    ("src/**", "src", True), ("src/**", "src/a/b/c.py", True), ("src/**", "srcx/a", False),
    ("src/*", "src/a.py", True), ("src/*", "src/a/b.py", False), ("*.md", "README.md", True),
    ("*.md", "docs/README.md", False), ("**/*.md", "docs/x/README.md", True),
    ("**/*.md", "README.md", True), ("src/?.py", "src/a.py", True),
    ("src/?.py", "src/ab.py", False),
    ("*.[ch]", "x.c", True), ("*.[ch]", "x.o", False), ("/etc/**", "/etc/ssh/sshd_config", True),
    ("/etc/**", "/etcx", False), ("\\*.md", "*.md", True), ("\\*.md", "a.md", False),
])
def test_path_globs(glob: str, path: str, hit: bool, tmp_path: Path) -> None:
    rule = parse_rule(f"write_file({glob})")
    target = Path(path) if path.startswith("/") else tmp_path / path
    assert rule.matches_path(target, tmp_path) is hit


def test_tilde_glob(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    rule = parse_rule("read_file(~/notes/**)")
    assert rule.matches_path(tmp_path / "home/notes/a.txt", tmp_path / "ws")
    assert not rule.matches_path(tmp_path / "ws/notes/a.txt", tmp_path / "ws")


def test_argv_matching() -> None:
    exact, prefix = parse_rule("run_command(git status)"), parse_rule("run_command(git log:*)")
    assert exact.matches_argv(["git", "status"])
    assert not exact.matches_argv(["git", "status", "-s"])
    assert not exact.matches_argv(["/usr/bin/git", "status"])
    assert prefix.matches_argv(["git", "log"]) and prefix.matches_argv(["git", "log", "-5"])
    assert not prefix.matches_argv(["git", "logx"])
    assert exact.matches_argv(["/usr/bin/git", "status", "-s"], deny=True)
    assert not exact.matches_argv(["git", "stash"], deny=True)
