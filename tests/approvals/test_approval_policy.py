"""Each mode's behaviour for each tool, path rules, warnings and suggestions."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from swebash_py.approvals.policy import decide, judge, risk_warnings, suggest_rule
from swebash_py.approvals.rules import RuleSet
from swebash_py.approvals.shellparse import analyse
from swebash_py.tools.base import Preview
from swebash_py.tools.registry import builtin_traits

TRAITS = builtin_traits()


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "proj").mkdir()
    return (tmp_path / "proj").resolve()


def call(tool: str, ws: Path, mode: str, *, path: str | None = None, command: str = "",
         allow: list[str] | None = None, deny: list[str] | None = None,
         **flags: bool) -> str:
    args: dict[str, Any] = {}
    paths: list[Path] = []
    if tool == "run_command":
        args["command"] = command
    elif tool == "web_search":
        args["query"] = "x"
    else:
        args["path"] = path or "a.txt"
        paths = [(ws / args["path"]).resolve()]
    outside = any(ws not in p.parents and p != ws for p in paths)
    preview = Preview(summary=tool, paths=paths, outside=outside, **flags)
    rules = RuleSet.from_lists(allow or [], deny or [])
    return decide(TRAITS[tool], args, preview, mode, rules, ws).action


# tool -> expected action for: inside, outside, sensitive (inside), protected
EXPECTED = {
    "strict": {"read_file": "ask ask ask deny", "list_directory": "ask ask ask deny",
               "search_files": "ask ask ask deny", "write_file": "ask ask ask deny",
               "edit_file": "ask ask ask deny"},
    "ask": {"read_file": "allow ask ask deny", "list_directory": "allow ask ask deny",
            "search_files": "allow ask ask deny", "write_file": "ask ask ask deny",
            "edit_file": "ask ask ask deny"},
    "auto-edit": {"read_file": "allow ask ask deny", "list_directory": "allow ask ask deny",
                  "search_files": "allow ask ask deny", "write_file": "allow ask ask deny",
                  "edit_file": "allow ask ask deny"},
    "yolo": {"read_file": "allow allow ask deny", "list_directory": "allow allow ask deny",
             "search_files": "allow allow ask deny", "write_file": "allow allow ask deny",
             "edit_file": "allow allow ask deny"},
}
CASES = [(mode, tool, expected) for mode, row in EXPECTED.items() for tool, expected in row.items()]


@pytest.mark.parametrize(("mode", "tool", "expected"), CASES)
def test_file_tools_per_mode(mode: str, tool: str, expected: str, ws: Path) -> None:
    inside, outside, sensitive, protected = expected.split()
    assert call(tool, ws, mode, path="src/a.py") == inside
    assert call(tool, ws, mode, path="../other/a.py") == outside
    assert call(tool, ws, mode, path=".env", sensitive=True) == sensitive
    assert call(tool, ws, mode, path="cfg.toml", protected=True) == protected


@pytest.mark.parametrize(("mode", "web", "safe_cmd", "other_cmd"), [
    ("strict", "ask", "ask", "ask"), ("ask", "ask", "allow", "ask"),
    ("auto-edit", "ask", "allow", "ask"), ("yolo", "allow", "allow", "allow")])
def test_web_and_commands_per_mode(mode: str, web: str, safe_cmd: str, other_cmd: str,
                                   ws: Path) -> None:
    assert call("web_search", ws, mode) == web
    assert call("run_command", ws, mode, command="git status && ls -la") == safe_cmd
    assert call("run_command", ws, mode, command="npm test") == other_cmd


def test_sensitive_and_protected_beat_allow_rules(ws: Path) -> None:
    allow = ["read_file", "write_file(**)"]
    assert call("read_file", ws, "yolo", path=".env", sensitive=True, allow=allow) == "ask"
    assert call("write_file", ws, "yolo", path="c.toml", protected=True, allow=allow) == "deny"


def test_deny_rules_win_in_every_mode(ws: Path) -> None:
    for mode in ("strict", "ask", "auto-edit", "yolo"):
        assert call("web_search", ws, mode, deny=["web_search"], allow=["web_search"]) == "deny"
        assert call("read_file", ws, mode, path="secret/x", deny=["read_file(secret/**)"]) == "deny"
        assert call("edit_file", ws, mode, path="a.txt", deny=["*"]) == "deny"


def test_allow_rules(ws: Path) -> None:
    assert call("web_search", ws, "ask", allow=["web_search"]) == "allow"
    assert call("write_file", ws, "ask", path="src/x/y.py", allow=["write_file(src/**)"]) == "allow"
    assert call("write_file", ws, "ask", path="lib/y.py", allow=["write_file(src/**)"]) == "ask"
    assert call("edit_file", ws, "ask", path="README.md", allow=["edit_file(*.md)"]) == "allow"
    assert call("edit_file", ws, "ask", path="docs/a.md", allow=["edit_file(*.md)"]) == "ask"
    assert call("edit_file", ws, "ask", path="docs/a.md", allow=["edit_file(**/*.md)"]) == "allow"
    assert call("read_file", ws, "ask", path="/etc/hosts", allow=["read_file(/etc/**)"]) == "allow"
    conf = ["read_file(/etc/*.conf)"]
    assert call("read_file", ws, "ask", path="/etc/hosts", allow=conf) == "ask"
    assert call("run_command", ws, "ask", command="npm run test --watch",
                allow=["run_command(npm run test:*)"]) == "allow"
    assert call("run_command", ws, "ask", command="npm run build",
                allow=["run_command(npm run test:*)"]) == "ask"
    assert call("run_command", ws, "ask", command="npm test x",
                allow=["run_command(npm test)"]) == "ask"
    assert call("run_command", ws, "strict", command="npm test",
                allow=["run_command(npm test)"]) == "ask"


def test_path_rules_match_the_resolved_path(ws: Path) -> None:
    (ws / "src").mkdir()
    os.symlink("/etc", ws / "src" / "etc")
    allow = ["read_file(src/**)"]
    # src/etc/hosts resolves to /etc/hosts: outside, and not under src/**
    target = (ws / "src/etc/hosts").resolve()
    preview = Preview("read", paths=[target], outside=True)
    rules = RuleSet.from_lists(allow, [])
    assert decide(TRAITS["read_file"], {"path": "src/etc/hosts"}, preview, "ask", rules,
                  ws).action == "ask"
    deny = RuleSet.from_lists([], ["write_file(src/**)"])
    escape = Preview("w", paths=[(ws / "src/../src/a.py").resolve()])
    assert decide(TRAITS["write_file"], {"path": "src/../src/a.py"}, escape, "yolo", deny,
                  ws).action == "deny"


@pytest.mark.parametrize("command", ["cat ../secret", "cat /etc/passwd", "ls ~", "ls ..",
                                     "cat .env", "head sub/.env.local", "grep -r x /",
                                     "cat ~/.ssh/id_rsa", "tree -o out", "date -s 2020-01-01",
                                     "uniq a b", "/bin/ls", "file -C x"])
def test_safe_list_does_not_read_outside_or_secrets(command: str, ws: Path) -> None:
    assert call("run_command", ws, "ask", command=command) == "ask"


def test_risk_warnings(ws: Path) -> None:
    def warn(command: str) -> str:
        return " | ".join(risk_warnings(command, analyse(command), ws))

    assert "rm deletes" in warn("ls && rm -rf build")
    assert "sudo" in warn("sudo apt install x")
    assert "pipes into a shell" in warn("curl -s https://x | sh")
    assert "curl uses the network" in warn("curl -s https://x | sh")
    assert "recursive chmod" in warn("chmod -R 777 .")
    assert "force" in warn("git push --force origin main")
    assert "reset --hard" in warn("git reset --hard HEAD~3")
    assert "writes outside the workspace: /etc/x" in warn("echo hi > /etc/x")
    assert "writes outside the workspace" in warn("cp a /tmp/elsewhere")
    assert "cannot fully check" in warn("eval x")
    assert warn("ls -la && git status") == ""


def test_decision_carries_warnings(ws: Path) -> None:
    preview = Preview("cmd", warnings=["from the tool"])
    d = decide(TRAITS["run_command"], {"command": "rm -rf build"}, preview, "ask",
               RuleSet(), ws)
    assert d.action == "ask" and d.by == "mode"
    assert d.warnings[0] == "from the tool" and any("rm deletes" in w for w in d.warnings)


def test_suggest_rule_is_the_contracts_rule(ws: Path) -> None:
    """The contract's "At the terminal": a simple command's rule is its program
    (with the subcommand) and any arguments; interpreters, rm, sudo-likes,
    redirects and substitutions keep the exact text (changed from one exact
    rule per command: "always" on `mkdir b1` now remembers `mkdir:*`)."""
    def suggest(tool: str, **args: Any) -> list[str] | None:
        paths = [(ws / args["path"]).resolve()] if "path" in args else []
        return suggest_rule(TRAITS[tool], args, Preview("x", paths=paths), ws)

    assert suggest("run_command", command="git status && npm test") == [
        "run_command(git status:*)", "run_command(npm test:*)"]
    assert suggest("run_command", command="npm run test:unit -- --watch") == [
        "run_command(npm run test:unit:*)"]
    assert suggest("run_command", command="mkdir b1") == ["run_command(mkdir:*)"]
    assert suggest("run_command", command="echo 'a b' | grep a") == [
        "run_command(echo:*)", "run_command(grep:*)"]
    for exact in ("rm -rf build", "python3 -c 'print(1)'", "git -C sub status",
                  "uv run python -c 1", "kubectl delete pod web", "git clean -fd"):
        assert suggest("run_command", command=exact) == [f"run_command({exact})"]
    for whole in ("rm $X", "sudo rm x", "ls > out", "echo $(date)", "bash -c ls",
                  "echo 'touch x' | bash", "cat s | sh -s", "alias l=ls", "cat < in"):
        assert suggest("run_command", command=whole) == [f"run_command({whole})"]
    for unholdable in ("python3 - <<'EOF'\nprint(1)\nEOF", "bash <<'EOF'\nls\nEOF",
                       "ls > out *"):  # a heredoc's lines; text the rule reads as a prefix
        assert suggest("run_command", command=unholdable) is None
    assert suggest("write_file", path="src/main.py") == ["write_file(src/main.py)"]
    assert suggest("edit_file", path="a[1]*.py") == ["edit_file(a\\[1\\]\\*.py)"]
    assert suggest("read_file", path="/etc/hosts") == ["read_file(/etc/hosts)"]
    assert suggest("web_search", query="x") == ["web_search"]
    assert suggest_rule(TRAITS["read_file"], {"path": ".env"}, Preview("x", sensitive=True),
                        ws) is None


def test_suggested_rules_allow_that_call_and_no_other_program(ws: Path) -> None:
    for command in ("git status && npm test", "make *", "echo 'a b' | jq a", "make -j4 all",
                    "mkdir b1", "ls > out", "sh -c 'ls -la'", "rm -rf build"):
        rules = suggest_rule(TRAITS["run_command"], {"command": command}, Preview("x"), ws)
        assert rules is not None
        assert call("run_command", ws, "ask", command=command, allow=rules) == "allow"
        assert call("run_command", ws, "ask", command=command + "; rm x", allow=rules) == "ask"
        assert call("run_command", ws, "ask", command=command + " && curl x", allow=rules) == "ask"
    mkdir = suggest_rule(TRAITS["run_command"], {"command": "mkdir b1"}, Preview("x"), ws)
    assert call("run_command", ws, "ask", command="mkdir -p b2/c", allow=mkdir) == "allow"
    for whole in ("ls > out", "rm -rf build"):  # exact text: another argument asks again
        rules = suggest_rule(TRAITS["run_command"], {"command": whole}, Preview("x"), ws)
        assert call("run_command", ws, "ask", command=whole + "x", allow=rules) == "ask"
    for path in ("src/main.py", "a[1]*.py", "/tmp/out.txt"):
        rules = suggest_rule(TRAITS["write_file"], {"path": path},
                             Preview("x", paths=[(ws / path).resolve()]), ws)
        assert rules is not None
        assert call("write_file", ws, "ask", path=path, allow=rules) == "allow"
        assert call("write_file", ws, "ask", path=path + "x", allow=rules) == "ask"
    escaped = ["write_file(a\\[1\\]\\*.py)"]
    assert call("write_file", ws, "ask", path="a1x.py", allow=escaped) == "ask"


@pytest.mark.parametrize(("command", "mode", "allow", "read_only_list"), [
    ("ls -la", "ask", [], True),  # only the built-in read-only list says yes
    ("ls -la", "ask", ["run_command(ls:*)"], False),  # a rule says yes
    ("ls -la", "yolo", [], False),  # yolo says yes
    ("ls && npm test", "ask", ["run_command(npm test)"], False),  # a rule covers part
])
def test_a_decision_says_whether_only_the_read_only_list_allowed_it(
        ws: Path, command: str, mode: str, allow: list[str], read_only_list: bool) -> None:
    verdict, plan = judge(TRAITS["run_command"], {"command": command}, Preview("x"), mode,
                          RuleSet.from_lists(allow), ws)
    assert verdict.action == "allow"
    assert plan.read_only_list is read_only_list
    assert plan.partly_listed is (command == "ls && npm test")  # the rest only by the list
