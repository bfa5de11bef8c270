"""Linux: a copy-on-write overlay over the writable roots, for a preview run.

bubblewrap before 0.9 has no ``--overlay``, and bwrap's own overlay would put
the upper directory on a host path with no size bound. So we set the overlay
up ourselves, in a private mount namespace (a user namespace too when we are
not root: ``unshare --user --map-root-user --mount``), then run the very same
``bwrap`` command line inside it:

1. a tmpfs of ``preview_max_mb`` is mounted on an empty host directory under
   /tmp (which the sandbox's own /tmp hides from the command): the kernel
   enforces the bound, nothing is written to disk, and it needs no quota. It
   is bounded in files too (``nr_inodes``, ``INODES_PER_MB`` per MiB): an
   empty file costs no bytes but ~2 KB of kernel memory, so 150,000 of them
   would take ~285 MB that the byte bound never sees;
2. for each writable root ``R`` (index ``i``) an overlay
   ``userxattr,lowerdir=R,upperdir=T/i/up,workdir=T/i/wk`` is mounted on ``R``
   (``userxattr``: whiteouts and opaque directories work inside a user
   namespace; without it removing a directory fails with EIO); as root,
   ``index=on`` with trusted xattrs instead (hard links survive copy-up,
   see ``INDEXED``), falling back to ``userxattr``;
3. the set-up shell (bash: it can close descriptors past 9) says it is
   ready; we open the tmpfs through ``/proc/<pid>/root`` and keep that
   descriptor, then let it close the handshake pipes and ``exec bwrap``.

The held descriptor keeps the tmpfs alive after the namespace is gone, so the
change set is read from ``/proc/self/fd/<fd>/<i>/up`` at leisure; closing it
frees the tmpfs, and so does the kernel if ``ai`` dies: however a preview
ends, its overlay is removed.
"""

from __future__ import annotations

import functools
import os
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

SETUP_FAILED = 125
# files (and directories, symlinks...) per MiB of the bound: 1024 MiB, 102,400
# files (~200 MB of kernel memory at most), far more than a build or an install
# writes per MiB; a preview past it stops like one past its bytes
INODES_PER_MB = 100
# $1 tmpfs dir, $2 MiB, $3 ready fd, $4 go fd, $5 overlay options, $6 number of
# roots, then roots, then argv. The options are tried, then ``userxattr`` alone.
SETUP = r"""
t=$1 mb=$2 ready=$3 go=$4 opts=$5 n=$6
shift 6
mount -t tmpfs -o "size=${mb}m,nr_inodes=$((mb * INODES_PER_MB)),mode=0700" \
  swebash-preview "$t" || exit 125
i=0
while [ "$i" -lt "$n" ]; do
  mkdir "$t/$i" "$t/$i/up" "$t/$i/wk" || exit 125
  mount -t overlay -o "$opts,lowerdir=$1,upperdir=$t/$i/up,workdir=$t/$i/wk" \
    swebash-preview "$1" 2>/dev/null ||
  mount -t overlay -o "$PLAIN,lowerdir=$1,upperdir=$t/$i/up,workdir=$t/$i/wk" \
    swebash-preview "$1" || exit 125
  shift
  i=$((i + 1))
done
echo ready >&"$ready"
eval "exec $ready>&-"
read -r _go <&"$go" || exit 125
eval "exec $go<&-"
exec "$@"
"""
_UNSAFE = (",", ":", "\\", "\n")
# Never redirects or metadata-only copy-ups: the change set reader reads whole
# upper files and plain directories (``userxattr`` already rules redirects out,
# and an unprivileged mount may not name ``redirect_dir``).
PLAIN = "userxattr,metacopy=off"
# As root: trusted xattrs, so the inode index can be on; a copy-up of a file
# with other names then keeps them one inode (a write to one name shows in all,
# as it would when run directly), and the upper copy names its origin; and
# redirects, so a renamed directory is a rename (not a copy) that apply repeats.
INDEXED = "index=on,redirect_dir=on,metacopy=off"


@dataclass(frozen=True)
class Support:
    """Whether previews work here, how, and why not."""

    ok: bool
    how: str  # "unshare + overlay (userxattr) + bwrap", or ""
    reason: str = ""


def namespace_argv(roots: list[Path], tmpfs_dir: str, max_mb: int, ready: int, go: int,
                   inner: list[str]) -> list[str]:
    """``unshare ... sh -c SETUP`` that mounts the overlays then execs ``inner``."""
    unshare = shutil.which("unshare") or "unshare"
    ns = [unshare, "--mount", "--propagation", "private"]
    if os.geteuid() != 0:
        ns[1:1] = ["--user", "--map-root-user"]
    bash = shutil.which("bash") or "/bin/bash"
    opts = INDEXED if os.geteuid() == 0 else PLAIN
    setup = f"PLAIN={PLAIN} INODES_PER_MB={INODES_PER_MB}\n{SETUP}"
    return [*ns, bash, "-c", setup, "swebash-preview", tmpfs_dir,
            str(max_mb), str(ready), str(go), opts, str(len(roots)), *map(str, roots), *inner]


def inner_bwrap(argv: list[str]) -> list[str]:
    """The bwrap command line as run inside our namespace: unprivileged, we are
    root there, so bwrap is told the real ids (the command sees what it sees
    when run directly)."""
    if os.geteuid() == 0:
        return argv
    return [argv[0], "--unshare-user", "--uid", str(os.getuid()), "--gid", str(os.getgid()),
            *argv[1:]]


def tmpfs_parent() -> str:
    """Where the empty mount point goes: /tmp, which the sandbox replaces."""
    return "/tmp" if os.path.isdir("/tmp") and not os.path.islink("/tmp") \
        else tempfile.gettempdir()


def _unescape(field: str) -> str:
    return field.encode().decode("unicode_escape") if "\\" in field else field


def mount_points() -> list[Path]:
    """Every mount point of this mount namespace."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as fh:
            return [Path(_unescape(line.split()[4])) for line in fh if len(line.split()) > 4]
    except OSError:
        return []


def why_not(roots: list[Path]) -> str | None:
    """Why these roots cannot be overlaid for one command (None: they can)."""
    for root in roots:
        if any(ch in str(root) for ch in _UNSAFE):
            return f"{root} has a character overlay options cannot hold"
        if not root.is_dir():
            return f"{root} is not a directory"
    for a in roots:
        for b in roots:
            if a != b and b.is_relative_to(a):
                return f"{b} lies inside {a}"
    for point in mount_points():
        for root in roots:
            if point != root and point.is_relative_to(root):
                return f"{point} is a mount point inside {root}"
    return None


@functools.lru_cache(maxsize=1)
def support() -> Support:
    """Try it once (cached): a tiny tree, a command that appends to a file and
    removes a directory; the upper directory must show exactly that."""
    from swebash_py.sandbox import bwrap

    if not os.path.exists("/proc/self/mountinfo"):
        return Support(False, "", "previews need Linux (overlayfs in a mount namespace)")
    found = bwrap.probe()
    if not found.ok or found.path is None:
        return Support(False, "", f"the sandbox is not available: {found.reason}")
    for tool, package in (("unshare", "util-linux"), ("bash", "bash")):
        if shutil.which(tool) is None:
            return Support(False, "", f"{tool} ({package}) was not found on PATH")
    with tempfile.TemporaryDirectory(prefix="swebash-probe-") as tmp:
        root = Path(tmp) / "ws"
        (root / "d").mkdir(parents=True)
        (root / "d" / "x").write_text("x")
        (root / "f").write_text("a")
        try:
            return _trial(root, found.path)
        except (OSError, subprocess.SubprocessError) as exc:
            return Support(False, "", f"the overlay trial could not run: {exc}")


def _trial(root: Path, bwrap_path: str) -> Support:
    from swebash_py.sandbox.bwrap import bwrap_argv
    from swebash_py.sandbox.policy import SandboxPolicy

    policy = SandboxPolicy("workspace-write", root)
    inner = inner_bwrap(bwrap_argv(policy, ["/bin/sh", "-c", "echo b >> f && rm -r d"],
                                   bwrap_path))
    mount_dir = tempfile.mkdtemp(prefix="swebash-preview-", dir=tmpfs_parent())
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    held = -1
    try:
        argv = namespace_argv([root], mount_dir, 4, ready_w, go_r, inner)
        proc = subprocess.Popen(argv, pass_fds=(ready_w, go_r), stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                cwd=root, start_new_session=True)
        os.close(ready_w)
        os.close(go_r)
        ready_w = go_r = -1
        if os.read(ready_r, 64).strip() == b"ready":
            held = os.open(f"/proc/{proc.pid}/root{mount_dir}", os.O_RDONLY | os.O_DIRECTORY)
        if held >= 0:
            os.write(go_w, b"go\n")
        try:
            _out, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise
        if held < 0:
            why = (err.decode(errors="replace").strip().splitlines() or ["no message"])[-1]
            return Support(False, "", f"the overlay could not be mounted ({why})")
        if proc.returncode != 0:
            why = (err.decode(errors="replace").strip().splitlines() or ["no message"])[-1]
            return Support(False, "", f"a command could not run in the overlay ({why})")
        upper = Path(f"/proc/self/fd/{held}/0/up")
        whiteout = os.lstat(upper / "d")
        appended = (upper / "f").read_text()
        if not (stat.S_ISCHR(whiteout.st_mode) and whiteout.st_rdev == 0 and appended == "ab\n"
                and (root / "d" / "x").exists() and (root / "f").read_text() == "a"):
            return Support(False, "", "the overlay did not record the trial's changes")
        return Support(True, "unshare + overlay (userxattr) + bwrap")
    finally:
        for fd in (ready_r, ready_w, go_r, go_w, held):
            if fd >= 0:
                os.close(fd)
        os.rmdir(mount_dir)
