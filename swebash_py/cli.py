"""Entry point of ``ai`` / ``swebash``.

``--version`` and the top-level ``--help`` are answered here without
importing anything heavy (start-up is a feature); everything else goes to
the typer application in ``swebash_py.app``.
"""

from __future__ import annotations

import os
import sys

from swebash_py import __version__
from swebash_py.helptext import TOP_LEVEL_HELP


def main(argv: list[str] | None = None) -> None:
    """Run the program; exits with the contract's exit codes."""
    args = sys.argv[1:] if argv is None else argv
    if args in (["--version"], ["-V"]):
        print(f"swebash-py {__version__}")
        return
    if args in (["--help"], ["-h"]):
        sys.stdout.write(TOP_LEVEL_HELP)
        return
    # pydantic scans every installed package's entry points for plugins at
    # import (~10 ms); this program uses none.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    from swebash_py.app import run

    run(args)
