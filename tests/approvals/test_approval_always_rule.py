"""The rule "always" remembers: shown before the answer, per workspace, every part judged."""

from __future__ import annotations

from pathlib import Path

import pytest

from swebash_py.approvals.approver import Answer, PolicyApprover
from swebash_py.approvals.decision import PendingCall, Verdict
from swebash_py.approvals.rules import RuleSet, parse_rule
from swebash_py.config.settings import Settings
from swebash_py.engine.messages import ToolUseBlock
from swebash_py.tools.base import Preview
from swebash_py.tools.registry import ToolRegistry, default_tools


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SWEBASH_HOME", str(tmp_path / "data"))
    return tmp_path / "data"


def _pending(command: str) -> PendingCall:
    tool = ToolRegistry(default_tools(Settings())).get("run_command")
    assert tool is not None
    args = tool.Args.parse({"command": command})
    return PendingCall(ToolUseBlock("c1", "run_command", "{}"), tool, args, Preview(command))


class _Recorder:
    """An asker answering ``answer`` and keeping the rule each question showed."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.shown: list[list[str] | None] = []

    async def __call__(self, _p: PendingCall, _v: Verdict, rule: list[str] | None) -> Answer:
        self.shown.append(rule)
        return Answer(self.answer)  # type: ignore[arg-type]


async def test_always_on_mkdir_b1_admits_mkdir_b2_and_not_an_added_rm(
        home: Path, tmp_path: Path) -> None:
    asker = _Recorder("always")
    approver = PolicyApprover("ask", None, tmp_path, asker, sandboxed=lambda: False)
    first = _pending("mkdir b1")
    assert approver.check(first).verdict.action == "ask"
    verdict = await approver.ask(first, approver.check(first))
    assert verdict.action == "allow" and "run_command(mkdir:*)" in verdict.reason
    assert asker.shown == [["run_command(mkdir:*)"]]  # the question showed it first
    assert approver.check(_pending("mkdir b2")).verdict.action == "allow"
    assert approver.check(_pending("mkdir -p b3/c")).verdict.action == "allow"
    assert approver.check(_pending("mkdir b1; rm -rf x")).verdict.action == "ask"
    assert approver.check(_pending("mkdir b1 && curl x | sh")).verdict.action == "ask"
    other = PolicyApprover("ask", None, tmp_path / "..", asker, sandboxed=lambda: False)
    assert other.check(_pending("mkdir b2")).verdict.action == "ask"  # per workspace


async def test_yes_remembers_nothing(home: Path, tmp_path: Path) -> None:
    """The twin: only "always" stores the rule (the question showed it all the same)."""
    asker = _Recorder("yes")
    approver = PolicyApprover("ask", None, tmp_path, asker, sandboxed=lambda: False)
    verdict = await approver.ask(_pending("mkdir b1"), approver.check(_pending("mkdir b1")))
    assert verdict.action == "allow" and asker.shown == [["run_command(mkdir:*)"]]
    assert approver.check(_pending("mkdir b2")).verdict.action == "ask"


async def test_always_on_a_redirect_remembers_the_exact_text(home: Path, tmp_path: Path) -> None:
    approver = PolicyApprover("ask", None, tmp_path, _Recorder("always"),
                              sandboxed=lambda: False)
    line = "echo done >> log.txt"
    await approver.ask(_pending(line), approver.check(_pending(line)))
    assert approver.check(_pending(line)).verdict.action == "allow"
    assert approver.check(_pending("echo done >> ~/.bashrc")).verdict.action == "ask"
    assert approver.check(_pending(line + "; rm -rf x")).verdict.action == "ask"


async def test_a_remembered_prefix_never_admits_a_risky_command(home: Path,
                                                                tmp_path: Path) -> None:
    approver = PolicyApprover("ask", None, tmp_path, _Recorder("always"),
                              sandboxed=lambda: False)
    for line in ("git push origin main", "mkdir b1"):
        await approver.ask(_pending(line), approver.check(_pending(line)))
    assert approver.check(_pending("git push origin dev")).verdict.action == "allow"
    assert approver.check(_pending("git push --force origin main")).verdict.action == "ask"
    assert approver.check(_pending("mkdir /etc/x")).verdict.action == "ask"


def test_a_configured_prefix_rule_is_the_users_word(tmp_path: Path) -> None:
    """The twin: a rule the user wrote in [permissions] is not second-guessed."""
    approver = PolicyApprover("ask", RuleSet.from_lists(["run_command(git push:*)"]),
                              tmp_path, None, sandboxed=lambda: False)
    assert approver.check(_pending("git push --force origin main")).verdict.action == "allow"


def test_an_exact_rule_reads_back_as_the_whole_line() -> None:
    rule = parse_rule("run_command(ls > out)")
    assert rule.exact == "ls > out" and not rule.prefix
    assert parse_rule("run_command(mkdir:*)").exact is None


@pytest.mark.parametrize("command", [
    "npx node -e 'x'", "uvx ruff", "pipx run evil", "docker run alpine ls",
    "kubectl exec pod -- ls", "git submodule update", "git rebase main", "ipython x.py"])
def test_runners_and_code_subcommands_remember_the_exact_text(command: str) -> None:
    """Programs that run code they are given: no standing prefix (``uvx:*`` would
    later admit ``uvx --from x python -c ...``)."""
    from swebash_py.approvals.shellparse import analyse
    from swebash_py.approvals.suggest import command_rules

    rules = command_rules(analyse(command), command, "run_command")
    assert rules and not any(rule.endswith(":*)") for rule in rules), rules


@pytest.mark.parametrize("command", ["mkdir b1", "git stash", "npm test", "docker ps"])
def test_twin_plain_programs_and_subcommands_remember_a_prefix(command: str) -> None:
    from swebash_py.approvals.shellparse import analyse
    from swebash_py.approvals.suggest import command_rules

    rules = command_rules(analyse(command), command, "run_command")
    assert rules and all(rule.endswith(":*)") for rule in rules), rules
