"""The seccomp program, run through a tiny classic-BPF interpreter: what each
architecture's system calls get (no kernel involved; the real-process side is
in test_unix_sockets.py)."""

from __future__ import annotations

import errno
import os
import struct

import pytest

from swebash_py.sandbox import seccomp
from swebash_py.sandbox.seccomp import (
    DENY_SOCKET,
    NO_IO_URING,
    RET_ALLOW,
    RET_KILL_PROCESS,
)

X86_64, AARCH64, I386, ARM, RISCV64 = 0xC000003E, 0xC00000B7, 0x40000003, 0x40000028, 0xC00000F3


def seccomp_data(arch: int, nr: int, *args: int) -> bytes:
    """``struct seccomp_data``: nr, arch, instruction pointer, six u64 args."""
    padded = [*args, *[0] * (6 - len(args))]
    return struct.pack("<iIQ6Q", nr, arch, 0, *padded)


def run_bpf(program: bytes, data: bytes) -> int:
    """Interpret the instructions the program uses; anything else fails the test."""
    insns = [struct.unpack_from("=HBBI", program, i) for i in range(0, len(program), 8)]
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = insns[pc]
        pc += 1
        if code == seccomp.LD_ABS:
            acc = struct.unpack_from("<I", data, k)[0]
        elif code == seccomp.JEQ:
            pc += jt if acc == k else jf
        elif code == seccomp.JGE:
            pc += jt if acc >= k else jf
        elif code == seccomp.RET:
            return k
        else:
            raise AssertionError(f"unexpected opcode {code:#x}")


PROGRAM = seccomp.encode(seccomp.program())


@pytest.mark.parametrize(("arch", "nr", "args", "expected"), [
    (X86_64, 41, (1, 1, 0), DENY_SOCKET),  # socket(AF_UNIX, SOCK_STREAM)
    (X86_64, 41, (1, 2 | 0o2000000, 0), DENY_SOCKET),  # any type, any flags
    (X86_64, 41, (0x1_0000_0001, 1, 0), DENY_SOCKET),  # the kernel reads an int
    (X86_64, 41, (2, 1, 0), RET_ALLOW),  # AF_INET
    (X86_64, 41, (10, 2, 0), RET_ALLOW),  # AF_INET6
    (X86_64, 41, (16, 3, 0), RET_ALLOW),  # AF_NETLINK
    (X86_64, 53, (1, 1, 0), RET_ALLOW),  # socketpair(AF_UNIX): reaches nothing outside
    (X86_64, 42, (3, 0, 0), RET_ALLOW),  # connect on an existing socket
    (X86_64, 0, (0,), RET_ALLOW),  # read
    (X86_64, 425, (), NO_IO_URING),
    (X86_64, 426, (), NO_IO_URING),
    (X86_64, 427, (), NO_IO_URING),
    (X86_64, 0x40000000 | 41, (1,), RET_KILL_PROCESS),  # x32 socket
    (X86_64, 0x40000000, (), RET_KILL_PROCESS),  # any x32 call
    (AARCH64, 198, (1, 1, 0), DENY_SOCKET),
    (AARCH64, 198, (2, 1, 0), RET_ALLOW),
    (AARCH64, 199, (1, 1, 0), RET_ALLOW),  # socketpair
    (AARCH64, 41, (1,), RET_ALLOW),  # x86_64's socket number is another call here
    (AARCH64, 425, (), NO_IO_URING),
    (I386, 102, (1,), RET_KILL_PROCESS),  # socketcall via int 0x80 from a 64-bit process
    (I386, 359, (1,), RET_KILL_PROCESS),
    (ARM, 281, (1,), RET_KILL_PROCESS),
    (RISCV64, 198, (2,), RET_KILL_PROCESS),  # unknown: nothing is allowed
])
def test_program_decisions(arch: int, nr: int, args: tuple[int, ...], expected: int) -> None:
    assert run_bpf(PROGRAM, seccomp_data(arch, nr, *args)) == expected


def test_denials_carry_the_errno_programs_report() -> None:
    assert DENY_SOCKET & 0xFFFF == errno.EPERM and DENY_SOCKET >> 16 == 0x5  # RET_ERRNO
    assert NO_IO_URING & 0xFFFF == errno.ENOSYS


def test_every_jump_lands_inside_the_program() -> None:
    insns = seccomp.program()
    assert len(PROGRAM) == 8 * len(insns) and insns[-1][0] == seccomp.RET
    for i, (code, jt, jf, _k) in enumerate(insns):
        if code in (seccomp.JEQ, seccomp.JGE):
            assert i + 1 + max(jt, jf) < len(insns)


def test_interpreter_would_catch_a_missing_rule() -> None:
    """Twin: a program built without the AF_UNIX check lets the call through."""
    weaker = [(c, jt, jf, 0xFFFF if (c == seccomp.JEQ and k == seccomp.AF_UNIX) else k)
              for c, jt, jf, k in seccomp.program()]
    data = seccomp_data(X86_64, 41, 1, 1, 0)
    assert run_bpf(seccomp.encode(weaker), data) == RET_ALLOW


def test_supported_machines() -> None:
    assert seccomp.supported("x86_64") and seccomp.supported("aarch64")
    assert not seccomp.supported("riscv64") and not seccomp.supported("i686")


def test_filter_fd_holds_the_program_once() -> None:
    fd = seccomp.filter_fd()
    try:
        assert os.read(fd, 1 << 16) == PROGRAM and os.read(fd, 10) == b""
    finally:
        os.close(fd)
