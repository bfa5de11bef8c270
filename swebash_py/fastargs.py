"""The question path's argument parser (argparse: ~1 ms, against ~90 ms for
typer's per-parameter pydantic adapters).

``ai "question"`` and ``ai`` (the REPL) are parsed here; subcommands and
``--help`` go to the typer application. A test keeps the options of both
parsers identical.
"""

from __future__ import annotations

import argparse

from swebash_py.app_names import APPROVAL_MODES
from swebash_py.errors import UsageError
from swebash_py.invocation import Invocation


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ai", add_help=False, allow_abbrev=False)
    parser.add_argument("question", nargs="*")
    parser.add_argument("-m", "--model")
    parser.add_argument("--api-base")
    parser.add_argument("--approval")
    parser.add_argument("-y", "--yes", action="store_true")
    parser.add_argument("--json", dest="json_output", action="store_true")
    parser.add_argument("-c", "--continue", dest="continue_last", action="store_true")
    parser.add_argument("--session")
    parser.add_argument("--no-tools", action="store_true")
    parser.add_argument("-s", "--shell", dest="shell_mode", action="store_true")
    parser.add_argument("--explain", action="store_true")
    parser.add_argument("--debug", action="store_true")
    parser.add_argument("--trust", action="store_true")
    return parser


def parse_question_args(args: list[str]) -> Invocation:
    """An ``Invocation`` from the command line of a question (or the REPL)."""
    ns = build_parser().parse_intermixed_args(args)
    if ns.approval is not None and ns.approval not in APPROVAL_MODES:
        raise UsageError(f"invalid value for --approval: '{ns.approval}' is not one of "
                         + ", ".join(APPROVAL_MODES))
    return Invocation(
        question=" ".join(ns.question).strip(), model=ns.model, api_base=ns.api_base,
        approval="yolo" if ns.yes else ns.approval, json_output=ns.json_output,
        continue_last=ns.continue_last, session=ns.session, no_tools=ns.no_tools,
        shell_mode=ns.shell_mode, explain=ns.explain, debug=ns.debug, trust=ns.trust)
