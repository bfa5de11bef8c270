"""A preview run: the command in the sandbox, its writes caught by an overlay.

``run_preview(argv, policy, ...)`` runs ``argv`` under the same bwrap command
line as a ``workspace-write`` run, inside the namespace ``sandbox.overlay``
sets up, and returns a ``Preview``: the process result, the change set, and
``apply()`` / ``discard()``. It raises ``PreviewUnavailable`` (with a one-line
reason) when the overlay cannot be set up for this command; the caller then
falls back to the ordinary question before the run.

``PreviewRunner`` is the same run behind the one execution seam
(``sandbox.runner.Runner``): a tool hands it an ``ExecRequest`` as it would the
ordinary runner and gets the ``ProcResult``; the executor, which chose it, then
takes the ``Preview`` (the change set and the held overlay) to settle.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from swebash_py.preview.apply import ApplyReport, Journal, apply
from swebash_py.preview.changes import ChangeSet, read_changes
from swebash_py.process.proc import ProcResult, run_process
from swebash_py.sandbox import bwrap, overlay, seccomp
from swebash_py.sandbox.env import sandbox_env
from swebash_py.sandbox.policy import SandboxPolicy
from swebash_py.sandbox.runner import ExecRequest, RunnerUnavailable

FULL_BELOW = 1 << 20  # a bounded tmpfs with less than this free counts as full
FEW_FILES = 64  # ... or with fewer files left than this (its inode bound)
BACKGROUND_REFUSED = "a background command runs until stopped, with no end to preview"


class PreviewUnavailable(RunnerUnavailable):
    """The overlay cannot be set up for this command (the reason is one line)."""


@dataclass
class Preview:
    """A finished preview: the result, the changes, and the held overlay."""

    result: ProcResult
    changes: ChangeSet
    max_mb: int
    over_bound: bool = False
    _fd: int = -1
    _closed: bool = field(default=False, repr=False)

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    def apply(self, journal: Journal | None = None, *, keep: bool = False) -> ApplyReport:
        """Apply the changes (never past the bound), then free the overlay
        (``keep``: not yet, the conflicts may still be applied)."""
        if self.over_bound:
            self.discard()  # nothing of it is ever applied: free it now
            raise PreviewUnavailable(bound_message(self.max_mb))
        try:
            return apply(self.changes, journal)
        finally:
            if not keep:
                self.discard()

    def apply_conflicts(self, report: ApplyReport, journal: Journal | None = None
                        ) -> ApplyReport:
        """Apply what conflicted, overwriting the user's changes (they said so)."""
        from swebash_py.preview.apply import INSIDE_SKIPPED

        try:
            redo = ChangeSet([c for c, _ in report.conflicts], self.changes.start_ns)
            force = frozenset(c.path for c, why in report.conflicts if why != INSIDE_SKIPPED)
            return apply(redo, journal, force)
        finally:
            self.discard()

    def discard(self) -> None:
        """Free the overlay: nothing of the preview remains."""
        if not self._closed and self._fd >= 0:
            os.close(self._fd)
        self._closed = True

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.discard()


def bound_message(max_mb: int) -> str:
    files = max_mb * overlay.INODES_PER_MB
    return (f"the preview wrote more than its bound ([sandbox] preview_max_mb = {max_mb}: "
            f"{max_mb} MiB or {files:,} files) and was stopped; nothing was applied")


def over_bound(fd: int) -> bool:
    """Whether the overlay's tmpfs is (nearly) full, in bytes or in files."""
    st = os.fstatvfs(fd)
    return st.f_bavail * st.f_frsize < FULL_BELOW or st.f_favail < FEW_FILES


def refused_note(refused: list[Path], workspace: Path) -> str:
    """The line a result carries when settings changes were dropped."""
    names = ", ".join(str(p.relative_to(workspace)) if p.is_relative_to(workspace) else str(p)
                      for p in refused[:5])
    more = f" and {len(refused) - 5} more" if len(refused) > 5 else ""
    return (f"[the preview discarded the command's changes to settings: {names}{more} "
            "(settings are never the sandbox's to write)]")


def preview_roots(policy: SandboxPolicy) -> list[Path]:
    return [Path(p) for p in dict.fromkeys(
        [policy.workspace, *[r for r in policy.writable_roots if r.is_dir()]])]


async def run_preview(argv: list[str], policy: SandboxPolicy, *, timeout: float,
                      max_mb: int = 1024,
                      on_output: Callable[[str], None] = lambda _t: None,
                      extra_env: Mapping[str, str] | None = None,
                      head: int = 15_000, tail: int = 15_000) -> Preview:
    """Run ``argv`` as a preview under ``policy`` (made ``workspace-write``)."""
    found = overlay.support()
    if not found.ok:
        raise PreviewUnavailable(found.reason)
    policy = dataclasses.replace(policy, mode="workspace-write")
    roots = preview_roots(policy)
    why = overlay.why_not(roots)
    if why is not None:
        raise PreviewUnavailable(why)
    seccomp_fd = seccomp.filter_fd() if seccomp.supported() else None
    inner = overlay.inner_bwrap(bwrap.bwrap_argv(policy, argv, bwrap.probe().path or "bwrap",
                                                 seccomp_fd=seccomp_fd))
    mount_dir = tempfile.mkdtemp(prefix="swebash-preview-", dir=overlay.tmpfs_parent())
    holder = _Holder(mount_dir)
    start_ns = time.time_ns()
    try:
        res = await run_process(
            overlay.namespace_argv(roots, mount_dir, max_mb, holder.ready_w, holder.go_r, inner),
            cwd=policy.workspace, env=sandbox_env(extra=extra_env), timeout=timeout,
            on_output=on_output, head=head, tail=tail,
            pass_fds=(*holder.child_ends, *([] if seccomp_fd is None else [seccomp_fd])),
            on_start=holder.started)
        fd = await holder.result()
    except BaseException:
        await holder.abandon()
        raise
    finally:
        holder.close()
        if seccomp_fd is not None:
            os.close(seccomp_fd)
        with contextlib.suppress(OSError):
            os.rmdir(mount_dir)
    if fd < 0:
        raise PreviewUnavailable(_setup_error(res))
    if 128 < res.returncode <= 128 + 64:  # bwrap reports a child's signal as 128+N
        res = dataclasses.replace(res, returncode=128 - res.returncode)
    try:
        over = over_bound(fd)
        uppers = [(root, f"/proc/self/fd/{fd}/{i}/up") for i, root in enumerate(roots)]
        changes = ChangeSet(start_ns=start_ns) if over else \
            await asyncio.to_thread(read_changes, uppers, start_ns, policy.guarded)
    except BaseException:
        os.close(fd)
        raise
    return Preview(res, changes, max_mb, over, fd)


class PreviewRunner:
    """A runner whose writes are caught, not made: one per previewed call."""

    writes_land = False  # the change set drops settings; nothing to sweep

    def __init__(self, max_mb: int) -> None:
        self.max_mb = max_mb
        self.preview: Preview | None = None  # the last run's, until it is taken
        self.workspace = Path()  # the last run's workspace (its changes' names are shown
        # relative to it)

    async def run(self, request: ExecRequest) -> ProcResult:
        """Run ``request`` as a preview (``PreviewUnavailable``: nothing ran)."""
        self.discard()  # a second run replaces the first: never hold two overlays
        self.workspace = request.policy.workspace
        self.preview = await run_preview(
            request.argv, request.policy, timeout=request.timeout, max_mb=self.max_mb,
            on_output=request.on_output, extra_env=request.extra_env,
            head=request.head, tail=request.tail)
        return self.preview.result

    async def start(self, request: ExecRequest) -> asyncio.subprocess.Process:
        """Refused: an overlay is caught and settled after one run that ends; a
        command that runs until stopped has no end to settle at."""
        raise PreviewUnavailable(BACKGROUND_REFUSED)

    def discard(self) -> None:
        if self.preview is not None:
            self.preview.discard()


def _setup_error(res: ProcResult) -> str:
    lines = [ln for ln in res.output.strip().splitlines() if ln.strip()]
    return f"the overlay could not be set up ({lines[-1] if lines else 'no message'})"


class _Holder:
    """The handshake: wait for "ready", open the tmpfs through /proc, say "go"."""

    def __init__(self, mount_dir: str) -> None:
        self.mount_dir = mount_dir
        self.ready_r, self.ready_w = os.pipe()
        self.go_r, self.go_w = os.pipe()
        self.task: asyncio.Future[int] | None = None

    @property
    def child_ends(self) -> tuple[int, int]:
        return (self.ready_w, self.go_r)

    def started(self, pid: int) -> None:
        self._close("ready_w", "go_r")  # so "ready" reads EOF if the child dies
        self.task = asyncio.get_running_loop().run_in_executor(None, self._handshake, pid)

    def _handshake(self, pid: int) -> int:
        if os.read(self.ready_r, 64).strip() != b"ready":
            return -1
        try:
            fd = os.open(f"/proc/{pid}/root{self.mount_dir}", os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return -1
        with contextlib.suppress(OSError):
            os.write(self.go_w, b"go\n")
        return fd

    async def result(self) -> int:
        return await self.task if self.task is not None else -1

    async def abandon(self) -> None:
        """Cancelled or failed: the child is dead, so the handshake ends; drop its fd."""
        if self.task is not None:
            with contextlib.suppress(BaseException):
                fd = await asyncio.shield(self.task)
                if fd >= 0:
                    os.close(fd)

    def _close(self, *names: str) -> None:
        for name in names:
            fd = getattr(self, name)
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
                setattr(self, name, -1)

    def close(self) -> None:
        self._close("ready_r", "ready_w", "go_r", "go_w")
