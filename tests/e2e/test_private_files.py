"""What holds conversations is readable by its owner only, whoever made the folder:
the sessions database and the REPL's history, in a data folder left 0755."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from tests.e2e.conftest import exit_repl, model_args, run_ai, start_repl
from tests.fakeprovider import FakeProvider, Reply


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_database_and_the_history_are_owner_only_in_an_open_folder(
        spawn_ai: Any, fake_provider: FakeProvider) -> None:
    home = Path(os.environ["SWEBASH_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    home.chmod(0o755)  # as 0.1 left it
    fake_provider.queue(Reply(text="fine"))
    assert run_ai(*model_args(fake_provider), "hi").stdout == "fine\n"
    child = start_repl(spawn_ai, fake_provider)
    exit_repl(child)
    assert (mode(home), mode(home / "sessions.db"), mode(home / "repl_history")) == (
        0o755, 0o600, 0o600)
