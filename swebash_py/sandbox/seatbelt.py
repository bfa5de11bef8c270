"""macOS: a ``sandbox-exec`` (Seatbelt) profile for a ``SandboxPolicy``.

Generated and unit-tested here; not run on a Mac by our test suite. Reads are
allowed except the hidden paths; writes only to the writable roots (minus
``.git/config``, ``.git/hooks`` and the read-only paths) and a private
temporary directory; no network unless the policy allows it (and then no
unix sockets); no signals to processes outside the sandbox.
"""

from __future__ import annotations

from pathlib import Path

from swebash_py.sandbox.policy import SandboxPolicy

SANDBOX_EXEC = "/usr/bin/sandbox-exec"


def quote(path: Path | str) -> str:
    """A path as a Seatbelt string literal."""
    text = str(path).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def profile(policy: SandboxPolicy, tmpdir: Path) -> str:
    """The profile text (SBPL)."""
    lines = [
        "(version 1)",
        "(deny default)",
        "(allow process-exec process-fork)",
        "(allow signal (target same-sandbox))",
        "(allow sysctl-read mach-lookup ipc-posix-shm-read-data ipc-posix-shm-read-metadata)",
        "(allow file-read*)",
        f"(allow file-write* (subpath {quote(tmpdir)}))",
        '(allow file-write* (literal "/dev/null") (literal "/dev/zero"))',
    ]
    for root in policy.writable:
        lines.append(f"(allow file-write* (subpath {quote(root)}))")
    git = policy.workspace / ".git"
    guarded = [git, git / "config", git / "hooks", *policy.read_only]
    for path in guarded:
        lines.append(f"(deny file-write* (subpath {quote(path)}))" if path != git
                     else f"(deny file-write-unlink (literal {quote(path)}))")
    for path in policy.hidden:
        lines.append(f"(deny file-read* file-write* (subpath {quote(path)}))")
    if policy.network:
        lines.append("(allow network-outbound (remote ip))")
        lines.append("(allow network-inbound (local ip))")
        lines.append("(allow system-socket)")
    return "\n".join(lines) + "\n"


def seatbelt_argv(policy: SandboxPolicy, argv: list[str], tmpdir: Path) -> list[str]:
    """``sandbox-exec -p PROFILE argv``."""
    return [SANDBOX_EXEC, "-p", profile(policy, tmpdir), *argv]
