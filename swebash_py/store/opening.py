"""``open_store``: the sessions database as a command opens it.

Here, in the store's layer, so a command that only reads sessions (``ai sessions
show``) opens it without importing the session builder (``front.build``: the agent,
the tools, pydantic); ``front.build`` re-exports it.
"""

from __future__ import annotations

import sqlite3
import sys

from swebash_py.config.paths import data_dir
from swebash_py.errors import StorageError
from swebash_py.store.sessions import Store


def open_store() -> Store:
    """The sessions database under the data directory. A filesystem or SQLite
    failure becomes one ``StorageError`` line naming the path; a damaged
    database moved aside is said in one line."""
    directory = data_dir()
    try:
        store = Store(directory / "sessions.db")
    except StorageError:
        raise
    except (OSError, sqlite3.Error) as exc:
        raise StorageError(f"cannot open the sessions database in {directory}: "
                           f"{getattr(exc, 'strerror', None) or exc}") from exc
    if store.moved_aside is not None:
        sys.stderr.write(f"ai: the sessions database was damaged: it was moved to "
                         f"{store.moved_aside} and a new one started\n")
    return store
