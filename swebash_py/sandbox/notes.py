"""The lines a sandboxed command's result carries for the model: where it ran
(always), and why it may have failed (a denied unix socket named as such)."""

from __future__ import annotations

import re
import sys

from swebash_py.sandbox import seccomp
from swebash_py.sandbox.policy import SandboxPolicy

_DENIED = re.compile(
    r"Read-only file system|Permission denied|Operation not permitted|"
    r"Network is unreachable|Could not resolve host|Temporary failure in name resolution|"
    r"Name or service not known|No address associated|Connection refused|"
    r"getaddrinfo|\bEROFS\b|\bEACCES\b|\bEPERM\b|\bENETUNREACH\b", re.IGNORECASE)


# a unix socket the seccomp filter refused (EPERM from socket()), as programs word it
_SOCKET = re.compile(
    r"(?:socket|\bunix\b|\.sock\b|AF_UNIX|docker|agent|dbus)[\s\S]{0,300}?"
    r"(?:Operation not permitted|\bEPERM\b)|"
    r"(?:Operation not permitted|\bEPERM\b)[^\n]{0,160}?(?:socket|\bunix\b|\.sock\b)",
    re.IGNORECASE)


def status_note(policy: SandboxPolicy) -> str:
    """One line (≤120 chars) saying where the command ran."""
    write = "workspace writable" if policy.mode == "workspace-write" else "read-only"
    net = "IP network on" if policy.network else "no network"
    line = (f"[sandbox: {write}, {net}, {_unix_sockets()}, own processes only; "
            "host state needs escalate: true]")
    return line[:120]


def _unix_sockets() -> str:
    """Seatbelt denies them; on Linux the seccomp filter does, where it knows the arch."""
    return ("no unix sockets" if sys.platform == "darwin" or seccomp.supported()
            else "unix sockets open")


def access_note(output: str, policy: SandboxPolicy) -> str | None:
    """A line when the output looks like a failure for lack of access."""
    if _SOCKET.search(output):
        return ("[this may have failed because unix sockets (docker, ssh or gpg agents, "
                "databases, local servers) are blocked in the sandbox; to reach one, call "
                "again with escalate: true (the user is asked)]")
    found = _DENIED.search(output)
    if found is None:
        return None
    return (f"[this may have failed because of the sandbox ({policy.mode}: "
            f"\"{found.group(0)}\"); to run it outside the sandbox, call again "
            "with escalate: true (the user is asked)]")
