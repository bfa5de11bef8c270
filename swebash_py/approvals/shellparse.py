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
    "noglob", "nocorrect", "repeat", "emulate", "zmodload", "fc",  # zsh and history
    "mapfile", "readarray",  # -C runs a callback
})
# Names that change what later command names mean (``alias ls=rm``, ``hash -p``).
REDEFINERS = frozenset({"alias", "hash", "enable", "shopt", "unalias"})
# Interpreters that read their program from stdin when given no script or code.
_INTERPRETER = re.compile(r"^(python[0-9.]*|pypy[0-9.]*|perl[0-9.]*|ruby[0-9.]*|node(js)?|"
                          r"php[0-9.]*|lua[0-9.]*|luajit|tclsh[0-9.]*|Rscript|pwsh|julia|bun|"
                          r"deno|osascript|irb|jshell|groovy|scala|guile|racket)$")
# Programs that read commands (which can run other commands) from stdin.
STDIN_PROGRAMS = frozenset({"ed", "red", "ex", "dc", "sqlite3", "psql", "mysql", "mariadb",
                            "expect", "gnuplot", "gdb", "lldb", "at", "batch", "crontab"})
_SCRIPTED = frozenset({"awk", "gawk", "mawk", "nawk", "sed", "gsed", "make", "gmake", "bmake"})
_PROGRAM_FILE_FLAGS = frozenset({"-f", "--file", "-x", "--command", "-s", "--script"})
_CODE_FLAGS = frozenset({"-c", "-e", "-E", "-m", "-r", "--eval", "--print", "-p", "--command"})
_SHELL_OPT_ARGS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_STDIN_PATHS = ("-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")
# Commands that never run their arguments: deny rules need not look inside their words.
PURE = frozenset({
    "ls", "pwd", "echo", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "which",
    "whoami", "date", "uname", "df", "du", "file", "stat", "sort", "uniq", "tr", "cut",
    "basename", "dirname", "realpath", "readlink", "true", "false", "id", "diff", "cmp", "nl",
    "md5sum", "sha1sum", "sha256sum", "sha512sum", "tree", "mkdir", "touch",
})
_TOKEN = re.compile(r"[^\s'\"`;&|()<>{}\[\]$=,:]+")
_BACKQUOTE_ESCAPE = re.compile(r"\\[`$\\]")
_SUBSCRIPT_CODE = re.compile(r"\[[^\]]*[`$]")
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
    mentions: list[list[str]] = field(default_factory=list)  # word runs that might be run

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
                    suspects, walker.read_paths, walker.write_paths, walker.mentions)


class _Walker:
    def __init__(self, src: bytes, nesting: int, budget: list[int]) -> None:
        self.src = src
        self.nesting = nesting
        self.budget = budget  # nested analyses left, shared by the whole call
        self.commands: list[list[str]] = []
        self.reasons: list[str] = []
        self.read_paths: list[str] = []
        self.write_paths: list[str] = []
        self.mentions: list[list[str]] = []

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
            if self.text(node).startswith("`") and _BACKQUOTE_ESCAPE.search(self.text(node)):
                self.unsafe("backslash escapes inside backquotes (nested substitution)")
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
            self.note_mentions(argv)

    def note_mentions(self, argv: list[str]) -> None:
        """Word runs of a command that might run its arguments (``noglob rm x``,
        ``python3 -c 'os.system("rm x")'``), for deny rules to ask about."""
        if _base(argv[0]) in PURE:
            return
        self.mentions.append(argv[1:])
        for word in argv[1:]:
            tokens = _TOKEN.findall(word)
            if tokens and tokens != [word]:
                self.mentions.append(tokens)
        if any(_SUBSCRIPT_CODE.search(word) for word in argv[1:]):
            self.unsafe("a word bash may evaluate as an array subscript (a[$(...)])")

    def check_name(self, name: str, flags: set[str]) -> None:
        if flags & {"expansion", "glob", "brace", "tilde"} or UNKNOWN in name or \
                name.startswith("="):  # zsh: =rm is the path of rm
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
        start = next((c for c in node.named_children if c.type == "heredoc_start"), None)
        quoted = start is not None and any(q in self.text(start) for q in "'\"\\")
        for child in node.named_children:
            if child.type == "heredoc_body":
                if not quoted and self._unseen_expansions(child):
                    self.unsafe("substitutions in a here-document the parser does not see")
                for part in child.named_children:
                    if part.type != "heredoc_content":
                        self.word(part, depth)
            elif child.type.endswith("redirect"):
                self.redirect(child, depth)
            elif child.type not in ("heredoc_start", "heredoc_end"):
                self.stmt(child, depth + 1)

    def _unseen_expansions(self, body: Any) -> bool:
        """Whether an unquoted here-document body holds substitutions tree-sitter
        missed (backquotes; ``$(...)`` under ``<<-`` with tab-indented lines)."""
        text = re.sub(r"\\.", "", self.text(body), flags=re.DOTALL)
        if "`" in text:
            return True
        wanted = len(re.findall(r"\$[({\[]", text))
        seen = [self.text(c) for c in body.named_children if c.type != "heredoc_content"]
        return wanted > len([t for t in seen if re.match(r"\$[({\[]", t)])

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


def is_interpreter(name: str) -> bool:
    """Whether ``name`` (a base name) is a language interpreter (python, node, ...)."""
    return _INTERPRETER.match(name) is not None


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
    if name in REDEFINERS:
        return f"'{name}' changes what command names mean"
    if name in SHELLS and any(a.startswith("-") and "c" in a for a in argv[1:]):
        return f"'{name} -c' runs a command string"
    if name in SHELLS and _reads_program(argv[1:], shell=True):
        return f"'{name}' reads the commands to run from its input"
    if _INTERPRETER.match(name) and _reads_program(argv[1:], shell=False):
        return f"'{name}' reads the program to run from its input"
    if name in STDIN_PROGRAMS or (name in ("vi", "vim", "nvim") and "-e" in argv[1:]) or (
            name in _SCRIPTED and _program_from_stdin(argv[1:])):
        return f"'{name}' may read commands to run from its input"
    if name == "find" and FIND_RUNNERS & set(argv):
        return "find with -exec/-ok/-delete"
    if name == "git" and any(a in ("-c", "--config-env", "--exec-path") or
                             a.startswith(("--config-env=", "--exec-path=")) for a in argv):
        return "git -c can run arbitrary programs"
    if name == "rg" and any(a.startswith(("--pre", "--hostname-bin")) for a in argv):
        return "rg --pre / --hostname-bin runs a program"
    return None


def _program_from_stdin(args: list[str]) -> bool:
    """``awk -f -``, ``sed -f /dev/stdin``, ``make --file=-``: a program file that is stdin."""
    for i, flag in enumerate(args):
        value = args[i + 1] if i + 1 < len(args) else ""
        if "=" in flag and flag.split("=", 1)[0] in _PROGRAM_FILE_FLAGS:
            flag, value = flag.split("=", 1)
        if flag in _PROGRAM_FILE_FLAGS and (value in _STDIN_PATHS or UNKNOWN in value):
            return True
    return False


def _reads_program(args: list[str], *, shell: bool) -> bool:
    """Whether a shell or interpreter takes its program from stdin (no script
    file, ``-``, ``-s``, ``/dev/stdin``, or a file known only at run time)."""
    skip = False
    for i, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg == "--":
            rest = args[i + 1:]
            return not rest or rest[0] in _STDIN_PATHS or UNKNOWN in rest[0]
        if shell and arg in _SHELL_OPT_ARGS:
            skip = True
            continue
        if (arg.startswith("-") and arg != "-") or (shell and arg.startswith("+")):
            if shell and arg.startswith("-") and not arg.startswith("--") and "s" in arg:
                return True  # bash -s: commands from stdin
            if not shell and (arg in _CODE_FLAGS or arg.split("=", 1)[0] in _CODE_FLAGS):
                return False  # the program is on the command line
            continue
        return arg in _STDIN_PATHS or UNKNOWN in arg
    return True
