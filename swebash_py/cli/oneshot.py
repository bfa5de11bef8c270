"""The one-shot runner: answer one question (or ``-s``: suggest one command), streaming."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Literal, Protocol, TextIO

from swebash_py.agent.consume import consume
from swebash_py.config.settings import Settings
from swebash_py.events import ApprovalEvent, ErrorEvent, Notice, TurnEvent
from swebash_py.front.invocation import Invocation

Show = Literal["all", "no-text", "nothing"]  # what a one-shot draws of its turn
EXIT_BY_STOP = {"stop": 0, "length": 0, "refusal": 1, "content_filter": 1, "max_iterations": 1,
                "error": 1, "cancelled": 130}


def run_shell_helper(settings: Settings, invocation: Invocation, task: str,
                     notes: list[str]) -> int:
    """``-s``: one command from the model, shown once; then execute / edit /
    describe / abort (describe comes back to the choice). With stdout not a
    terminal only the bare command is printed."""
    from swebash_py.front import shell_helper

    invocation.no_tools = True
    answer: list[str] = []
    # `$(ai -s ...)`, the shell-init binding, no terminal to offer on: the bare command
    bare = not (sys.stdout.isatty() and sys.stdin.isatty()) and not invocation.json_output
    code = asyncio.run(run_oneshot(settings, invocation, shell_helper.shell_question(task),
                                   notes, collect=answer, show="nothing" if bare else "no-text"))
    command = shell_helper.extract_command("".join(answer))
    if code or not command:
        return code
    if bare:
        shell_helper.print_bare_command(command)
        return 0
    show = True
    while True:
        choice, chosen = shell_helper.offer(command, show=show)
        show = False
        if choice == "describe":
            asyncio.run(run_oneshot(settings, invocation,
                                    shell_helper.explain_question(command), []))
            show = True
            continue
        if choice == "unclear":
            continue
        if choice == "execute" and chosen:
            return shell_helper.execute(chosen)
        return 0


async def run_oneshot(settings: Settings, invocation: Invocation, question: str,
                      notes: list[str], collect: list[str] | None = None,
                      show: Show = "all") -> int:
    """Answer one question, streaming; returns the exit code. ``show``: ``all``;
    ``no-text``: everything but the answer's text (the caller prints what it
    collected); ``nothing`` (errors still go to stderr)."""
    from swebash_py.front.build import build_session
    from swebash_py.images import attach

    images = [attach(path) for path in invocation.images]  # a bad one: nothing is sent
    renderer: Renderer = (_Quiet() if show == "nothing"
                          else _make_renderer(invocation, settings))
    json_output = invocation.json_output

    def on_notice(message: str) -> None:
        with renderer.suspend():  # the working indicator steps aside for the line
            _note_line(message)

    session = build_session(settings, resume=invocation.session,
                            continue_last=invocation.continue_last,
                            no_tools=invocation.no_tools, debug=invocation.debug,
                            renderer_suspend=renderer.suspend, on_notice=on_notice)

    def on_error(event: ErrorEvent) -> None:
        if json_output:
            renderer.handle(event)
        else:
            with renderer.suspend():
                _error_line(sys.stderr, event.message)

    extensions = session.extensions
    unsaved = False
    done = None
    piped_away: int | None = None
    turn = session.agent.run_turn(question, images)
    try:
        for note in notes:
            renderer.handle(Notice(note))
        if extensions.mcp:  # offered tools: the model sees them only once they answered
            extensions.mcp.start()
            await extensions.mcp.wait_ready()
        sink: Any = renderer if json_output else _TextSink(renderer)
        if show == "no-text" and not json_output:
            from swebash_py.front.shell_helper import HideAnswerText

            sink = HideAnswerText(sink)
        done = await consume(turn, sink, on_error)
        if problem := session.recorder.take_problem():  # the answer stood; saving it failed
            _error_line(sys.stderr, str(problem))
            unsaved = True
    except BrokenPipeError:  # `ai "x" | head`: the reader has gone
        from swebash_py.cli.pipes import quiet_broken_pipe

        piped_away = quiet_broken_pipe()
    finally:
        await turn.aclose()  # stops the turn (recorded as cancelled) before the store closes
        try:
            renderer.close()
        except BrokenPipeError:
            from swebash_py.cli.pipes import quiet_broken_pipe

            piped_away = quiet_broken_pipe()
        await extensions.close()
        session.close()
    if piped_away is not None:
        return piped_away
    if done is None:
        return 1
    if collect is not None:
        collect.append(done.text)
    code = EXIT_BY_STOP.get(done.stop_reason, 1)
    return code or 1 if unsaved else code


def _make_renderer(invocation: Invocation, settings: Settings) -> Renderer:
    if invocation.json_output:
        from swebash_py.render.jsonl import JsonRenderer

        return JsonRenderer(sys.stdout)
    from swebash_py.front import warmup
    from swebash_py.render.late import LateRenderer

    # Built at the first paint, once front.warmup has imported what it draws with.
    # In plain mode (output piped or redirected) tool lines and notes go to
    # stderr, so `ai "q" > answer.md` holds only the answer. On a terminal the
    # working indicator turns from the question on (render.waiting), rich or not yet.
    usage = settings.ui.usage
    return LateRenderer(lambda: _rendered(usage), warmup.wait, begin=_go_for(settings),
                        spinner=True)


def _go_for(settings: Settings) -> Callable[[], None]:
    """When the warm-up may begin: once the direct transport has sent the request
    (it says so), else (litellm sends it) when the turn first waits."""
    from swebash_py.front import warmup
    from swebash_py.provider.routing import route

    if route(settings.resolved_model, settings.api_base, settings.backend).backend == "litellm":
        return warmup.go_when_waiting
    return warmup.go_when_sent


def _rendered(show_usage: bool) -> Renderer:
    from swebash_py.render import make_renderer, waiting

    return make_renderer(status_to_stderr=True, show_usage=show_usage,
                         wait_from=waiting.early_started())


class _Quiet:
    """A renderer that shows nothing."""

    def handle(self, event: TurnEvent) -> None:
        pass

    def close(self) -> None:
        pass

    def suspend(self) -> AbstractContextManager[object]:
        return nullcontext()


class _TextSink:
    """Rendered text: a call denied for want of a terminal also gets one
    warning line on stderr."""

    def __init__(self, renderer: Renderer) -> None:
        self._renderer = renderer

    def handle(self, event: TurnEvent) -> None:
        if isinstance(event, ApprovalEvent) and event.by == "no-terminal":
            _error_line(sys.stderr, f"warning: {event.tool} was not run: {event.reason}")
        self._renderer.handle(event)


def _error_line(stream: TextIO, message: str) -> None:
    from swebash_py.text.sanitize import neutralize

    stream.write(f"ai: {neutralize(message)}\n")
    stream.flush()


def _note_line(message: str) -> None:
    """A progress note (a retry, a hook warning): stderr, not prefixed like errors."""
    from swebash_py.text.sanitize import neutralize

    sys.stderr.write(f"  {neutralize(message)}\n")
    sys.stderr.flush()


class Renderer(Protocol):
    """What a consumer of turn events offers."""

    def handle(self, event: TurnEvent) -> None: ...
    def close(self) -> None: ...
    def suspend(self) -> AbstractContextManager[object]: ...
