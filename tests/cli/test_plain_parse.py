"""A plain command line is read without argparse, to the same result argparse gives;
anything else is left to argparse (and its errors)."""

from __future__ import annotations

import random
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

from swebash_py.cli import args as cli_args
from swebash_py.cli.args import build_parser, plain_parse
from swebash_py.errors import UsageError

OPTION_NAMES = [name for names, _keywords in cli_args.OPTIONS for name in names]
VALUES = ["x", "openai/gpt-4o", "", "hello world", "ünïcode ✓", "a=b", "strict", "http://h:1"]
ODD = ["-", "--", "-x", "--model=x", "-yc", "-5", "--frob", "-my", "--api", "- x"]


def argparse_result(argv: list[str]) -> dict[str, Any] | None:
    """What argparse makes of ``argv`` (None: a usage error)."""
    try:
        return vars(build_parser().parse_intermixed_args(argv))
    except UsageError:
        return None


def command_lines(count: int, seed: int = 17) -> list[list[str]]:
    """Command lines of known options, values and words, some with an odd token."""
    rng = random.Random(seed)
    pool = OPTION_NAMES + VALUES + ["why", "is", "it", "slow?"]
    lines = [[rng.choice(pool) for _ in range(rng.randint(0, 7))] for _ in range(count)]
    for line in lines[: count // 4]:
        line.insert(rng.randint(0, len(line)), rng.choice(ODD))
    return lines


def mismatches(parse: Callable[[list[str]], SimpleNamespace | None],
               lines: list[list[str]]) -> tuple[list[list[str]], int]:
    """The lines ``parse`` read differently from argparse, and how many it read."""
    wrong, read = [], 0
    for argv in lines:
        ours = parse(argv)
        if ours is None:
            continue
        read += 1
        if vars(ours) != argparse_result(argv):
            wrong.append(argv)
    return wrong, read


def test_what_it_reads_argparse_reads_the_same_way() -> None:
    lines = command_lines(3000)
    wrong, read = mismatches(plain_parse, lines)
    assert wrong == []
    assert 300 < read < len(lines)  # both ways are taken


@pytest.mark.parametrize("argv", [["-m", "openai/x", "--api-base", "http://127.0.0.1:9", "hi"],
                                  ["why", "is", "it", "slow?"], [], ["-i", "a.png", "-i", "b.png",
                                                                     "what", "-y"]])
def test_the_usual_command_lines_are_plain(argv: list[str]) -> None:
    assert plain_parse(argv) is not None


@pytest.mark.parametrize("argv", [["--model=x", "hi"], ["-yc", "hi"], ["-m"], ["-m", "-y"],
                                  ["--", "-x"], ["-", "hi"], ["--frob", "hi"], ["hi", "-5"]])
def test_anything_else_is_left_to_argparse(argv: list[str]) -> None:
    assert plain_parse(argv) is None


def test_the_twin_a_reader_that_differs_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Proof the comparison can fail: with a flag's default None (argparse: False)."""
    monkeypatch.setitem(cli_args._DEFAULTS, "store_true", lambda: None)
    wrong, _read = mismatches(plain_parse, command_lines(300))
    assert wrong
