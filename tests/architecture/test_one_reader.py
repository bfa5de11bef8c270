"""Issue #27: one reader. Nothing in the package opens a file except the one reader
(``swebash_py.fs.reader``) and the places listed below, each with why it is not a
user file read for the model. A new ``read_text``/``read_bytes``/``open(`` elsewhere
fails here: read it through ``fs.reader`` (or, if it truly is not a user file for
the model, add it to the list with the reason)."""

from __future__ import annotations

import ast
from pathlib import Path

import swebash_py

PACKAGE = Path(swebash_py.__file__).parent

# Whole modules: the doors themselves.
DOORS = {
    "swebash_py.fs.reader": "the one reader",
    "swebash_py.fs.writer": "the one writer (its reads are of the file it replaces)",
    "swebash_py.fs.folder": "the one writer's per-folder operations (fs.writer's own)",
}

# (module, function) -> why this read is not a user file entering the model's context.
ALLOWED = {
    # -- our own configuration, data and state (never the user's files) --
    ("swebash_py.config.settings", "read_config_file"): "our config file (not model context)",
    ("swebash_py.approvals.remembered", "_read"): "our approvals.json in the data dir",
    ("swebash_py.approvals.remembered", "_locked"): "the lock file beside approvals.json",
    ("swebash_py.sandbox.pathindex", "PathIndex._load"): "our persisted secrets/settings index "
                                                         "in the data dir (never model context)",
    ("swebash_py.project.trust", "_records"): "our trust store in the data dir",
    ("swebash_py.shellhist.store", "_read"): "the shell history our snippet appends to, in "
        "the data dir (O_NOFOLLOW; redacted before the model sees it)",
    ("swebash_py.project.fingerprint", "_entry"): "digests .swebash/ files to bind trust "
                                                  "to them (hashed, never shown or sent)",
    ("swebash_py.project.trust", "_write"): "writes our trust store",
    ("swebash_py.team.host", "_host_id"): "our host id file in the data dir",
    ("swebash_py.images.__init__", "load"): "an image we stored (by its hash) in the data dir",
    ("swebash_py.images.__init__", "downscale"): "Image.open of bytes in memory, no file",
    ("swebash_py.config.paths", "private_file"): "creates our own private file (O_CREAT|O_EXCL)",
    ("swebash_py.mcpclient.connection", "ServerConnection._transport"):
        "appends an MCP server's stderr to our log in the data dir",
    ("swebash_py.mcpclient.connection", "last_log_line"): "reads back that log of ours",
    # -- files shipped with the package --
    ("swebash_py.cli.commands.config_cmd", "example_text"): "our packaged example config",
    ("swebash_py.engine.modelinfo", "model_map"): "the packaged (or cached) model table",
    ("swebash_py.engine.modelinfo", "_load_full"): "litellm's packaged model table",
    ("swebash_py.provider.modelnames", "_litellm_providers"):
        "litellm's packaged source, as text: its provider enum (no import)",
    ("swebash_py.tools.catalog", "entries"): "our packaged tool catalog",
    ("swebash_py.store.soundness", "recorded"): "our sessions.db.sound marker in the data dir",
    ("swebash_py.process.cgroups", "_own_cgroup"): "/proc/self/cgroup, the cgroup fs (kernel)",
    ("swebash_py.process.cgroups", "join"): "cgroup.procs of a cgroup of ours (kernel file)",
    ("swebash_py.process.cgroups", "members"): "cgroup.procs of a cgroup of ours (kernel file)",
    ("swebash_py.process.cgroups", "kill"): "cgroup.kill of a cgroup of ours (kernel file)",
    # -- the system and the terminal, not files --
    ("swebash_py.engine.system_prompt", "_os_name"): "/etc/os-release: the OS name only",
    ("swebash_py.engine.system_prompt", "_git_head"): ".git/HEAD (or a .git pointer file): "
        "the branch name only, 256 bytes at most",
    ("swebash_py.process.reaper", "live_processes"): "/proc/PID/stat to find our children",
    ("swebash_py.sandbox.overlay", "mount_points"): "/proc/self/mountinfo",
    ("swebash_py.sandbox.overlay", "_trial"): "a probe overlay in a temp dir of ours",
    ("swebash_py.sandbox.bwrap", "empty_file"): "creates an empty file to mask a secret",
    ("swebash_py.preview.run", "_Holder._handshake"): "/proc/PID/root of our preview holder",
    ("swebash_py.ui.tty_asker", "_ask_on_tty"): "writes the question to /dev/tty",
    ("swebash_py.ui.terminal", "terminal_fd"): "/dev/tty: the one door for questions",
    ("swebash_py.front.warmup", "_do"): "appends to the import trace a test asked for (env)",
    ("swebash_py.preview.summary", "_write_list"): "writes the deleted files' list to a "
        "private temp file of ours",
    ("swebash_py.cli.pipes", "quiet_broken_pipe"): "/dev/null over a closed stdout",
    ("swebash_py.ui.question", "_spill"): "writes a long preview to a private temp file",
    # -- the writer's side: reads of the workspace to change it, shown to the user --
    ("swebash_py.atomic", "write_atomic"): "atomic write of our own files",
    ("swebash_py.atomic", "backup"): "copies our own file before replacing it",
    ("swebash_py.tools.edit", "read_text"):
        "edit_file/write_file read the file they replace (resolved, approved, capped by "
        "stat; the writer's to move into fs.writer)",
    ("swebash_py.checkpoints.model", "FileState.of"): "a checkpoint of a file about to change",
    ("swebash_py.checkpoints.model", "FileState.full_of"): "the same, in full for /undo",
    ("swebash_py.preview.summary", "_text"):
        "a preview's changed file (in our overlay), capped, for the changes question",
    ("swebash_py.preview.bytecode", "_read_upper"):
        "a preview's new .pyc (in our overlay), capped, compared with the compiled source "
        "to decide whether it may apply unasked (never shown or sent)",
    # -- search: walks the workspace under workspace.SecretsFilter --
    ("swebash_py.tools.search", "GitIgnore.load"): ".gitignore rules, not content",
    ("swebash_py.tools.find", "_Ignores.load"): ".gitignore rules, not content",
    ("swebash_py.tools.search", "_Search._file"):
        "search_files' pure-Python fallback (no rg): lstat-checked regular files that "
        "workspace.SecretsFilter lets through, line matches only. Known second opener: "
        "it should open through fs.reader.open_regular (owned by the search tool's work)",
}

READS = frozenset({"read_text", "read_bytes"})  # any mention: also passed as a function
OPENS = frozenset({"open", "fdopen", "FileIO"})  # as a call: os.open, Path.open, io.FileIO


def opens(source: str) -> list[tuple[str, int, str]]:
    """(enclosing function, line, what) for each file read or open in ``source``."""
    found: list[tuple[str, int, str]] = []
    stack: list[str] = []

    class Visitor(ast.NodeVisitor):
        def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef
                              | ast.ClassDef) -> None:
            stack.append(node.name)
            self.generic_visit(node)
            stack.pop()

        visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef  # type: ignore[assignment]

        def visit_Attribute(self, node: ast.Attribute) -> None:
            if node.attr in READS and isinstance(node.ctx, ast.Load):
                found.append((".".join(stack) or "<module>", node.lineno, node.attr))
            self.generic_visit(node)

        def visit_Call(self, node: ast.Call) -> None:
            func = node.func
            name = (func.id if isinstance(func, ast.Name)
                    else func.attr if isinstance(func, ast.Attribute) else "")
            if name in OPENS:
                found.append((".".join(stack) or "<module>", node.lineno, name))
            self.generic_visit(node)

    Visitor().visit(ast.parse(source))
    return found


def unlisted(module: str, source: str) -> list[str]:
    if module in DOORS:
        return []
    return [f"{module}:{line} {what} in {where}" for where, line, what in opens(source)
            if (module, where) not in ALLOWED]


def _package() -> dict[str, str]:
    return {".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts):
            path.read_text(encoding="utf-8") for path in sorted(PACKAGE.rglob("*.py"))}


def test_no_second_reader_in_the_package() -> None:
    problems = [p for module, source in _package().items() for p in unlisted(module, source)]
    assert problems == [], ("files opened outside swebash_py.fs.reader (read them through "
                            "it, or list why not in ALLOWED):\n" + "\n".join(problems))


def test_no_stale_entries() -> None:
    """An entry whose read is gone would let a new one in unseen: remove it."""
    seen = {(module, where) for module, source in _package().items()
            for where, _line, _what in opens(source)}
    assert sorted(set(ALLOWED) - seen) == []


SECOND_READER = '''
from pathlib import Path

def load_notes(cwd):
    return (cwd / "NOTES.md").read_text()

def load_more(cwd):
    with open(cwd / "MORE.md") as f:
        return f.read()

texts = map(Path.read_bytes, [])
'''


def test_twin_a_second_reader_is_flagged() -> None:
    assert unlisted("swebash_py.project.notes", SECOND_READER) == [
        "swebash_py.project.notes:5 read_text in load_notes",
        "swebash_py.project.notes:8 open in load_more",
        "swebash_py.project.notes:11 read_bytes in <module>",
    ]


def test_twin_the_reader_itself_and_listed_places_pass() -> None:
    assert unlisted("swebash_py.fs.reader", SECOND_READER) == []
    listed = SECOND_READER.replace("def load_notes", "def read_config_file").replace(
        "def load_more", "def read_config_file_too")
    assert unlisted("swebash_py.config.settings", listed) == [
        "swebash_py.config.settings:8 open in read_config_file_too",
        "swebash_py.config.settings:11 read_bytes in <module>"]
