"""Running an invocation with the contract's error handling: one line for
errors we raise on purpose (traceback with ``--debug``), 130 on Ctrl-C."""

from __future__ import annotations

import contextlib
import sys
import traceback

from swebash_py.errors import SwebashError
from swebash_py.invocation import Invocation


def run_guarded(invocation: Invocation) -> int:
    """Execute ``invocation``; returns the exit code."""
    from swebash_py import stopsignals

    stopsignals.install()
    try:
        from swebash_py.service import execute  # a stop signal may come while it imports

        return stopsignals.exit_code(execute(invocation))
    except KeyboardInterrupt:
        with contextlib.suppress(OSError):  # after SIGHUP the terminal may be gone
            sys.stderr.write(f"\n{stopsignals.describe()}\n")
        return stopsignals.exit_code(130)
    except SwebashError as exc:
        from swebash_py import early_prompt

        early_prompt.hand_over()
        if invocation.debug:
            traceback.print_exc()
        sys.stderr.write(f"ai: {exc}\n")
        return exc.exit_code
