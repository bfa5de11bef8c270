"""``front.warmup`` (background imports, let go when the request is out) and
``render.late`` (the renderer built at the first paint, after the warm-up)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import nullcontext
from pathlib import Path

import pytest

from swebash_py.events import BlockDelta, TurnEvent, TurnStart
from swebash_py.front.warmup import _Warmup
from swebash_py.render.late import LateRenderer


@pytest.fixture
def modules(tmp_path: Path) -> Iterator[Path]:
    """A folder on ``sys.path`` for throwaway modules (forgotten afterwards)."""
    sys.path.insert(0, str(tmp_path))
    known = set(sys.modules)
    yield tmp_path
    sys.path.remove(str(tmp_path))
    for name in set(sys.modules) - known:
        del sys.modules[name]


def test_nothing_loads_before_go_then_wait_returns_with_it_loaded(modules: Path) -> None:
    (modules / "warm_a.py").write_text("VALUE = 1\n")
    warmup = _Warmup()
    warmup.start(("warm_a",), now=False)
    threading.Event().wait(0.1)
    assert "warm_a" not in sys.modules  # held: the request is not out yet
    warmup.go()
    warmup.wait()
    assert sys.modules["warm_a"].VALUE == 1


def test_the_twin_wait_lets_it_go_itself(modules: Path) -> None:
    """A renderer that paints before any ``go`` (an error before the request) still
    gets its modules: ``wait`` lets the warm-up go."""
    (modules / "warm_b.py").write_text("VALUE = 2\n")
    warmup = _Warmup()
    warmup.start(("warm_b",), now=False)
    warmup.wait()
    assert sys.modules["warm_b"].VALUE == 2


def test_a_failed_import_is_raised_where_the_main_thread_imports_it(modules: Path) -> None:
    (modules / "warm_broken.py").write_text("raise ValueError('broken on purpose')\n")
    (modules / "warm_after.py").write_text("VALUE = 3\n")
    warmup = _Warmup()
    warmup.start(("warm_broken", "warm_after"), now=True)
    warmup.wait()  # returns: the thread swallowed it
    assert sys.modules["warm_after"].VALUE == 3
    with pytest.raises(ValueError, match="broken on purpose"):
        __import__("warm_broken")


def test_later_additions_load_after_the_first_batch(modules: Path) -> None:
    (modules / "warm_first.py").write_text("")
    (modules / "warm_late.py").write_text("")
    warmup = _Warmup()
    warmup.start(("warm_first",), now=True)
    warmup.add("warm_late")
    warmup.wait()
    for _ in range(100):
        if "warm_late" in sys.modules:
            break
        threading.Event().wait(0.02)
    assert "warm_late" in sys.modules


def test_the_twin_add_without_start_loads_nothing(modules: Path) -> None:
    """A command that renders nothing (``--json``) starts no warm-up: nothing loads."""
    (modules / "warm_never.py").write_text("")
    warmup = _Warmup()
    warmup.add("warm_never")
    warmup.wait()
    threading.Event().wait(0.1)
    assert "warm_never" not in sys.modules


class Recorder:
    def __init__(self) -> None:
        self.events: list[TurnEvent] = []
        self.closed = False

    def handle(self, event: TurnEvent) -> None:
        self.events.append(event)

    def close(self) -> None:
        self.closed = True

    def suspend(self) -> nullcontext[None]:
        return nullcontext()


def test_turn_start_is_held_without_waiting_or_building() -> None:
    calls: list[str] = []
    made: list[Recorder] = []

    def make() -> Recorder:
        calls.append("make")
        made.append(Recorder())
        return made[-1]

    late = LateRenderer(make, lambda: calls.append("wait"), begin=lambda: calls.append("go"))
    start = TurnStart(model="m", session_id="s")
    late.handle(start)
    assert calls == ["go"]  # the request goes out before anything is built
    delta = BlockDelta(index=0, kind="text", text="hi")
    late.handle(delta)  # the twin: the first drawing event builds it, after the wait
    assert calls == ["go", "wait", "make"]
    assert made[0].events == [start, delta]
    late.close()
    assert made[0].closed


def test_nothing_drawn_nothing_built() -> None:
    late = LateRenderer(lambda: pytest.fail("built"), lambda: pytest.fail("waited"))
    late.handle(TurnStart(model="m", session_id="s"))
    late.close()


def test_at_exit_the_import_under_way_finishes_and_the_rest_is_dropped(modules: Path) -> None:
    """A daemon frozen mid-import would keep that module's lock for good: ``stop`` (atexit)
    lets the import under way finish and drops the rest."""
    (modules / "warm_slow.py").write_text("import time\ntime.sleep(0.3)\nDONE = True\n")
    (modules / "warm_dropped.py").write_text("")
    warmup = _Warmup()
    warmup.start(("warm_slow", "warm_dropped"), now=True)
    threading.Event().wait(0.1)  # warm_slow is under way
    warmup.stop()
    assert sys.modules["warm_slow"].DONE  # finished, not cut
    assert "warm_dropped" not in sys.modules
    warmup.wait()  # and nobody waits for good on a stopped warm-up


def test_the_twin_without_stop_the_rest_loads(modules: Path) -> None:
    (modules / "warm_slow2.py").write_text("import time\ntime.sleep(0.3)\n")
    (modules / "warm_kept.py").write_text("")
    warmup = _Warmup()
    warmup.start(("warm_slow2", "warm_kept"), now=True)
    warmup.wait()
    assert "warm_kept" in sys.modules


def _loaded_within(name: str, seconds: float) -> bool:
    deadline = threading.Event()
    for _ in range(int(seconds / 0.02)):
        if name in sys.modules:
            return True
        deadline.wait(0.02)
    return name in sys.modules


def test_held_until_the_transport_says_the_request_is_out(modules: Path) -> None:
    """The one-shot's warm-up begins on ``provider.sent`` (the lean transport
    tells it after the write), not at the connect; the twin half: before the
    word, nothing loads."""
    from swebash_py.provider import sent

    (modules / "warm_sent.py").write_text("VALUE = 4\n")
    warmup = _Warmup()
    warmup.start(("warm_sent",), now=False)
    sent.on_next(warmup.go)
    assert not _loaded_within("warm_sent", 0.1)  # connected, the request not yet out
    sent.notify()
    assert _loaded_within("warm_sent", 5)

