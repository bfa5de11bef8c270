"""Permission rules: ``[permissions] allow = [...]`` / ``deny = [...]``.

Syntax (one rule per string)::

    web_search                  any call of the tool ("*" is any tool)
    run_command(git status)     exactly these words (quote words with shlex rules);
                                also the whole line exactly as written, which is how
                                a line with redirects or substitutions is allowed
    run_command(npm run test:*) these words, then anything (also "... *")
    write_file(src/**)          a path glob: relative to the workspace unless
    read_file(/etc/**)          absolute or ~; "*" stays in one directory, "**"
                                crosses directories, "\\" escapes
    mcp__time__get_current_time an MCP server's tool; mcp__time__* any tool of
    mcp__time__*                that server ("*" only at the end)

Paths are matched against the resolved path. An allow rule admits a command
only if every simple command in it is admitted and the parse is clean; a deny
rule matches when any command that might run starts with its words (deny
rules are always prefixes, and words only known at run time match anything).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from swebash_py.approvals.shellparse import Analysis
    from swebash_py.tools.base import ToolTraits

Tools = Mapping[str, "ToolTraits"]

_RULE = re.compile(r"^(mcp__[\w-]*\*?|[A-Za-z_][\w.-]*|\*)\s*(?:\((.*)\))?$", re.DOTALL)
MCP_PREFIX = "mcp__"
_WILD = ("$", "`", "*", "?", "[", "{")  # and shellparse.UNKNOWN


@dataclass(frozen=True)
class Rule:
    """One parsed rule; ``text`` is what the user wrote (for messages)."""

    text: str
    tool: str
    words: tuple[str, ...] | None = None
    prefix: bool = False
    glob: str | None = None
    exact: str | None = None  # commands: the pattern as written, matched as a whole line
    careful: bool = False  # remembered from "always": a prefix never admits a risky command

    def applies_to(self, tool: str) -> bool:
        if self.tool.endswith("*") and self.tool.startswith(MCP_PREFIX):
            return tool.startswith(self.tool[:-1])
        return self.tool in ("*", tool)

    def matches_argv(self, argv: list[str], *, deny: bool = False) -> bool:
        """Allow: exact words (or the prefix). Deny: a prefix, run-time words
        and globs in the arguments match anything, and ``/bin/rm`` counts as ``rm``."""
        if self.words is None:
            return True
        n = len(self.words)
        if deny and n == 0:
            return True
        if not deny:
            return argv[:n] == list(self.words) and (self.prefix or len(argv) == n)
        if len(argv) < n or os.path.basename(argv[0]) != self.words[0] != argv[0]:
            return False
        return all(_loose_eq(a, w) for a, w in zip(argv[1:n], self.words[1:], strict=True))

    def matches_path(self, path: Path, workspace: Path) -> bool:
        if self.glob is None:
            return True
        return _glob_regex(self.glob, workspace).fullmatch(str(path)) is not None


def _loose_eq(word: str, rule_word: str) -> bool:
    # the words come from an analysis: the parser is loaded (parsing rules needs none)
    from swebash_py.approvals.shellparse import UNKNOWN

    return word == rule_word or UNKNOWN in word or any(mark in word for mark in _WILD)


def _glob_regex(glob: str, workspace: Path) -> re.Pattern[str]:
    glob = os.path.expanduser(glob)
    if not os.path.isabs(glob):
        glob = f"{workspace}/{glob}"
    glob = re.sub(r"/+", "/", glob)
    out, i = [], 0
    while i < len(glob):
        ch = glob[i]
        if glob.startswith("/**", i) and (i + 3 == len(glob) or glob[i + 3] == "/"):
            out.append("(?:/.*)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif ch == "*":
            out.append("[^/]*")
            i += 1
        elif ch == "?":
            out.append("[^/]")
            i += 1
        elif ch == "\\" and i + 1 < len(glob):
            out.append(re.escape(glob[i + 1]))
            i += 2
        elif ch == "[" and (end := glob.find("]", i + 2)) != -1:
            body = glob[i + 1:end].replace("\\", "\\\\")
            out.append("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
            i = end + 1
        else:
            out.append(re.escape(ch))
            i += 1
    return re.compile("".join(out))


def parse_rule(text: str, tools: Tools | None = None) -> Rule:
    """Parse one rule against ``tools`` (default: the built-in tools); a
    ``ValueError`` names the rule and what is wrong."""
    def bad(why: str) -> ValueError:
        return ValueError(f"invalid permission rule {text!r}: {why}")

    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in text):
        return _raise(bad("control characters are not allowed"))
    match = _RULE.match(text.strip())
    if not match:
        return _raise(bad("expected TOOL or TOOL(PATTERN), e.g. run_command(git status)"))
    tool, spec = match.group(1), match.group(2)
    if tool.startswith(MCP_PREFIX):
        if spec is not None:
            return _raise(bad("an MCP tool rule takes no pattern"))
        if tool.endswith("*") and tool.count("__") < 2 and tool != MCP_PREFIX + "*":
            return _raise(bad("expected mcp__SERVER__* or mcp__SERVER__TOOL"))
        return Rule(text, tool)
    known = _builtin_traits() if tools is None else tools
    traits = known.get(tool)
    if tool != "*" and traits is None:
        return _raise(bad(f"unknown tool {tool!r} (known: {', '.join(sorted(known))})"))
    command = traits is not None and traits.command_arg is not None
    spec = None if spec is None else spec.strip()
    if spec is None or (spec == "*" and not command):
        return Rule(text, tool)
    if not spec:
        return _raise(bad("empty pattern"))
    if command:
        return _command_rule(text, tool, spec, bad)
    if traits is not None and traits.path_arg is not None:
        return Rule(text, tool, glob=spec)
    return _raise(bad(f"{tool} takes no pattern"))


def check_rules(rules: Iterable[str], wrap: str = "{}") -> None:
    """Each rule parses (a ``ValueError`` naming the first that does not); ``wrap``
    makes the rule of a bare pattern (``[sandbox] host_allow``'s ``git:*``)."""
    for rule in rules:
        parse_rule(wrap.format(rule))


def _builtin_traits() -> Tools:
    from swebash_py.tools.registry import builtin_traits

    return builtin_traits()


def _command_rule(text: str, tool: str, spec: str, bad: Callable[[str], ValueError]) -> Rule:
    prefix = spec == "*" or spec.endswith((":*", " *"))
    body = spec[:-1].rstrip(":").rstrip() if prefix else spec
    try:
        words = tuple(shlex.split(body))
    except ValueError as exc:
        raise bad(f"cannot split the command: {exc}") from exc
    if not words and not prefix:
        raise bad("empty command")
    return Rule(text, tool, words, prefix, exact=None if prefix else spec)


def _raise(exc: ValueError) -> Rule:
    raise exc


def format_path_rule(tool: str, path: Path, workspace: Path) -> str:
    """The rule for exactly one file (relative when inside the workspace)."""
    try:
        shown = str(path.relative_to(workspace))
    except ValueError:
        shown = str(path)
    escaped = re.sub(r"([*?\[\]\\])", r"\\\1", shown)
    return f"{tool}({escaped})"


@dataclass
class RuleSet:
    """Parsed allow and deny rules."""

    allow: list[Rule] = field(default_factory=list)
    deny: list[Rule] = field(default_factory=list)

    @classmethod
    def from_lists(cls, allow: Iterable[str] = (), deny: Iterable[str] = ()) -> RuleSet:
        return cls([parse_rule(r) for r in allow], [parse_rule(r) for r in deny])

    def with_allow(self, extra: Iterable[str], *, remembered: bool = False) -> RuleSet:
        """These rules and ``extra``; ``remembered`` ones (from "always" answers) are
        careful: their prefix admits no command with a risk warning of its own."""
        added = [replace(parse_rule(r), careful=remembered) for r in extra]
        return RuleSet(self.allow + added, list(self.deny))

    def has_denies(self, tool: str) -> bool:
        return any(r.applies_to(tool) for r in self.deny)

    def denying(self, tool: str, paths: list[Path], analysis: Analysis | None,
                workspace: Path) -> Rule | None:
        """The first deny rule that matches any part of the call."""
        for rule in (r for r in self.deny if r.applies_to(tool)):
            if analysis is not None and rule.words is not None:
                candidates = analysis.commands + analysis.suspects
                if any(rule.matches_argv(argv, deny=True) for argv in candidates):
                    return rule
            elif rule.glob is not None:
                if any(rule.matches_path(p, workspace) for p in paths):
                    return rule
            else:
                return rule
        return None

    def mentioned(self, tool: str, analysis: Analysis) -> Rule | None:
        """A command deny rule whose words appear in the arguments of a command
        that might run them (``noglob rm x``, ``python3 -c '...rm...'``): not
        proof, so the caller asks rather than denies."""
        for rule in (r for r in self.deny if r.applies_to(tool) and r.words):
            for run in analysis.mentions:
                if any(rule.matches_argv(run[i:], deny=True) for i in range(len(run))):
                    return rule
        return None

    def allowing(self, tool: str, paths: list[Path], analysis: Analysis | None, workspace: Path,
                 also_ok: Callable[[list[str]], bool] = lambda _argv: False, *,
                 command: str | None = None,
                 risky: Callable[[list[str]], bool] = lambda _argv: False) -> list[Rule] | None:
        """The allow rules that together admit the whole call, or None.

        For a command, one rule whose text is exactly ``command`` (when given)
        admits it whole; else every simple command must match an allow rule or
        ``also_ok``; the list may then be empty (nothing but ``also_ok``). A careful
        rule's prefix skips a simple command ``risky`` flags."""
        rules = [r for r in self.allow if r.applies_to(tool)]
        if analysis is not None:
            whole = None if command is None else command.strip()
            exact = next((r for r in rules if r.exact is not None and r.exact == whole), None)
            if exact is not None:
                return [exact]
            if not analysis.clean or not analysis.commands:
                return None
            used: list[Rule] = []
            for argv in analysis.commands:
                rule = next((r for r in rules if r.matches_argv(argv)
                             and not (r.careful and r.prefix and risky(argv))), None)
                if rule is None and not also_ok(argv):
                    return None
                if rule is not None and rule not in used:
                    used.append(rule)
            return used
        if paths:
            hits = [next((r for r in rules if r.matches_path(p, workspace)), None) for p in paths]
            return None if None in hits else list(dict.fromkeys(h for h in hits if h))
        bare = next((r for r in rules if r.glob is None and r.words is None), None)
        return [bare] if bare else None
