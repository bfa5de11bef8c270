"""The REPL loop: read a line, run it (slash command, `!command` or a turn).

Each turn runs as a task; Ctrl-C (SIGINT) cancels it and returns to the
prompt. Approval questions go through prompt-toolkit too, with the
renderer's live regions suspended, so they never collide with output.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from prompt_toolkit import PromptSession
from prompt_toolkit.enums import EditingMode
from prompt_toolkit.history import FileHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from rich.console import Console
from rich.text import Text

from swebash_py import stopsignals
from swebash_py.agent.consume import consume
from swebash_py.config.paths import private_file
from swebash_py.config.settings import Settings
from swebash_py.errors import ImageError, SwebashError
from swebash_py.events import ErrorEvent
from swebash_py.front import shell_helper
from swebash_py.front.invocation import Invocation
from swebash_py.images import attach
from swebash_py.render import make_renderer
from swebash_py.repl import sandbox_notice
from swebash_py.repl.attention import Attention
from swebash_py.repl.commands import ARGUMENTS, COMMANDS, EXIT, SlashCommands
from swebash_py.repl.completion import ReplCompleter
from swebash_py.repl.shell import as_context, cd_target, resolve_dir, run_shell
from swebash_py.shellhist.context import recent_block
from swebash_py.store.faults import ensure_data_dir
from swebash_py.text.sanitize import one_line

if TYPE_CHECKING:
    from swebash_py.agent.fitting import ContextFitter
    from swebash_py.agent.loop import Agent
    from swebash_py.approvals.approver import Answer
    from swebash_py.approvals.decision import PendingCall, Verdict
    from swebash_py.engine.messages import ImageBlock
    from swebash_py.front.build import Session

CTRL_C_HINT = "(Ctrl-C cancels a running answer; /exit or Ctrl-D quits)"


def run_repl(settings: Settings, invocation: Invocation) -> int:
    code = asyncio.run(Repl(settings, invocation).run())
    if _importing_in_the_background():
        _leave_now(code)
    return code


BACKGROUND_IMPORTS = ("litellm-import", "warmup")  # threads that only load modules


def _importing_in_the_background() -> bool:
    return any(t.name in BACKGROUND_IMPORTS and t.is_alive() for t in threading.enumerate())


def _leave_now(code: int) -> NoReturn:
    """The REPL is over (session closed, uploads flushed, jobs stopped): end the
    process without waiting for a background import of a module no turn will use.
    The interpreter's own exit would wait for it (the warm-up lets the import under
    way finish: 1 s and more for litellm, the whole wait when a user leaves soon
    after starting) and then collect the ~1M objects it made. The exit handlers
    (terminal restored, jobs, logging) still run, in the main thread, first."""
    import atexit

    from swebash_py.front import warmup

    warmup.abandon()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(stopsignals.exit_code(code))


def toolbar_text(model: str, session: str, context: str | None, mode: str,
                 columns: int) -> str:
    """One line that fits ``columns``: labels go first, then the model is cut."""
    full = [model, f"session {session}", *([f"context {context}"] if context else []),
            f"approval {mode}"]
    short = [model, session[:8], *([context] if context else []), mode]
    for parts in (full, short):
        text = " " + " · ".join(parts) + " "
        if len(text) < columns:
            return text
    rest = " · " + " · ".join(short[1:]) + " "
    room = max(4, columns - 2 - len(rest))
    return " " + (model if len(model) <= room else model[:room - 1] + "…") + rest


def _on_a_terminal() -> bool:
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def _key_bindings() -> KeyBindings:
    bindings = KeyBindings()

    @bindings.add("escape", "enter")
    @bindings.add("escape", "c-j")  # typed ahead on the cooked terminal (ICRNL: CR became LF)
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    return bindings


class Repl:
    def __init__(self, settings: Settings, invocation: Invocation) -> None:
        self.settings = settings
        self.invocation = invocation
        self._completions = dict(COMMANDS)  # custom commands join once the session is built
        self.console = Console()
        self.renderer: Any = make_renderer(self.console)
        history_dir = ensure_data_dir()
        self.prompt: PromptSession[str] = PromptSession(
            history=FileHistory(str(_private_history(history_dir / "repl_history"))),
            completer=ReplCompleter(self._completions, lambda: self.shell_dir, ARGUMENTS),
            complete_while_typing=False,
            key_bindings=_key_bindings(), bottom_toolbar=self._toolbar,
            editing_mode=EditingMode.VI if settings.editing_mode == "vi" else EditingMode.EMACS)
        self.question_prompt: PromptSession[str] = PromptSession()
        for each in (self.prompt, self.question_prompt):
            # A terminal that does not answer cursor-position requests works all
            # the same (no bottom toolbar); prompt-toolkit's warning is noise there.
            each.app.renderer.cpr_not_supported_callback = None
        self.attention = Attention(settings, self.prompt.input)
        self._session: Session | None = None
        self._ask_lock = asyncio.Lock()
        self.commands = SlashCommands(self)
        self.pending_context: list[str] = []
        if shell_history := recent_block(settings.shell_init.history):  # with the 1st question
            self.pending_context.append(shell_history)
        self._turn_task: asyncio.Task[object] | None = None
        self._sandbox_said = False
        self.shell_dir = self._previous_dir = settings.workspace.resolve()

    # -- shortcuts used by the slash commands ---------------------------------

    @property
    def session(self) -> Session:
        """The stored session and runtime, built on first use (the prompt comes first)."""
        if self._session is None:
            from swebash_py.front.build import build_session
            from swebash_py.project.extensions import load_custom_commands

            invocation = self.invocation
            self._session = build_session(
                self.settings, resume=invocation.session,
                continue_last=invocation.continue_last, no_tools=invocation.no_tools,
                debug=invocation.debug, asker=self._ask, use_tty=False,
                on_notice=self._notice)
            ext = self._session.extensions
            ext.commands = load_custom_commands(ext.project)  # the REPL's alone
        return self._session

    def _warm_up(self) -> None:
        """Build the session while the user reads the prompt (keys are buffered).
        If it cannot be built (a bad rule in the config, say), the prompt ends
        with that error: one line, exit 1."""
        try:
            _ = self.session
        except SwebashError as exc:
            if self.prompt.app.is_running:
                self.prompt.app.exit(exception=exc)
            else:
                raise
            return
        self._start_extensions()
        from swebash_py.front import warmup

        warmup.go()  # the renderer's libraries, while the user types

    def _start_extensions(self) -> None:
        """MCP servers start in the background; custom commands join completion."""
        from swebash_py.project.commands import split_builtin_clashes

        ext = self.extensions
        ext.commands, warnings = split_builtin_clashes(ext.commands, set(COMMANDS))
        for warning in warnings:
            self._notice(f"warning: {warning}")
        for name, command in ext.commands.items():
            self._completions["/" + name] = one_line(command.description, 60)
        if ext.mcp:
            ext.mcp.start()

    @property
    def runtime(self) -> Session:
        return self.session

    @property
    def extensions(self) -> Any:
        return self.session.extensions

    @property
    def custom_commands(self) -> dict[str, Any]:
        return dict(self.extensions.commands)

    async def run_prompt(self, text: str) -> None:
        """Send ``text`` as a turn (a custom command's or /init's prompt)."""
        await self._turn(text)

    @property
    def agent(self) -> Agent:
        return self.session.agent

    @property
    def approver(self) -> Any:
        return self.agent.approver

    @property
    def store(self) -> Any:
        return self.session.store

    @property
    def recorder(self) -> Any:
        return self.session.recorder

    @property
    def fitter(self) -> ContextFitter:
        return self.session.fitter

    def _notice(self, message: str) -> None:
        """A note that may come while the prompt is up (an MCP server failed)."""
        if self.prompt.app.is_running:
            from prompt_toolkit.application import run_in_terminal

            run_in_terminal(lambda: self.say(message, "yellow"))
        else:
            self.say(message, "dim")

    def say(self, message: str, style: str = "") -> None:
        from swebash_py.text.sanitize import neutralize

        self.console.print(Text(neutralize(message), style=style))

    def new_session(self) -> None:
        if self.runtime.jobs is not None:
            self.runtime.jobs.close()  # background commands end with their session
        self.agent.history.clear()
        self.recorder.resume(None)
        self.agent.options.session_id = None

    def resume(self, session_id: str) -> None:
        self.agent.history[:] = self.store.load_messages(session_id)
        self.recorder.resume(session_id)
        self.agent.options.session_id = session_id

    def show_recap(self) -> None:
        """Which session this is and its last few turns (after `-c` or `/resume`)."""
        from swebash_py.repl.recap import recap

        session_id = self.recorder.session_id
        info = self.store.get_session(session_id) if session_id else None
        title = f": {info.title}" if info and info.title else ""
        self.say(f"resumed session {self.short_id(session_id)}{title}", "dim")
        rendered = self.console.is_terminal and not self.console.is_dumb_terminal
        if (shown := recap(self.agent.history, rendered=rendered)) is not None:
            self.console.print(shown)

    def preload_litellm(self) -> None:
        from swebash_py.provider.litellm_backend import preload

        preload()

    # -- the loop ---------------------------------------------------------------

    async def run(self) -> int:
        from swebash_py.front import early_prompt
        from swebash_py.provider.routing import route

        model = self.settings.resolved_model
        if route(model, self.settings.api_base, self.settings.backend).backend == "litellm":
            self.preload_litellm()
        resuming = bool(self.invocation.continue_last or self.invocation.session)
        if resuming:
            _ = self.session  # a session that does not exist: say so before any prompt
        early_prompt.hand_over()
        self.say(f"swebash · {model} · /help for commands", "dim")
        if resuming:
            self.show_recap()
        sandbox_notice.probe_soon(self.settings)
        asyncio.get_running_loop().call_later(0.05, self._warm_up)
        stopsignals.install_async(asyncio.get_running_loop(), self._stop)
        try:
            while stopsignals.received() is None:
                try:
                    # set_exception_handler=False: prompt-toolkit's own handler answers
                    # an error reported by the event loop (a task or a client
                    # session collected unfinished) with "Press ENTER to continue...",
                    # which eats the line the user typed ahead (issue #28's lost
                    # line after /resume); the default handler only logs it.
                    line = await self.prompt.prompt_async(self._prompt_text(),
                                                          set_exception_handler=False)
                except KeyboardInterrupt:
                    self.say(CTRL_C_HINT, "dim")
                    continue
                except EOFError:
                    break
                if await self._dispatch(line.strip()) is EXIT:
                    break
        finally:
            if self._session is not None:
                self._resume_hint()
                await self._session.extensions.close()
                self._session.close()
        return 0

    def _resume_hint(self) -> None:
        """On the way out: how to come back to this conversation."""
        session_id = self._session.recorder.session_id if self._session else None
        if session_id and self.agent.history:
            self.say(f"resume with `ai -c` (or `ai --session {self.short_id(session_id)}`)",
                     "dim")

    def short_id(self, session_id: str | None) -> str:
        """The shortest prefix that names this session among the stored ones."""
        if session_id is None:
            return "new"
        try:
            return str(self.store.short_ids([session_id])[session_id])
        except Exception:  # a display nicety: the full id will do
            return session_id

    def _stop(self) -> None:
        """SIGTERM / SIGHUP: end the running turn like Ctrl-C, then leave."""
        if self._turn_task is not None:
            self._turn_task.cancel()
        elif self.prompt.app.is_running:
            self.prompt.app.exit(exception=EOFError())

    async def _dispatch(self, line: str) -> object:
        if not line:
            return None
        if not self._sandbox_said:  # once, before the first thing that may run a command
            self._sandbox_said = True
            if notice := sandbox_notice.notice(self.settings):
                self.say(notice, "yellow")
        if line.startswith("/"):
            return await self._guarded(self.commands.handle(line))
        if line.startswith("!"):
            await self._guarded(self._shell(line[1:].strip()))
            return None
        if line.startswith("??"):
            await self._guarded(self._turn(shell_helper.explain_question(line[2:].strip())))
            return None
        if line.startswith("?"):
            await self._guarded(self._suggest(line[1:].strip()))
            return None
        try:
            line, attached = await self._mentions(line)
            if self.invocation.images:  # `ai -i shot.png`: goes with the first question
                attached = [*map(attach, self.invocation.images), *attached]
                self.invocation.images = []
        except ImageError as exc:  # nothing is sent; the line is in the history to fix
            self.say(f"ai: {exc}", "bold red")
            return None
        await self._guarded(self._turn(line, images=attached, mentions=False))
        return None

    async def _guarded(self, work: Any) -> object:
        """Run ``work`` as a task that Ctrl-C cancels. A failure becomes one red
        line (the traceback with --debug) and the REPL goes on."""
        loop = asyncio.get_running_loop()
        task: asyncio.Task[object] = asyncio.ensure_future(work)
        interrupted = False

        def interrupt() -> None:
            nonlocal interrupted
            interrupted = True
            task.cancel()

        self._turn_task = task
        loop.add_signal_handler(signal.SIGINT, interrupt)
        try:
            return await task
        except asyncio.CancelledError:
            if not (interrupted or task.cancelled()):
                raise  # the REPL itself is being cancelled, not this turn
            self.renderer.close()
            self.say("cancelled", "yellow")
        except Exception as exc:
            self.renderer.close()
            if self.invocation.debug:
                self.console.print_exception()
            self.say(f"Error: {type(exc).__name__}: {exc}", "bold red")
        finally:
            loop.remove_signal_handler(signal.SIGINT)
            self._turn_task = None
        return None

    async def _turn(self, text: str, collect: list[str] | None = None,
                    hide_text: bool = False,
                    images: list[ImageBlock] | None = None, mentions: bool = True) -> None:
        if mentions:
            try:
                text, found = await self._mentions(text)
            except ImageError as exc:  # nothing is sent
                self.say(f"ai: {exc}", "bold red")
                return
            images = [*(images or []), *found]
        if self.pending_context:  # after the question: the question names the session
            text = "\n\n".join([text, *self.pending_context])
            self.pending_context.clear()
        mcp = self.extensions.mcp
        if mcp and mcp.starting():  # the prompt did not wait for them; the first turn does
            self.say("waiting for MCP servers to start…", "dim")
            await mcp.wait_ready()
        self.renderer = make_renderer(self.console, show_usage=self.settings.ui.usage)
        if hasattr(self.renderer, "waiting"):  # a terminal: the indicator from Enter on
            self.renderer.waiting()
        def on_error(event: ErrorEvent) -> None:
            self.renderer.close()
            self.say(f"Error: {event.message}", "bold red")

        try:
            sink = shell_helper.HideAnswerText(self.renderer) if hide_text else self.renderer
            with self.attention.turn():
                done = await consume(self.agent.run_turn(text, images or []), sink, on_error)
        finally:
            self.renderer.close()
        if collect is not None and done is not None:
            collect.append(done.text)
        if problem := self.recorder.take_problem():
            self.say(f"Error: {problem}", "bold red")

    async def _mentions(self, text: str) -> tuple[str, list[ImageBlock]]:
        """`@path` (relative to where `!cd` went): a file's text is appended, an
        image attached (ImageError for a bad one: then nothing is). One that
        read_file would ask about is asked about by the same approver."""
        from swebash_py.repl.mentions import expand_asking

        mentions = await expand_asking(text, self.shell_dir, self.settings.workspace,
                                       self.approver)
        images = [attach(path) for path in mentions.images]
        for note in [*mentions.notes, *(f"attached {p.name} (image)" for p in mentions.images)]:
            self.say(note, "dim")
        return mentions.question, images

    async def _suggest(self, task: str) -> None:
        """`? task`: one command from the model, shown once; then execute / edit /
        describe (and back to the choice) / abort."""
        answer: list[str] = []
        await self._turn(shell_helper.shell_question(task), collect=answer, hide_text=True)
        command = shell_helper.extract_command("".join(answer))
        if not command:
            return
        self.console.print(Text(shell_helper.shown_command(command), style="bold"))
        while True:
            try:
                action = shell_helper.parse_choice(await self.read_line(shell_helper.CHOICES))
                if action == "edit":
                    command = (await self.read_line(
                        "edit> ", default=shell_helper.for_command_line(command))).strip()
                    action = "execute" if command else "abort"
            except (KeyboardInterrupt, EOFError):
                action = "abort"
            if action == "unclear":
                self.say(shell_helper.UNCLEAR, "yellow")
            elif action == "describe":
                await self._turn(shell_helper.explain_question(command))
                self.console.print(Text(shell_helper.shown_command(command), style="bold"))
            elif action == "execute":
                await self._shell(command)
                return
            else:
                self.say(shell_helper.ABORTED, "yellow")
                return

    async def _shell(self, command: str) -> None:
        """`!command`: on a terminal it runs attached (it can read keys); its
        output is attached to the next question unless it was full-screen."""
        if not command:
            return
        if (target := cd_target(command)) is not None:
            self._cd(target)
            return
        if _on_a_terminal():
            from swebash_py.repl.attached import run_attached

            result = await run_attached(command, str(self.shell_dir), sys.stdin.fileno(),
                                        sys.stdout.fileno())
            code, output = result.code, result.output
            if result.full_screen:
                if code:
                    self.say(f"exit code {code}", "yellow")
                self.say("(a full-screen program: its output is not attached)", "dim")
                return
        else:
            code, output = await run_shell(command, self.shell_dir)
            self.console.out(output.rstrip("\n"), highlight=False)
        if code:
            self.say(f"exit code {code}", "yellow")
        self.pending_context.append(as_context(command, code, output))
        self.say("(output attached to your next question)", "dim")

    def _cd(self, target: str) -> None:
        """`!cd DIR` moves the REPL (and its `!` commands); the model's workspace stays."""
        try:
            new = resolve_dir(target, self.shell_dir, self._previous_dir)
        except NotADirectoryError as exc:
            self.say(str(exc), "red")
            return
        # not os.chdir: the workspace defaults to the process's directory
        self._previous_dir, self.shell_dir = self.shell_dir, new
        workspace = self.settings.workspace.resolve()
        stays = "" if new == workspace else f" (the model's workspace stays {workspace})"
        self.say(f"now in {new}{stays}", "dim")

    async def _ask(self, pending: PendingCall, verdict: Verdict,
                   rule: list[str] | None) -> Answer:
        from swebash_py.approvals.approver import Answer, parse_answer
        from swebash_py.ui.question import prompt_for, question_renderable

        async with self._ask_lock:  # one question at a time, whatever asks
            with self.renderer.suspend(), self.attention.question():
                self.discard_typed_ahead()  # before the question is drawn, not only read
                self.console.print(question_renderable(pending, verdict, rule))
                try:
                    line = await self.read_line(prompt_for(self.console.width, pending),
                                                fresh=False)
                except (KeyboardInterrupt, EOFError):
                    turn = self._turn_task
                    if turn is None:
                        return Answer("no")
                    turn.cancel()  # the turn's cancel reaches this call too: wait for it
                    await asyncio.get_running_loop().create_future()
        return parse_answer(line)

    async def read_line(self, message: str, default: str = "", fresh: bool = True) -> str:
        """One line from the user inside a running turn: a question, so what was
        typed before it appeared is dropped first (``fresh``; False when the
        caller dropped it before drawing more of the question). prompt-toolkit
        must not take over SIGINT here: when it gives it back it drops our
        handler, and Ctrl-C would then do nothing for the rest of the turn (an
        approved `sleep 32` ran to its end). Ctrl-C at this line is a
        KeyboardInterrupt."""
        if fresh:
            self.discard_typed_ahead()
        return await self.question_prompt.prompt_async(message, default=default,
                                                       handle_sigint=False,
                                                       set_exception_handler=False)

    def discard_typed_ahead(self) -> None:
        """Every key typed before a question appeared, wherever it waits: the
        terminal's input queue, prompt-toolkit's typeahead for stdin (keys read
        past the last accepted line), and what the focus watch kept for the next
        prompt. The REPL's own prompt keeps its typeahead: only questions drop it."""
        from prompt_toolkit.input.typeahead import clear_typeahead

        from swebash_py.ui.terminal import discard_typed_ahead

        with contextlib.suppress(AttributeError, ValueError, OSError):
            discard_typed_ahead(sys.stdin.fileno())
        clear_typeahead(self.question_prompt.input)
        clear_typeahead(self.prompt.input)
        self.attention.discard_typed()

    def _prompt_text(self) -> str:
        return "swebash> "

    def _toolbar(self) -> str:
        if self._session is None:
            model, session, context = self.settings.resolved_model, "new", None
            mode = self.settings.approval
        else:
            model, session = self.agent.options.model, self.recorder.session_id or "new"
            fraction = self.fitter.usage_fraction() if self.fitter else None
            context = f"{fraction:.0%}" if fraction is not None else None
            mode = self.approver.mode
        return toolbar_text(model, session, context, mode, self.console.width)


def _private_history(path: Path) -> Path:
    """The REPL's history, owner-only; one that cannot be made so is used as it is."""
    with contextlib.suppress(OSError):
        private_file(path)
    return path

