"""The environment a sandboxed command gets: rebuilt from an allow-list.

Nothing else of ``ai``'s own environment crosses into the sandbox, and even
an allow-listed name never carries a secret-looking variable.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from swebash_py.process.values import is_secret_name

ALLOWED = frozenset({
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TERM", "TZ", "SHELL",
    "COLUMNS", "LINES", "EDITOR", "VISUAL",
})
ALLOWED_PREFIXES = ("LC_",)
FIXED = {"PAGER": "cat", "GIT_PAGER": "cat", "TERM": "dumb", "NO_COLOR": "1", "CLICOLOR": "0",
         "GIT_TERMINAL_PROMPT": "0"}


def sandbox_env(base: Mapping[str, str] | None = None,
                extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The allow-listed part of ``base`` (default: ours), plus fixed settings."""
    source = base if base is not None else os.environ
    env = {k: v for k, v in source.items()
           if (k in ALLOWED or k.startswith(ALLOWED_PREFIXES)) and not is_secret_name(k)}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.update(FIXED)
    env.update({k: v for k, v in (extra or {}).items() if not is_secret_name(k)})
    return env
