"""One writer (#27): every change to the user's tree goes through
``swebash_py/fs/writer.py`` (and its ``folder.py``), which walks each folder
by descriptor and follows no symlink. A second way to write is a future hole, so this fails when a
file-writing call (``os.replace``/``rename``/``unlink``/``mkdir``/``symlink``/...,
``Path.write_text``/``write_bytes``/``mkdir``/..., ``shutil.*``, ``open`` or
``os.open`` for writing, ``write_atomic``) appears anywhere else in
``swebash_py`` and is not on the allow-list below, each entry with why it is
not the workspace. Twins: a synthetic source with each kind of write is
flagged; the writer itself is seen writing."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "swebash_py"
WRITER = "swebash_py/fs/writer.py"
WRITERS = {WRITER, "swebash_py/fs/folder.py"}  # the one writer, and what it does in a folder
OS_WRITES = {"replace", "rename", "renames", "unlink", "remove", "rmdir", "removedirs", "mkdir",
             "makedirs", "symlink", "link", "mkfifo", "mknod", "chmod", "lchmod", "chown",
             "lchown", "setxattr", "removexattr", "truncate", "utime", "copy_file_range",
             "sendfile"}
# Path's writing methods; mkdir/unlink/rmdir/chmod are also the writer's own
# names, so a call on ``writer`` / ``self.writer`` (the one writer's handle) is it.
PATH_WRITES = {"write_bytes", "write_text", "symlink_to", "hardlink_to", "touch", "mkdir",
               "unlink", "rmdir", "chmod", "lchmod"}
SHUTIL_READS = {"which", "disk_usage", "get_terminal_size"}
WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"}
DEVICES = {"'/dev/tty'", "'/dev/null'", "os.devnull"}  # opened for writing, but not files

# (file, kind of write): why it is not a write to the user's workspace.
ALLOWED: dict[tuple[str, str], str] = {
    ("swebash_py/atomic.py", ".mkdir"): "write_atomic: our own data files (see the write_atomic "
                                        "entries: its callers are all ours)",
    ("swebash_py/atomic.py", "os.chmod"): "write_atomic's temporary file, ours",
    ("swebash_py/atomic.py", "os.replace"): "write_atomic: our own data files",
    ("swebash_py/atomic.py", "os.fdopen(write)"): "write_atomic's temporary file, ours",
    ("swebash_py/atomic.py", "os.unlink"): "write_atomic's temporary file, ours",
    ("swebash_py/atomic.py", "write_atomic"): "backup(): the remembered approvals' .bak",
    ("swebash_py/images/__init__.py", "write_atomic"): "the images dir in our data dir",
    ("swebash_py/engine/modelinfo.py", "write_atomic"): "the model-info cache in our data dir",
    ("swebash_py/approvals/remembered.py", "write_atomic"): "the remembered approvals file",
    ("swebash_py/sandbox/pathindex.py", "write_atomic"): "the persisted secrets/settings index "
                                                          "in our data dir",
    ("swebash_py/shellhist/store.py", "write_atomic"): "this terminal's shell history in our "
        "data dir, rewritten redacted and trimmed",
    ("swebash_py/shellhist/store.py", "os.unlink"): "the shell history files of terminals "
        "unused for 30 days, in our data dir",
    ("swebash_py/approvals/remembered.py", ".mkdir"): "its folder in our config dir",
    ("swebash_py/approvals/remembered.py", "open(write)"): "its lock file beside it",
    ("swebash_py/project/trust.py", ".mkdir"): "the trusted-folders store, our data",
    ("swebash_py/project/trust.py", "os.fdopen(write)"): "the trusted-folders store, our data",
    ("swebash_py/project/trust.py", "os.replace"): "the trusted-folders store, our data",
    ("swebash_py/store/faults.py", ".mkdir"): "our data dir, made private",
    ("swebash_py/config/paths.py", ".chmod"): "our data dir, made private",
    ("swebash_py/config/paths.py", "os.open(write)"): "a private file in our data dir, made 0600",
    ("swebash_py/doctor/checks.py", ".mkdir"): "ai doctor makes our data dir",
    ("swebash_py/cli/commands/config_cmd.py", ".mkdir"): "ai config init: our config file",
    ("swebash_py/cli/commands/config_cmd.py", ".write_text"): "ai config init: our config file",
    ("swebash_py/ui/tty_asker.py", "open(write)"): "the terminal's descriptor",
    ("swebash_py/ui/question.py", "open(write)"): "a private mkdtemp file with the full diff",
    ("swebash_py/mcpclient/connection.py", ".mkdir"): "the MCP log dir, our data",
    ("swebash_py/mcpclient/connection.py", "open(write)"): "an MCP server's stderr log, ours",
    ("swebash_py/mcpclient/manager.py", ".mkdir"): "the MCP log dir, our data",
    ("swebash_py/sandbox/build.py", ".mkdir"): "the sandbox's private dirs in our data",
    ("swebash_py/sandbox/bwrap.py", "open(write)"): "the empty read-only mask file (mkdtemp)",
    ("swebash_py/store/soundness.py", ".write_text"): "sessions.db.sound, our data dir",
    ("swebash_py/front/warmup.py", "open(write)"): "the import trace a test asked for (env)",
    ("swebash_py/preview/summary.py", "open(write)"): "the deleted files' list, a private "
        "temp file of ours",
    ("swebash_py/store/soundness.py", "os.replace"): "sessions.db.sound, our data dir",
    ("swebash_py/process/cgroups.py", ".mkdir"): "our cgroups under the cgroup fs",
    ("swebash_py/process/cgroups.py", "os.open(write)"): "cgroup.procs (kernel file)",
    ("swebash_py/process/cgroups.py", "open(write)"): "cgroup.kill (kernel file)",
    ("swebash_py/process/cgroups.py", "os.rmdir"): "removes our own empty cgroups",
    ("swebash_py/sandbox/bwrap.py", "os.chmod"): "the empty read-only mask file (mkdtemp)",
    ("swebash_py/sandbox/overlay.py", ".mkdir"): "the overlay probe's TemporaryDirectory",
    ("swebash_py/sandbox/overlay.py", ".write_text"): "the overlay probe's TemporaryDirectory",
    ("swebash_py/sandbox/overlay.py", "os.rmdir"): "the overlay's own mount point (mkdtemp)",
    ("swebash_py/preview/run.py", "os.rmdir"): "the overlay's own mount point (mkdtemp)",
    ("swebash_py/preview/journal.py", ".mkdir"): "the apply journal's backup dir, ours",
    ("swebash_py/preview/journal.py", "shutil.copyfile"): "a backup INTO our backup dir",
    ("swebash_py/preview/journal.py", "shutil.rmtree"): "the apply journal's backup dir, ours",
    ("swebash_py/store/faults.py", "os.link"): "a damaged database set aside, our data",
    ("swebash_py/store/faults.py", "os.unlink"): "a damaged database set aside, our data",
    ("swebash_py/store/faults.py", "os.replace"): "a damaged database set aside, our data",
    ("swebash_py/team/host.py", ".mkdir"): "the host id file in our data dir",
    ("swebash_py/team/host.py", ".write_text"): "the host id file in our data dir",
    ("swebash_py/team/host.py", "os.link"): "the host id file in our data dir",
    ("swebash_py/team/host.py", ".unlink"): "the host id file's temporary name",
    ("swebash_py/tools/catalog.py", ".write_text"): "a developer command regenerating our docs",
}


def _writes_mode(call: ast.Call, index: int) -> bool:
    mode = call.args[index] if len(call.args) > index else next(
        (k.value for k in call.keywords if k.arg == "mode"), None)
    return isinstance(mode, ast.Constant) and isinstance(mode.value, str) and \
        any(c in mode.value for c in "wxa+")


def _kind(call: ast.Call) -> str | None:
    """What kind of write ``call`` is (None: not one)."""
    fn = call.func
    if call.args and ast.unparse(call.args[0]) in DEVICES:
        return None
    if isinstance(fn, ast.Name):
        if fn.id == "open" and _writes_mode(call, 1):
            return "open(write)"
        return "write_atomic" if fn.id in ("write_atomic", "backup") else None
    if not isinstance(fn, ast.Attribute):
        return None
    owner = ast.unparse(fn.value)
    if owner == "os":
        if fn.attr == "open" and any(isinstance(n, ast.Attribute) and n.attr in WRITE_FLAGS
                                     for arg in call.args[1:2] for n in ast.walk(arg)):
            return "os.open(write)"
        if fn.attr == "fdopen" and _writes_mode(call, 1):
            return "os.fdopen(write)"
        return f"os.{fn.attr}" if fn.attr in OS_WRITES else None
    if owner == "shutil":
        return None if fn.attr in SHUTIL_READS else f"shutil.{fn.attr}"
    if fn.attr == "open" and _writes_mode(call, 0):
        return "open(write)"
    if fn.attr in PATH_WRITES and not owner.endswith("writer"):
        return f".{fn.attr}"
    return None


def writes_in(source: str) -> list[tuple[int, str]]:
    """(line, kind) of every file-writing call in ``source``."""
    return [(node.lineno, kind) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Call) and (kind := _kind(node)) is not None]


def _sources() -> dict[str, str]:
    return {f"swebash_py/{p.relative_to(PACKAGE)}": p.read_text(encoding="utf-8")
            for p in sorted(PACKAGE.rglob("*.py"))}


def test_nothing_writes_files_outside_the_writer_and_the_allow_list() -> None:
    found = [f"{name}:{line}: {kind}" for name, source in _sources().items()
             if name not in WRITERS for line, kind in writes_in(source)
             if (name, kind) not in ALLOWED]
    assert found == [], "write the workspace through swebash_py.fs.writer, or (only for " \
        "our own data) add an allow-list entry saying why:\n" + "\n".join(found)


def test_every_allow_list_entry_is_still_used() -> None:
    """A stale entry would let a new write in that file pass unseen."""
    seen = {(name, kind) for name, source in _sources().items()
            for _line, kind in writes_in(source)}
    assert sorted(set(ALLOWED) - seen) == []


def test_the_twin_each_kind_of_write_is_flagged() -> None:
    source = "\n".join([
        "import os, shutil",
        "os.replace(tmp, path)",
        "open(path, 'w')",
        "path.write_text('x')",
        "shutil.copy(a, b)",
        "os.open(path, os.O_WRONLY | os.O_CREAT)",
        "write_atomic(path, b'')",
        "path.open(mode='ab')",
        "os.fdopen(fd, 'w')",
    ])
    assert [kind for _line, kind in writes_in(source)] == [
        "os.replace", "open(write)", ".write_text", "shutil.copy", "os.open(write)",
        "write_atomic", "open(write)", "os.fdopen(write)"]


def test_the_twin_reads_and_the_writer_handle_are_not_writes() -> None:
    source = "\n".join([
        "import os, shutil",
        "open(path)",
        "open(path, 'rb')",
        "os.open(path, os.O_RDONLY)",
        "shutil.which('rg')",
        "text.replace('a', 'b')",
        "self.writer.mkdir(path, 0o700)",
        "open('/dev/tty', 'w')",
        "os.open(os.devnull, os.O_WRONLY)",
    ])
    assert writes_in(source) == []


def test_the_writer_is_where_the_writes_are() -> None:
    """Twin of the first test: the scan does see real writes (in the writer)."""
    kinds = {kind for name in WRITERS for _line, kind in writes_in(_sources()[name])}
    assert {"os.rename", "os.mkdir", "os.unlink", "os.symlink", "os.link"} <= kinds
