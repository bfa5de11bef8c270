"""Joins a session's store to the team store's uploader (when a URL is set)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from swebash_py.team.url import store_url

if TYPE_CHECKING:
    from swebash_py.config.settings import Settings


def _stderr_line(message: str) -> None:
    sys.stderr.write(f"ai: {message}\n")
    sys.stderr.flush()


def start_uploader(settings: Settings, store: Any,
                   on_problem: Callable[[str], None] = _stderr_line) -> Any:
    """The running uploader for ``store``, or None without a store URL.

    Imports nothing of the team store (nor psycopg) when no URL is set."""
    url = store_url(settings)
    if not url:
        return None
    from swebash_py.config.paths import data_dir
    from swebash_py.team.host import current_host
    from swebash_py.team.uploader import Uploader

    uploader = Uploader(store.path, url, current_host(data_dir()),
                        upload_output=settings.store.upload_output, on_problem=on_problem)
    store.on_queued = uploader.notify
    uploader.start()
    return uploader


def stop_uploader(uploader: Any, store: Any) -> None:
    """Wait at most 2 s for uploads in flight; what is left waits for the next run."""
    if uploader is None:
        return
    store.on_queued = None
    uploader.close()
