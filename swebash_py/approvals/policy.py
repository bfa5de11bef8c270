"""The approval policy: may this tool call run, must we ask, or is it denied?

Order (the contract's "Approvals"): protected paths and deny rules deny;
a command that cannot be checked against the deny rules asks; sensitive
paths ask; ``strict`` asks; ``yolo`` runs; allow rules and the mode's own
defaults (read-only file tools, a short list of read-only commands, writes
under ``auto-edit``) run; everything else asks.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from swebash_py.approvals.decision import ExecutionPlan, Judgement, Verdict
from swebash_py.approvals.rules import RuleSet, format_path_rule
from swebash_py.approvals.shellparse import SHELLS, UNKNOWN, Analysis, analyse
from swebash_py.sandbox.secrets import is_sensitive
from swebash_py.tools.base import Preview, ToolTraits


@lru_cache(maxsize=64)
def command_analysis(command: str) -> Analysis:
    """``analyse``, cached: decide, risk_warnings and suggest_rule share it."""
    return analyse(command)


def decide(tool: ToolTraits, args: dict[str, Any], preview: Preview, mode: str,
           rules: RuleSet, workspace: Path, *, sandboxed: bool = True) -> Verdict:
    """Allow, ask or deny one call (``judge``'s verdict)."""
    return judge(tool, args, preview, mode, rules, workspace, sandboxed=sandboxed).verdict


def judge(tool: ToolTraits, args: dict[str, Any], preview: Preview, mode: str,
          rules: RuleSet, workspace: Path, *, sandboxed: bool = True) -> Judgement:
    """Allow, ask or deny one call (see the module docstring for the order), and
    whether only the read-only command list allowed it (all or part: the plan).

    The read-only command list applies only when commands run ``sandboxed``."""
    workspace = workspace.resolve()
    tool_name = tool.name
    paths = call_paths(tool, args, preview, workspace)
    outside = preview.outside or any(not _inside(p, workspace) for p in paths)
    analysis = None
    warnings = list(preview.warnings)
    command = None if tool.command_arg is None else str(args.get(tool.command_arg, ""))
    if command is not None:  # the tool runs a command line: what it really runs is judged
        analysis = command_analysis(command)
        warnings += risk_warnings(command, analysis, workspace)
    elif outside:
        warnings += [f"outside the workspace: {p}" for p in paths if not _inside(p, workspace)]
    warnings = list(dict.fromkeys(warnings))

    def out(action: Literal["allow", "ask", "deny"],
            by: Literal["mode", "rule"], reason: str) -> Judgement:
        return Judgement(Verdict(action, by, reason, warnings), ExecutionPlan())

    if preview.protected:
        return out("deny", "rule", "swebash's own configuration and data are off limits")
    if denied := rules.denying(tool_name, paths, analysis, workspace):
        return out("deny", "rule", f"denied by rule {denied.text}")
    if analysis is not None and not analysis.clean and rules.has_denies(tool_name):
        return out("ask", "rule", f"cannot be checked against the deny rules: "
                                  f"{analysis.unsafe_reason}")
    if analysis is not None and (named := rules.mentioned(tool_name, analysis)):
        return out("ask", "rule", f"cannot be checked against the deny rules: it might run "
                                  f"what {named.text} denies")
    if preview.must_ask:
        return out("ask", "mode", preview.must_ask)
    if preview.sensitive:
        return out("ask", "mode", "touches a sensitive file")
    if mode == "yolo":
        return out("allow", "mode", "yolo mode")
    if mode not in ("ask", "auto-edit"):  # strict, and anything unknown: fail closed
        return out("ask", "mode", f"{mode} mode asks before every call")
    listed: list[list[str]] = []  # simple commands no rule admits, only the list

    def by_list(argv: list[str]) -> bool:
        if sandboxed and is_read_only_command(argv, workspace):
            listed.append(argv)
            return True
        return False

    used = rules.allowing(tool_name, paths, analysis, workspace, by_list, command=command,
                          risky=lambda argv: bool(_argv_warnings(argv, workspace)))
    if used and listed:  # the list's judgment is never what grants a write (approvals.grant)
        return Judgement(Verdict("allow", "rule", "partly allowed by "
                                 + ", ".join(r.text for r in used) + ", the rest only by the "
                                 "read-only command list (which never grants a write)",
                                 warnings), ExecutionPlan(partly_listed=True))
    if used:
        return out("allow", "rule", "allowed by " + ", ".join(r.text for r in used))
    if used is not None and analysis is not None:
        return Judgement(Verdict("allow", "mode", "read-only command", warnings),
                         ExecutionPlan(read_only_list=True))
    approval = tool.default_approval
    if approval == "allow":
        return out("allow", "mode", f"{tool_name} asks no question under {mode}")
    if tool.read_only and approval == "inside-workspace" and not outside:
        return out("allow", "mode", "read-only, inside the workspace")
    if mode == "auto-edit" and approval == "auto-edit" and not outside:
        return out("allow", "mode", "auto-edit mode, inside the workspace")
    if analysis is not None and not analysis.clean:
        return out("ask", "mode", f"cannot fully check this command: {analysis.unsafe_reason}")
    return out("ask", "mode", "outside the workspace" if outside else f"{mode} mode")


def call_paths(tool: ToolTraits, args: dict[str, Any], preview: Preview,
               workspace: Path) -> list[Path]:
    """The resolved paths a call touches (the preview's, else its path argument)."""
    if preview.paths:
        return [Path(p) for p in preview.paths]
    if tool.path_arg is None:
        return []
    return [_resolve(str(args.get(tool.path_arg) or "."), workspace)]


def _resolve(word: str, workspace: Path) -> Path:
    return (workspace / os.path.expanduser(word)).resolve()


def _inside(path: Path, workspace: Path) -> bool:
    return path == workspace or workspace in path.parents


# the read-only command list ---------------------------------------------------
_SAFE = frozenset({
    "ls", "pwd", "echo", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "find",
    "which", "whoami", "date", "uname", "df", "du", "file", "stat", "sort", "uniq", "tr", "cut",
    "basename", "dirname", "realpath", "readlink", "true", "false", "id", "diff", "cmp", "nl",
    "md5sum", "sha1sum", "sha256sum", "tree", "git",
})
_GIT_READ = frozenset({"status", "diff", "log", "show", "branch"})
_GIT_BRANCH_WRITES = ("-d", "-D", "-m", "-M", "-c", "-C", "-f", "-u", "-t", "--delete", "--move",
                      "--copy", "--force", "--set-upstream", "--unset-upstream", "--track",
                      "--edit-description", "--no-track")
_FIND_WRITES = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint",
                          "-fprint0", "-fprintf", "-fls"})


def is_read_only_command(argv: list[str], workspace: Path) -> bool:
    """True for a short list of commands that only read, without writing flags,
    and only about paths inside the workspace."""
    name, rest = argv[0], argv[1:]
    if name not in _SAFE or any(UNKNOWN in a or _long_option(a, "output") for a in argv):
        return False
    if not _flags_ok(name, rest):
        return False
    if name == "echo":
        return True
    return all(_path_ok(a, workspace) for a in rest)


def _flags_ok(name: str, rest: list[str]) -> bool:
    short = "".join(a[1:] for a in rest if a.startswith("-") and not a.startswith("--"))
    positional = [a for a in rest if not a.startswith("-")]
    if name == "sort":
        return "o" not in short and not any(_long_option(a, "compress-program") for a in rest)
    if name == "uniq":
        return len(positional) <= 1
    if name == "find":
        return not _FIND_WRITES & set(rest)
    if name == "date":
        return "s" not in short and not any(_long_option(a, "set") for a in rest)
    if name in ("tree", "file"):
        return "o" not in short and "C" not in short
    if name == "git":
        if not rest or rest[0] not in _GIT_READ or "--ext-diff" in rest:
            return False
        if rest[0] == "branch":
            flags = rest[1:]
            return not any(f.startswith(_GIT_BRANCH_WRITES) or not f.startswith("-")
                           for f in flags)
    return True


def _long_option(arg: str, name: str) -> bool:
    """True when ``arg`` is the long option ``--name``, or any abbreviation of it
    (getopt_long takes an unambiguous prefix: ``sort --outp=F`` is ``--output``)."""
    if not arg.startswith("--"):
        return False
    word = arg[2:].split("=", 1)[0]
    return bool(word) and (name.startswith(word) or word.startswith(name))


def _path_ok(word: str, workspace: Path) -> bool:
    if word.startswith("-"):
        if "=" in word:
            word = word.split("=", 1)[1]
        elif not word.startswith("--") and "/" in word[2:]:
            word = word[2:]  # an attached option value: grep -f/etc/x
        else:
            return True
    if word == "/dev/null":
        return True
    path = _resolve(word, workspace)
    return _inside(path, workspace) and not is_sensitive(path)  # the one secrets list


# warnings and suggestions -----------------------------------------------------
_DELETERS = frozenset({"rm", "rmdir", "shred", "unlink", "dd", "wipefs", "truncate", "srm"})
_NETWORK = frozenset({"curl", "wget", "nc", "ncat", "netcat", "ssh", "scp", "sftp", "rsync",
                      "ftp", "telnet", "socat"})
_ELEVATE = frozenset({"sudo", "doas", "su", "pkexec", "runuser"})
_WRITERS = frozenset({"cp", "mv", "tee", "ln", "install", "touch", "mkdir", "rsync", "dd"})
_INTERPRETERS = "|".join([*sorted(SHELLS), "python3?", "perl", "ruby", "node"])
_PIPE_TO_SHELL = re.compile(rf"\|&?\s*(?:sudo\s+)?(?:\S*/)?(?:{_INTERPRETERS})\b")


def risk_warnings(command: str, analysis: Analysis, workspace: Path | None = None) -> list[str]:
    """Warning lines for the question: deletes, sudo, pipes into a shell, ..."""
    found: list[str] = []
    if not analysis.clean:
        found.append(f"cannot fully check this command: {analysis.unsafe_reason}")
    if _PIPE_TO_SHELL.search(command):
        found.append("pipes into a shell or interpreter")
    for argv in analysis.commands + analysis.suspects:
        found += _argv_warnings(argv, workspace)
    for target in analysis.write_paths:
        if workspace is None:
            continue
        if UNKNOWN in target:  # known only at run time: judged as a write anywhere
            found.append(f"writes to a path known only at run time: "
                         f"{target.replace(UNKNOWN, '…')}")
        elif not _inside(_resolve(target, workspace), workspace):
            found.append(f"writes outside the workspace: {target}")
    return list(dict.fromkeys(found))


def _argv_warnings(argv: list[str], workspace: Path | None) -> list[str]:
    name, rest = os.path.basename(argv[0]), argv[1:]
    found = []
    if name in _DELETERS or name.startswith("mkfs"):
        found.append(f"{name} deletes or overwrites data")
    if name in _ELEVATE:
        found.append(f"{name} runs with elevated privileges")
    if name in _NETWORK:
        found.append(f"{name} uses the network")
    if name in ("chmod", "chown", "chgrp") and any(a in ("-R", "--recursive") for a in rest):
        found.append(f"recursive {name}")
    if name == "git" and rest[:1] == ["push"] and any(
            a in ("-f", "--force") or a.startswith(("--force-with-lease", "+")) for a in rest):
        found.append("git push --force rewrites remote history")
    if name == "git" and rest[:1] == ["reset"] and "--hard" in rest:
        found.append("git reset --hard discards local changes")
    if name == "git" and rest[:1] == ["clean"]:
        found.append("git clean deletes untracked files")
    if name in _WRITERS and workspace is not None:
        for word in rest:
            if not word.startswith("-") and UNKNOWN not in word and not _inside(
                    _resolve(word, workspace), workspace):
                found.append(f"writes outside the workspace: {word}")
    return found


def suggest_rule(tool: ToolTraits, args: dict[str, Any], preview: Preview,
                 workspace: Path) -> list[str] | None:
    """The rules an "always" answer stores (commands: ``approvals.suggest``), or
    None when no rule can be safely remembered (sensitive or protected paths,
    a line no rule can hold): then "always" only runs the call once."""
    if preview.sensitive or preview.protected or preview.must_ask:
        return None
    workspace = workspace.resolve()
    if tool.command_arg is not None:
        from swebash_py.approvals.suggest import command_rules

        command = str(args.get(tool.command_arg, ""))
        return command_rules(command_analysis(command), command, tool.name)
    if tool.path_arg is not None:
        paths = call_paths(tool, args, preview, workspace)
        return list(dict.fromkeys(format_path_rule(tool.name, p, workspace) for p in paths))
    return [tool.name]
