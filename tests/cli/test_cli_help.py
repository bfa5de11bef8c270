"""The no-import help and version answers stay true to the real command."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from swebash_py import __version__
from swebash_py.cli.args import build_parser, options_help, parse_question_args
from swebash_py.cli.helptext import TOP_LEVEL_HELP
from swebash_py.errors import UsageError
from tests.e2e.conftest import run_ai

# The contract's flags (--trust: "Project files and trust") plus ours (-s, --explain,
# --debug, -V, -h): one parser holds them all.
EXPECTED_OPTIONS = {"-m", "--model", "--api-base", "--approval", "-y", "--yes", "--json",
                    "-c", "--continue", "--session", "--no-tools", "-s", "--shell",
                    "--explain", "--debug", "--trust", "-V", "--version", "-h", "--help",
                    "--sandbox", "-i", "--image"}


def parser_options(parser: argparse.ArgumentParser) -> set[str]:
    return {opt for action in parser._actions for opt in action.option_strings}


def test_the_one_parser_takes_exactly_the_documented_options() -> None:
    assert parser_options(build_parser()) == EXPECTED_OPTIONS


def test_static_help_lists_every_option_of_the_real_command() -> None:
    options = parser_options(build_parser())
    missing = {opt for opt in options if opt not in TOP_LEVEL_HELP}
    assert options and not missing, missing


def test_static_help_options_block_is_rendered_from_the_parser() -> None:
    assert options_help() in TOP_LEVEL_HELP, options_help()


def test_an_option_missing_from_the_static_help_is_caught() -> None:
    parser = build_parser()
    parser.add_argument("--frobnicate", metavar="HOW", help="an option nobody documented")
    assert options_help(parser) not in TOP_LEVEL_HELP


@pytest.mark.parametrize(("argv", "expected"), [
    (["why", "is", "it", "slow?"], {"question": "why is it slow?"}),
    (["-m", "anthropic/claude-x", "hi", "--json"], {"model": "anthropic/claude-x",
                                                    "json_output": True, "question": "hi"}),
    (["-y", "do", "it"], {"approval": "yolo", "question": "do it"}),
    (["--approval", "strict", "-c", "--no-tools", "--api-base", "http://x", "q"],
     {"approval": "strict", "continue_last": True, "no_tools": True, "api_base": "http://x"}),
    (["--session", "ab12", "-s", "find big files"], {"session": "ab12", "shell_mode": True}),
    ([], {"question": ""}),
    (["-V"], {"show_version": True}),
    (["--trust", "q"], {"trust": True, "question": "q"}),
    (["--approval", "yolo", "-y", "q"], {"approval": "yolo"}),  # the same value: no conflict
])
def test_fast_parser(argv: list[str], expected: dict[str, object]) -> None:
    invocation = parse_question_args(argv)
    for key, value in expected.items():
        assert getattr(invocation, key) == value


@pytest.mark.parametrize("argv", [["--approval", "sometimes", "q"], ["--frobnicate", "q"],
                                  ["-m"], ["--approval", "strict", "-y", "q"],
                                  ["--yes", "--approval", "ask", "q"]])
def test_fast_parser_usage_errors(argv: list[str]) -> None:
    with pytest.raises(UsageError):
        parse_question_args(argv)


def test_version_and_help_exit_zero() -> None:
    version = run_ai("--version")
    assert version.returncode == 0 and version.stdout.strip() == f"swebash-py {__version__}"
    helped = run_ai("--help")
    assert helped.returncode == 0 and helped.stdout == TOP_LEVEL_HELP


@pytest.mark.parametrize("argv", [["-m", "x", "--help"], ["why", "-h"],
                                  ["--frobnicate", "--help"]])
def test_help_anywhere_in_a_question_prints_the_top_level_help(argv: list[str]) -> None:
    helped = run_ai(*argv)
    assert helped.returncode == 0 and helped.stdout == TOP_LEVEL_HELP


def test_subcommand_help_comes_from_typer() -> None:
    helped = run_ai("sessions", "--help")
    assert helped.returncode == 0 and "list" in helped.stdout and "delete" in helped.stdout
    assert helped.stdout != TOP_LEVEL_HELP


def test_help_does_not_import_heavy_modules() -> None:
    code = ("import sys; from swebash_py.cli.main import main; main(['--help']); "
            "heavy = [m for m in ('litellm', 'httpx', 'rich', 'typer', 'pydantic') "
            "if m in sys.modules]; print(heavy, file=sys.stderr)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stderr.strip() == "[]"


def test_python_dash_m_works() -> None:
    result = subprocess.run([sys.executable, "-m", "swebash_py", "--version"],
                            capture_output=True, text=True, check=True)
    assert __version__ in result.stdout


def test_a_direct_one_shot_never_imports_litellm(fake_provider: object) -> None:
    from tests.fakeprovider import FakeProvider, Reply

    assert isinstance(fake_provider, FakeProvider)
    fake_provider.queue(Reply(text="fine"))
    code = ("import sys\nfrom swebash_py.cli.main import main\n"
            "try:\n    main(['-m', 'openai/x', '--api-base', sys.argv[1], 'hi'])\n"
            "except SystemExit as exit:\n    assert exit.code == 0, exit.code\n"
            "print('litellm' in sys.modules, file=sys.stderr)\n")
    result = subprocess.run([sys.executable, "-c", code, fake_provider.url],
                            capture_output=True, text=True, stdin=subprocess.DEVNULL,
                            check=True)
    assert result.stdout == "fine\n"
    assert result.stderr.strip().splitlines()[-1] == "False"
