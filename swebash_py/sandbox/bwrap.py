"""Linux: the ``bwrap`` (bubblewrap) command line for a ``SandboxPolicy``.

Order matters (later mounts cover earlier ones): the whole filesystem
read-only; fresh /dev, /proc (own pid namespace), private /tmp, /var/tmp,
/dev/shm and /run (no host sockets); the writable roots bound read-write
(or the workspace re-bound read-only, in case it lies under /tmp); the
workspace's ``.git`` bound onto itself (a mount point cannot be renamed or
replaced) with its ``config`` and ``hooks`` read-only; the policy's
read-only paths (every ``.swebash`` at any depth, the git root's) bound
read-only onto themselves; then the masks (home secrets, our own config and
data, every secret at any depth of the roots: one list, ``sandbox.secrets``).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from swebash_py.sandbox import seccomp
from swebash_py.sandbox.policy import SandboxPolicy

PRIVATE_DIRS = ("/tmp", "/var/tmp", "/run")
RESOLVER_DIR = "/run/systemd/resolve"  # /etc/resolv.conf points here on systemd hosts
INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap)"


@dataclass(frozen=True)
class Probe:
    """Whether bwrap works here, and why not."""

    ok: bool
    path: str | None
    version: str
    reason: str = ""


@functools.lru_cache(maxsize=1)
def probe() -> Probe:
    """``bwrap --version`` and a trial run, once per process."""
    path = shutil.which("bwrap")
    if path is None:
        return Probe(False, None, "", f"bwrap was not found on PATH: {INSTALL_HINT}")
    fd = seccomp.filter_fd() if seccomp.supported() else None
    filter_args = [] if fd is None else ["--seccomp", str(fd)]
    try:
        version = subprocess.run([path, "--version"], capture_output=True, text=True,
                                 timeout=10).stdout.strip()
        trial = subprocess.run(
            [path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
             "--unshare-all", "--die-with-parent", "--new-session", *filter_args, "--", "true"],
            capture_output=True, text=True, timeout=10, pass_fds=() if fd is None else (fd,))
    except (OSError, subprocess.SubprocessError) as exc:
        return Probe(False, path, "", f"bwrap could not be run: {exc}")
    finally:
        if fd is not None:
            os.close(fd)
    if trial.returncode != 0:
        why = (trial.stderr.strip().splitlines() or ["no message"])[-1]
        return Probe(False, path, version,
                     f"bwrap is installed but cannot create a sandbox here ({why}); "
                     "unprivileged user namespaces may be disabled "
                     "(sysctl kernel.unprivileged_userns_clone=1)")
    return Probe(True, path, version)


@functools.lru_cache(maxsize=1)
def empty_file() -> str:
    """A private, empty, read-only file to mask secret files with."""
    directory = tempfile.mkdtemp(prefix="swebash-mask-")
    path = os.path.join(directory, "empty")
    with open(path, "w"):
        pass
    os.chmod(path, 0o444)
    return path


def bwrap_argv(policy: SandboxPolicy, argv: list[str], bwrap: str = "bwrap",
               seccomp_fd: int | None = None) -> list[str]:
    """The full command line: ``bwrap [options] -- argv``; ``seccomp_fd`` (from
    ``seccomp.filter_fd``, passed to the child) installs the no-unix-sockets filter."""
    out = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for private in PRIVATE_DIRS:
        if os.path.isdir(private) and not os.path.islink(private):
            out += ["--tmpfs", private]
    out += ["--tmpfs", "/dev/shm"]
    if policy.network and os.path.isdir(RESOLVER_DIR):
        out += ["--ro-bind", RESOLVER_DIR, RESOLVER_DIR]
    writable = policy.writable
    workspace = str(policy.workspace)
    if policy.workspace not in writable:
        out += ["--ro-bind", workspace, workspace]
    for root in writable:
        if root.is_dir():
            out += ["--bind", str(root), str(root)]
    out += _git_guards(policy.workspace)
    for path in policy.read_only:
        if os.path.exists(path):
            out += ["--ro-bind", str(path), str(path)]
    out += _masks(policy.hidden)
    out += ["--unshare-all", "--share-net"] if policy.network else ["--unshare-all"]
    if seccomp_fd is not None:
        out += ["--seccomp", str(seccomp_fd)]
    out += ["--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--chdir", workspace, "--", *argv]
    return out


def _git_guards(workspace: Path) -> list[str]:
    git = workspace / ".git"
    if not os.path.lexists(git) or os.path.islink(git):
        return []
    if git.is_file():  # a worktree's "gitdir:" pointer
        return ["--ro-bind", str(git), str(git)]
    out = ["--bind", str(git), str(git)]
    for name in ("config", "hooks", "config.worktree"):
        if os.path.exists(git / name):
            out += ["--ro-bind", str(git / name), str(git / name)]
    return out


def _masks(hidden: tuple[Path, ...]) -> list[str]:
    out: list[str] = []
    paths = list(dict.fromkeys(Path(os.path.realpath(p)) for p in hidden))
    dirs = [p for p in paths if p.is_dir()]
    for path in paths:
        if any(d != path and path.is_relative_to(d) for d in dirs):
            continue  # inside a directory that is masked whole (and read-only)
        if path.is_dir():
            out += ["--tmpfs", str(path), "--remount-ro", str(path)]
        elif path.exists():
            out += ["--ro-bind", empty_file(), str(path)]
    return out
