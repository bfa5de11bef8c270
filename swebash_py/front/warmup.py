"""Import what the answer will need in a background thread, while the request is on the wire.

A provider takes hundreds of milliseconds to send its first token; the renderer
(rich, its Markdown, markdown-it, Pygments and a lexer or two) and litellm when
the model is routed there are imported
meanwhile, by one daemon thread, instead of on the path of the request (or
copied to avoid them). ``cli.main`` starts it first
thing for a command that will render an answer, held: under the GIL a thread
importing beside the main one would slow the way to the request down, so it
begins at ``go`` (the one-shot: when the turn's task first waits on the
network, its connection being made and the request written right after; the
REPL: once its prompt is ready and its session built, while the user types). The renderer calls
``wait`` at its first paint. The import lock makes a module the main thread
needs at the same time safe: one of the two imports it, the other waits for it.

The thread swallows what it raises: ``wait`` only joins, and the main thread's
own import of the same module then raises the error where it always did. Stop
signals are delivered to the main thread only (``stopsignals``); a Ctrl-C
during the warm-up ends the process as before, the thread being a daemon. At
exit (atexit, which runs before the interpreter freezes daemon threads) what is
still queued is dropped and the import under way is let finish: a daemon frozen
inside an import keeps that module's lock, and an import the exit itself makes
of the same module would then wait for good.
"""

from __future__ import annotations

import atexit
import os
import threading
from collections.abc import Callable

# What each kind of answer draws with, in the order it is needed. Two threads that
# enter a cycle of imports from opposite ends stop one of them with a RuntimeError
# (importlib's deadlock check), so the thread imports only what imports no module of
# ours but leaves (the render package's own, events, text.truncate), never a module
# the main thread may be in the middle of: the one-shot lets it go once the request
# is out, when the main thread's own path is loaded; the REPL (which imports
# prompt-toolkit itself, first thing) once its prompt is up and its session built
# (``repl.session``), third-party libraries only: a thread importing beside the
# REPL's start-up made its prompt ~50% later.
RENDERED = ("swebash_py.render.console", "swebash_py.render.md", "swebash_py.render.blocks")
PLAIN = ("swebash_py.render.plain",)
REPL = ("rich.console", "rich.live", "rich.markdown", "rich.syntax", "markdown_it")
# A tool call's arguments are checked by msgspec, loaded with the settings: nothing to
# warm (pydantic is only litellm's and mcp's own, loaded with them).
TOOLS: tuple[str, ...] = ()
LITELLM = ("litellm",)
TRACE_ENV = "SWEBASH_WARMUP_TRACE"  # a file: "<monotonic> <module>" per import done (bench)
EXIT_JOIN = 10.0  # seconds the exit waits for the import under way (one module's)


class _Warmup:
    """One worker: imports the queued modules; ``wait`` returns once the first
    batch (what the renderer draws with) is in."""

    def __init__(self) -> None:
        self._queue: list[str | Callable[[], object]] = []
        self._lock = threading.Lock()
        self._more = threading.Condition(self._lock)
        self._first = threading.Event()
        self._go = threading.Event()
        self._closing = False
        self._thread: threading.Thread | None = None

    def start(self, modules: tuple[str | Callable[[], object], ...], *, now: bool) -> None:
        with self._lock:
            self._queue.extend(modules)
            self._queue.append(self._first.set)
            if now:
                self._go.set()
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="warmup", daemon=True)
                self._thread.start()
                atexit.register(self.stop)

    def add(self, *work: str | Callable[[], object]) -> None:
        with self._lock:
            if self._thread is None:
                return  # not started: this command renders nothing
            self._queue.extend(work)
            self._more.notify()

    def go(self) -> None:
        self._go.set()

    def stop(self) -> None:
        """Drop what is queued; let the import under way finish (the process ends)."""
        with self._lock:
            self._queue.clear()
            self._closing = True
            self._go.set()
            self._more.notify()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(EXIT_JOIN)

    def wait(self) -> None:
        if self._thread is not None:
            self._go.set()
            self._first.wait()

    def _run(self) -> None:
        trace = os.environ.get(TRACE_ENV)
        self._go.wait()
        _do("go", trace)
        while True:
            with self._lock:
                if not self._queue and not self._closing:
                    self._more.wait(30)  # a late ``add`` (the model's route, the tools)
                if not self._queue or self._closing:
                    self._first.set()  # nobody waits for good on a stopped warm-up
                    return
                item = self._queue.pop(0)
            _do(item, trace)


def _do(item: str | Callable[[], object], trace: str | None) -> None:
    import time

    try:
        if callable(item):
            item()
        elif item != "go":  # __import__, not importlib's: -X importtime logs it then
            __import__(item)
    except BaseException:  # the main thread's own import of it reports it
        return
    if trace and isinstance(item, str):
        with open(trace, "a", encoding="utf-8") as log:
            log.write(f"{time.monotonic():.6f} {item}\n")


_WARMUP = _Warmup()


def start(modules: tuple[str | Callable[[], object], ...], *, now: bool = False) -> None:
    """Queue ``modules`` for the background (the first batch: what ``wait`` waits for);
    they load from ``go`` on (at once with ``now``)."""
    _WARMUP.start(modules, now=now)


def go() -> None:
    """The request is out (or none comes): begin loading."""
    _WARMUP.go()


def go_when_waiting() -> None:
    """``go`` once the running event loop's current work yields to it: the turn's
    task then waits on the network, its request sent."""
    import asyncio

    asyncio.get_running_loop().call_soon(_WARMUP.go)


def go_when_sent() -> None:
    """``go`` once the direct transport has written the request (``provider.sent``):
    the loop's first wait may be the connect, with the request still to write."""
    from swebash_py.provider import sent

    sent.on_next(_WARMUP.go)


def add(*work: str | Callable[[], object]) -> None:
    """More to load once the first batch is in (nothing if no warm-up was started)."""
    _WARMUP.add(*work)


def abandon() -> None:
    """The process ends with ``os._exit`` (the REPL's exit): nothing imports after
    this, so the exit need not wait for the import under way (``stop`` not run)."""
    atexit.unregister(_WARMUP.stop)


def wait() -> None:
    """Block until the first batch is imported (at once when none was started)."""
    _WARMUP.wait()


def warm_markdown() -> None:
    """The shared parser, the likely lexers and the theme, built ahead."""
    from swebash_py.render import md

    md.warm()
