"""The no-import help and version answers stay true to the real command."""

from __future__ import annotations

import subprocess
import sys

import pytest

from swebash_py import __version__
from swebash_py.cli.args import build_parser, parse_question_args
from swebash_py.cli.helptext import TOP_LEVEL_HELP
from swebash_py.cli.subcommands import ask
from swebash_py.errors import UsageError
from tests.e2e.conftest import run_ai


def typer_options() -> set[str]:
    import typer.main

    command = typer.main.get_command_from_info(
        typer.models.CommandInfo(callback=ask), pretty_exceptions_short=True,
        rich_markup_mode=None)
    return {opt for param in command.params for opt in getattr(param, "opts", [])
            if opt.startswith("-")}


def test_static_help_lists_every_option_of_the_real_command() -> None:
    options = typer_options()
    missing = {opt for opt in options if opt not in TOP_LEVEL_HELP}
    assert options and not missing, missing


def test_the_fast_question_parser_takes_exactly_the_typer_options() -> None:
    fast = {opt for action in build_parser()._actions for opt in action.option_strings}
    assert fast == typer_options() - {"-h", "--help"}


@pytest.mark.parametrize(("argv", "expected"), [
    (["why", "is", "it", "slow?"], {"question": "why is it slow?"}),
    (["-m", "anthropic/claude-x", "hi", "--json"], {"model": "anthropic/claude-x",
                                                    "json_output": True, "question": "hi"}),
    (["-y", "do", "it"], {"approval": "yolo", "question": "do it"}),
    (["--approval", "strict", "-c", "--no-tools", "--api-base", "http://x", "q"],
     {"approval": "strict", "continue_last": True, "no_tools": True, "api_base": "http://x"}),
    (["--session", "ab12", "-s", "find big files"], {"session": "ab12", "shell_mode": True}),
    ([], {"question": ""}),
])
def test_fast_parser(argv: list[str], expected: dict[str, object]) -> None:
    invocation = parse_question_args(argv)
    for key, value in expected.items():
        assert getattr(invocation, key) == value


@pytest.mark.parametrize("argv", [["--approval", "sometimes", "q"], ["--frobnicate", "q"],
                                  ["-m"]])
def test_fast_parser_usage_errors(argv: list[str]) -> None:
    with pytest.raises(UsageError):
        parse_question_args(argv)


def test_version_and_help_exit_zero() -> None:
    version = run_ai("--version")
    assert version.returncode == 0 and version.stdout.strip() == f"swebash-py {__version__}"
    helped = run_ai("--help")
    assert helped.returncode == 0 and helped.stdout == TOP_LEVEL_HELP


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
