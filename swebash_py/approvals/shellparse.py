"""Account for every simple command in a shell command line, or say why not.

``analyse`` parses with tree-sitter-bash and walks an allow-list of syntax:
lists, pipelines, subshells, groups, ``if``/``for``/``while`` bodies and
command / process substitutions. Anything it cannot fully account for
(expansions, wrappers such as ``env`` or ``bash -c``, file redirections,
assignments, control characters, ...) sets ``unsafe_reason``. ``suspects``
is a conservative superset of the commands that might run, for deny rules.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

MAX_CHARS = 10_000
MAX_PARTS = 32
MAX_DEPTH = 60
MAX_NESTED = 64  # nested analyses (``bash -c`` strings...) per call, for deny rules
UNKNOWN = "\x00?"  # stands for a word whose value is only known at run time

WRAPPERS = frozenset({
    "env", "sudo", "doas", "su", "runuser", "pkexec", "timeout", "nice", "ionice", "nohup",
    "command", "builtin", "time", "watch", "xargs", "parallel", "exec", "eval", "source", ".",
    "stdbuf", "setsid", "chroot", "nsenter", "unshare", "flock", "strace", "ltrace", "chrt",
    "taskset", "unbuffer", "fakeroot", "firejail", "busybox", "script", "coproc", "trap",
})
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "ash"})
FIND_RUNNERS = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete"})
_STATEMENTS = frozenset({
    "program", "list", "pipeline", "subshell", "compound_statement", "do_group",
    "negated_command", "if_statement", "elif_clause", "else_clause", "while_statement",
})
_BRACE = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")
_SAFE_FD_TARGET = re.compile(r"^(\d+|-)$")


@dataclass
class Analysis:
    """``commands``: argv of every simple command (``UNKNOWN`` marks run-time
    words); ``unsafe_reason``: why the line cannot be fully accounted for."""

    commands: list[list[str]] = field(default_factory=list)
    unsafe_reason: str | None = None
    suspects: list[list[str]] = field(default_factory=list)
    read_paths: list[str] = field(default_factory=list)
    write_paths: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return self.unsafe_reason is None


@lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


def _bad_char(text: str) -> str | None:
    for ch in text:
        code = ord(ch)
        if (code < 0x20 and ch not in "\t\n") or 0x7F <= code <= 0x9F:
            return f"control character {code:#04x}"
        if code > 0x7F and unicodedata.category(ch) in ("Cf", "Zl", "Zp"):
            return f"invisible character U+{code:04X}"
    return None


def analyse(command: str, _nesting: int = 0, _budget: list[int] | None = None) -> Analysis:
    """Every simple command in ``command``, or why it cannot be accounted for."""
    budget = [MAX_NESTED] if _budget is None else _budget
    if len(command) > 1_000_000:
        return Analysis(unsafe_reason="command too long to check")
    walker = _Walker(command.encode(), _nesting, budget)
    tree = _parser().parse(walker.src)
    walker.stmt(tree.root_node, 0)
    early = (
        (f"longer than {MAX_CHARS} characters" if len(command) > MAX_CHARS else None)
        or _bad_char(command)
        or ("line continuation" if "\\\n" in command else None)
        or ("does not parse cleanly" if tree.root_node.has_error else None)
    )
    if early:
        walker.reasons.insert(0, early)
    if len(walker.commands) > MAX_PARTS:
        walker.unsafe(f"more than {MAX_PARTS} commands")
    suspects = walker.sweep(tree.root_node)
    if _bad_char(command) and _nesting < 3:  # ``ls\rrm x``: read it as a terminal shows it
        shown = "".join("\n" if _bad_char(ch) else ch for ch in command)
        suspects += analyse(shown, _nesting + 1, budget).suspects
    return Analysis(walker.commands, walker.reasons[0] if walker.reasons else None,
                    suspects, walker.read_paths, walker.write_paths)


class _Walker:
    def __init__(self, src: bytes, nesting: int, budget: list[int]) -> None:
        self.src = src
        self.nesting = nesting
        self.budget = budget  # nested analyses left, shared by the whole call
        self.commands: list[list[str]] = []
        self.reasons: list[str] = []
        self.read_paths: list[str] = []
        self.write_paths: list[str] = []

    def unsafe(self, reason: str) -> None:
        self.reasons.append(reason)

    def text(self, node: Any) -> str:
        return str(self.src[node.start_byte:node.end_byte].decode(errors="replace"))

    # statements ---------------------------------------------------------
    def stmt(self, node: Any, depth: int) -> None:
        if depth > MAX_DEPTH:
            self.unsafe("nested too deeply")
            return
        kind = node.type
        if kind == "command":
            self.command(node, depth)
        elif kind == "redirected_statement":
            for child in node.named_children:
                if child.type.endswith("redirect"):
                    self.redirect(child, depth)
                else:
                    self.stmt(child, depth + 1)
        elif kind in ("command_substitution", "process_substitution"):
            for child in node.named_children:
                self.stmt(child, depth + 1)
        elif kind == "for_statement":
            for child in node.named_children:
                if child.type == "do_group":
                    self.stmt(child, depth + 1)
                elif child.type != "variable_name":
                    self.word(child, depth)
        elif kind in _STATEMENTS:
            for child in node.named_children:
                self.stmt(child, depth + 1)
        elif kind != "comment":
            self.unsafe(f"unsupported shell syntax ({kind.replace('_', ' ')})")
            for child in node.named_children:
                self.stmt(child, depth + 1)

    def command(self, node: Any, depth: int) -> None:
        argv: list[str] = []
        for child in node.children:
            if child.type == "variable_assignment":
                self.unsafe("sets a variable before the command")
                self.word(child, depth)
            elif child.type.endswith("redirect"):
                self.redirect(child, depth)
            elif child.type == "command_name":
                name, flags = self.word(child.named_children[0], depth)
                self.check_name(name, flags)
                argv.append(name)
            elif child.is_named:
                argv.append(self.word(child, depth)[0])
            else:
                self.unsafe(f"unexpected '{self.text(child)}' in a command")
        if argv:
            self.commands.append(argv)
            reason = danger(argv)
            if reason:
                self.unsafe(reason)

    def check_name(self, name: str, flags: set[str]) -> None:
        if flags & {"expansion", "glob", "brace", "tilde"} or UNKNOWN in name:
            self.unsafe("the command name is computed at run time")
        elif not name or not name.isascii() or not name.isprintable():
            self.unsafe(f"unusual characters in the command name {name!r}")

    def redirect(self, node: Any, depth: int) -> None:
        ops = [c.type for c in node.children if not c.is_named]
        targets = [c for c in node.named_children if c.type != "file_descriptor"]
        if node.type == "herestring_redirect":
            for target in targets:
                self.word(target, depth)
            return
        if node.type == "heredoc_redirect":
            self.heredoc(node, depth)
            return
        op = ops[0] if ops else ""
        if len(targets) > 1:
            self.unsafe("unusual redirection")
        value = self.word(targets[0], depth)[0] if targets else "-"
        if op == "<":
            self.read_paths.append(value)
        elif op in (">&", "<&", ">&-", "<&-") and _SAFE_FD_TARGET.match(value):
            pass
        elif value != "/dev/null" or op == "<>":
            self.write_paths.append(value)
            self.unsafe(f"redirects to a file ({op} {value})")

    def heredoc(self, node: Any, depth: int) -> None:
        """The body's substitutions, and whatever tree-sitter hangs on ``<<EOF``
        (a following ``| cmd``, ``&& cmd`` or another redirect)."""
        for child in node.named_children:
            if child.type == "heredoc_body":
                for part in child.named_children:
                    if part.type != "heredoc_content":
                        self.word(part, depth)
            elif child.type.endswith("redirect"):
                self.redirect(child, depth)
            elif child.type not in ("heredoc_start", "heredoc_end"):
                self.stmt(child, depth + 1)

    # words --------------------------------------------------------------
    def word(self, node: Any, depth: int) -> tuple[str, set[str]]:
        """The literal value of an argument node, and flags for what it holds."""
        kind, flags = node.type, set[str]()
        if kind in ("word", "number"):
            value, shape = _unescape(self.text(node), "")
            value, shape = self._flags(value, shape, flags)
        elif kind == "raw_string":
            value = self.text(node)[1:-1]
        elif kind == "string":
            value = self.string(node, depth, flags)
        elif kind == "concatenation":
            value, shape = "", ""
            for part in node.children:
                part_value, part_flags = self.word(part, depth)
                value += part_value
                flags |= part_flags
                bare = part.type in ("word", "number")
                shape += self.text(part) if bare else "x" * len(part_value)
            if _BRACE.search(re.sub(r"\\.", "x", shape)):
                flags.add("brace")
                self.unsafe("brace expansion")
        elif kind in ("command_substitution", "process_substitution"):
            self.stmt(node, depth + 1)
            value = UNKNOWN
        else:
            value = UNKNOWN
            flags.add("expansion")
            self.unsafe(f"shell expansion ({kind.replace('_', ' ')}: {self.text(node)[:40]})")
            for child in node.named_children:
                self.word(child, depth + 1)
        return value, flags

    def _flags(self, value: str, shape: str, flags: set[str]) -> tuple[str, str]:
        if "$" in shape or "`" in shape:
            flags.add("expansion")
            self.unsafe("shell expansion ($ or ` in a word)")
        if any(ch in shape for ch in "*?["):
            flags.add("glob")
        if shape.startswith("~"):
            flags.add("tilde")
        if _BRACE.search(shape):
            flags.add("brace")
            self.unsafe("brace expansion")
        return value, shape

    def string(self, node: Any, depth: int, flags: set[str]) -> str:
        pos, value = node.start_byte + 1, ""
        for child in node.named_children:
            value += self._dq(self.src[pos:child.start_byte].decode(errors="replace"), flags)
            if child.type == "string_content":
                value += self._dq(self.text(child), flags)
            else:
                value += self.word(child, depth)[0]
                flags.add("expansion")
            pos = child.end_byte
        return value + self._dq(self.src[pos:node.end_byte - 1].decode(errors="replace"), flags)

    def _dq(self, text: str, flags: set[str]) -> str:
        value, shape = _unescape(text, "$`\"\\\n")
        if "$" in shape or "`" in shape:
            flags.add("expansion")
            self.unsafe("shell expansion ($ or ` in a string)")
        return value

    # conservative sweep for deny rules ------------------------------------
    def sweep(self, root: Any) -> list[list[str]]:
        """Every ``command`` node anywhere (even in errors), plus what wrappers run."""
        found: list[list[str]] = []
        stack = [root]
        while stack:
            node = stack.pop()
            stack.extend(node.named_children)
            if node.type == "command":
                argv = [self._loose(c) for c in node.named_children
                        if c.type != "variable_assignment" and not c.type.endswith("redirect")]
                if argv:
                    found.append(argv)
                    found.extend(self._inner(argv))
        return found

    def _loose(self, node: Any) -> str:
        text = self.text(node if node.type != "command_name" else node.named_children[0])
        return re.sub(r"[\"'\\]", "", text)

    def _inner(self, argv: list[str]) -> list[list[str]]:
        """What a wrapper (``sudo``, ``bash -c``, ``find -exec``...) might run."""
        if _base(argv[0]) not in WRAPPERS | SHELLS | {"find", "git", "rg"}:
            return []
        inner = [argv[i:] for i in range(1, min(len(argv), MAX_PARTS))]
        texts = [" ".join(argv[1:])]
        if _base(argv[0]) in SHELLS | {"eval", "su", "watch"}:
            texts += argv[1:MAX_PARTS]
        for text in texts:
            if self.nesting >= 3 or self.budget[0] <= 0:
                break
            self.budget[0] -= 1
            inner += analyse(text, self.nesting + 1, self.budget).suspects
        return inner


def _base(name: str) -> str:
    return name.rsplit("/", 1)[-1]


def _unescape(text: str, escapable: str) -> tuple[str, str]:
    """Backslash-unescape; the shape keeps unescaped characters, escaped ones as 'x'."""
    value, shape, i = [], [], 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and (not escapable or text[i + 1] in escapable):
            value.append(text[i + 1])
            shape.append("x")
            i += 2
            continue
        value.append(ch)
        shape.append(ch)
        i += 1
    return "".join(value), "".join(shape)


def danger(argv: list[str]) -> str | None:
    """Why this simple command runs something we cannot see, if it does."""
    name = _base(argv[0])
    if name in WRAPPERS:
        return f"'{name}' runs other commands"
    if name in SHELLS and any(a.startswith("-") and "c" in a for a in argv[1:]):
        return f"'{name} -c' runs a command string"
    if name == "find" and FIND_RUNNERS & set(argv):
        return "find with -exec/-ok/-delete"
    if name == "git" and any(a in ("-c", "--config-env", "--exec-path") or
                             a.startswith(("--config-env=", "--exec-path=")) for a in argv):
        return "git -c can run arbitrary programs"
    if name == "rg" and any(a.startswith("--pre") for a in argv):
        return "rg --pre runs a program"
    return None
