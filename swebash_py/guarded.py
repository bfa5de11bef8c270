"""Running an invocation with the contract's error handling: one line for
errors we raise on purpose (traceback with ``--debug``), 130 on Ctrl-C."""

from __future__ import annotations

import sys
import traceback

from swebash_py.errors import SwebashError
from swebash_py.invocation import Invocation


def run_guarded(invocation: Invocation) -> int:
    """Execute ``invocation``; returns the exit code."""
    from swebash_py.service import execute

    try:
        return execute(invocation)
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        return 130
    except BrokenPipeError:  # the reader of our output went away: end quietly
        from swebash_py.pipes import quiet_broken_pipe

        return quiet_broken_pipe()
    except SwebashError as exc:
        from swebash_py import early_prompt

        early_prompt.hand_over()
        if invocation.debug:
            traceback.print_exc()
        sys.stderr.write(f"ai: {exc}\n")
        return exc.exit_code
