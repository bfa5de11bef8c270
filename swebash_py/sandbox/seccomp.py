"""The seccomp filter bwrap installs (``--seccomp FD``): no unix sockets.

A read-only bind still lets ``connect()`` reach a socket file (docker, an ssh
or gpg agent, a database in ``$HOME`` or ``/var/lib``), and ``--share-net``
shares the host's abstract sockets: a list of masks can never be complete.
The wall is one rule: ``socket(AF_UNIX, ...)`` fails with EPERM, whatever the
address would be. ``socketpair`` stays allowed (a connected pair reaches
nothing outside, and pipes-like uses keep working); io_uring, which can
create and connect sockets without the ``socket`` system call, reports ENOSYS
(programs fall back to plain system calls). Any architecture but x86_64 and
aarch64 (an ``int 0x80`` i386 call from a 64-bit process, arm32 compat) and
x32 system call numbers kill the process: their socket calls could not be
told apart.

Classic BPF over ``struct seccomp_data`` (``nr`` at 0, ``arch`` at 4,
``args[i]`` at 16 + 8i; the low 32 bits first on both little-endian arches).
"""

from __future__ import annotations

import errno
import os
import platform
import struct
from dataclasses import dataclass

# BPF opcodes (linux/filter.h)
LD_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
RET = 0x06  # BPF_RET | BPF_K

RET_KILL_PROCESS = 0x80000000
RET_ALLOW = 0x7FFF0000
RET_ERRNO = 0x00050000
DENY_SOCKET = RET_ERRNO | errno.EPERM
NO_IO_URING = RET_ERRNO | errno.ENOSYS

OFF_NR, OFF_ARCH, OFF_ARG0 = 0, 4, 16
AF_UNIX = 1
X32_SYSCALL_BIT = 0x40000000
IO_URING = (425, 426, 427)  # setup, enter, register: the same numbers on every arch


@dataclass(frozen=True)
class Arch:
    name: str
    audit: int  # AUDIT_ARCH_*
    socket: int  # __NR_socket
    x32_bit: bool = False  # numbers with X32_SYSCALL_BIT set are the x32 ABI


ARCHES = (
    Arch("x86_64", 0xC000003E, 41, x32_bit=True),
    Arch("aarch64", 0xC00000B7, 198),
)

Insn = tuple[int, "int | str", "int | str", int]  # code, jt, jf (labels or 0), k


def _arch_block(arch: Arch) -> list[Insn | str]:
    nxt = f"not-{arch.name}"
    out: list[Insn | str] = [(LD_ABS, 0, 0, OFF_ARCH), (JEQ, 0, nxt, arch.audit),
                             (LD_ABS, 0, 0, OFF_NR)]
    if arch.x32_bit:
        out.append((JGE, "kill", 0, X32_SYSCALL_BIT))
    out.append((JEQ, f"socket-{arch.name}", 0, arch.socket))
    out += [(JEQ, "nosys", 0, nr) for nr in IO_URING]
    out += [(RET, 0, 0, RET_ALLOW),
            f"socket-{arch.name}", (LD_ABS, 0, 0, OFF_ARG0),
            (JEQ, "eperm", 0, AF_UNIX), (RET, 0, 0, RET_ALLOW), nxt]
    return out


def _assemble(items: list[Insn | str]) -> list[tuple[int, int, int, int]]:
    """Labels (strings) become forward jump offsets."""
    labels: dict[str, int] = {}
    insns: list[Insn] = []
    for item in items:
        if isinstance(item, str):
            labels[item] = len(insns)
        else:
            insns.append(item)

    def offset(target: int | str, at: int) -> int:
        if isinstance(target, int):
            return target
        jump = labels[target] - at - 1
        if not 0 <= jump <= 255:
            raise ValueError(f"jump to {target} out of range")
        return jump

    return [(code, offset(jt, i), offset(jf, i), k) for i, (code, jt, jf, k) in enumerate(insns)]


def program() -> list[tuple[int, int, int, int]]:
    """The filter as (code, jt, jf, k) instructions."""
    items: list[Insn | str] = []
    for arch in ARCHES:
        items += _arch_block(arch)
    items += [(RET, 0, 0, RET_KILL_PROCESS),  # any other architecture
              "kill", (RET, 0, 0, RET_KILL_PROCESS),
              "eperm", (RET, 0, 0, DENY_SOCKET),
              "nosys", (RET, 0, 0, NO_IO_URING)]
    return _assemble(items)


def encode(insns: list[tuple[int, int, int, int]]) -> bytes:
    """``struct sock_filter`` array in native byte order (u16 code, u8 jt, u8 jf, u32 k)."""
    return b"".join(struct.pack("=HBBI", *insn) for insn in insns)


def supported(machine: str | None = None) -> bool:
    """Whether the filter knows this machine's architecture (else bwrap runs
    without it: the filter would kill every process there)."""
    return (machine or platform.machine()) in {arch.name for arch in ARCHES}


def filter_fd() -> int:
    """A fresh read end holding the program (bwrap reads it to EOF): a pipe
    per launch, since a shared file offset would leave the next launch empty.
    The caller passes it to the child and closes it after the spawn."""
    data = encode(program())
    read, write = os.pipe()
    try:
        os.write(write, data)  # far below a pipe's buffer
    finally:
        os.close(write)
    return read
