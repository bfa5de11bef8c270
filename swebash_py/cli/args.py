"""The one parser of ``ai``'s questions and flags.

``ai "question"`` and ``ai`` (the REPL) are parsed here; only the words in
``SUBCOMMANDS`` go to typer. ``ai --help`` prints ``helptext.TOP_LEVEL_HELP``
without importing this module; a test keeps its Options block equal to
``options_help()``, which is rendered from this parser.

argparse parses (and words the errors of) every command line of a question;
typer (``cli.subcommands``) the subcommands: two parsers, because the
subcommands' nested groups and typed options are typer's strength and a
question's free words mixed with options (``ai -m x why is the sky blue``) are
argparse's ``parse_intermixed_args``.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from swebash_py.config.names import APPROVAL_MODES, SANDBOX_MODES
from swebash_py.errors import UsageError
from swebash_py.front.invocation import Invocation

if TYPE_CHECKING:
    import argparse

HELP_COLUMN = 25  # where an option's description starts in `ai --help`


# The options of a question, in `ai --help`'s order: (option strings, argparse's keywords).
# ``help`` strings break lines with ``\n`` as `ai --help` shows them.
OPTIONS: tuple[tuple[tuple[str, ...], dict[str, Any]], ...] = (
    (("-m", "--model"), {"metavar": "MODEL", "help": "litellm model string, e.g. "
                         "openai/gpt-4o,\nanthropic/claude-sonnet-4-5, "
                         "gemini/gemini-2.5-flash,\nollama_chat/llama3.1"}),
    (("--api-base",), {"metavar": "URL",
                       "help": "provider base URL (OpenAI-compatible servers, Ollama)"}),
    (("--approval",), {"metavar": "MODE", "help": "strict | ask (default) | auto-edit | yolo"}),
    (("-y", "--yes"), {"action": "store_true", "help": "same as --approval yolo"}),
    (("--sandbox",), {"metavar": "MODE",
                      "help": "auto (default) | read-only | workspace-write | off"}),
    (("--json",), {"dest": "json_output", "action": "store_true",
                   "help": "print events as JSON lines instead of rendered text"}),
    (("-c", "--continue"), {"dest": "continue_last", "action": "store_true",
                            "help": "continue the most recent session"}),
    (("--session",), {"metavar": "ID", "help": "continue that session"}),
    (("--no-tools",), {"action": "store_true", "help": "plain chat: offer no tools to the model"}),
    (("-s", "--shell"), {"dest": "shell_mode", "action": "store_true",
                         "help": "ask for one shell command, then run / edit / describe it"}),
    (("--explain",), {"action": "store_true", "help": "explain a shell command in a few lines"}),
    (("-i", "--image"), {"metavar": "FILE", "action": "append", "dest": "images", "default": [],
                         "help": "attach an image (png, jpeg, gif, webp); repeatable"}),
    (("--debug",), {"action": "store_true", "help": "show full tracebacks and provider details"}),
    (("--trust",), {"action": "store_true",
                    "help": "use this folder's .swebash/ settings without asking"}),
    (("-V", "--version"), {"action": "store_true", "help": "print the version and exit"}),
    (("-h", "--help"), {"action": "store_true", "help": "show this message and exit"}),
)


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``OPTIONS`` and the question's words."""
    import argparse

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> None:  # type: ignore[override]
            raise UsageError(message)

    # argparse's own help is never shown (errors raise UsageError; see options_help):
    # a usage line spares parse_intermixed_args from formatting one, a fixed width
    # its formatters from asking shutil for the terminal's (~3 ms in all).
    parser = _Parser(prog="ai", usage="ai [options] [question ...]", add_help=False,
                     allow_abbrev=False,
                     formatter_class=functools.partial(argparse.HelpFormatter, width=100))
    parser.add_argument("question", nargs="*")
    for names, keywords in OPTIONS:
        parser.add_argument(*names, **keywords)
    return parser


def options_help(parser: argparse.ArgumentParser | None = None) -> str:
    """The Options block of `ai --help`, rendered from the parser."""
    lines = []
    for action in (parser or build_parser())._actions:
        if not action.option_strings:
            continue
        names = ", ".join(action.option_strings)
        if action.metavar:
            names += f" {action.metavar}"
        first, *rest = (action.help or "").split("\n")
        lines.append(f"  {names:<{HELP_COLUMN - 3}} {first}")
        lines.extend(" " * HELP_COLUMN + more for more in rest)
    return "\n".join(lines) + "\n"


def parse_question_args(args: list[str]) -> Invocation:
    """An ``Invocation`` from the command line of a question (or the REPL)."""
    ns = build_parser().parse_intermixed_args(args)
    if ns.approval is not None and ns.approval not in APPROVAL_MODES:
        raise UsageError(f"invalid value for --approval: '{ns.approval}' is not one of "
                         + ", ".join(APPROVAL_MODES))
    if ns.yes and ns.approval not in (None, "yolo"):
        raise UsageError(f"--approval {ns.approval} and --yes (same as --approval yolo) "
                         "conflict: give one of them")
    if ns.sandbox is not None and ns.sandbox not in SANDBOX_MODES:
        raise UsageError(f"invalid value for --sandbox: '{ns.sandbox}' is not one of "
                         + ", ".join(SANDBOX_MODES))
    return Invocation(
        question=" ".join(ns.question).strip(), model=ns.model, api_base=ns.api_base,
        approval="yolo" if ns.yes else ns.approval, json_output=ns.json_output,
        continue_last=ns.continue_last, session=ns.session, no_tools=ns.no_tools,
        shell_mode=ns.shell_mode, explain=ns.explain, debug=ns.debug,
        show_version=ns.version, show_help=ns.help, sandbox=ns.sandbox, trust=ns.trust,
        images=ns.images)
