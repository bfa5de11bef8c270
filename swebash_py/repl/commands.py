"""Slash commands. Each is a method ``cmd_NAME(arg)``; ``COMMANDS`` is /help."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

from swebash_py.config.names import APPROVAL_MODES, SANDBOX_MODES
from swebash_py.project.extensions import user_dir
from swebash_py.text.sanitize import neutralize, one_line

if TYPE_CHECKING:
    from swebash_py.repl.session import Repl

COMMANDS = {
    "/help": "this help",
    "/exit": "leave (also Ctrl-D)",
    "/clear": "start a new session (the old one stays stored)",
    "/model": "show or set the model: /model anthropic/claude-sonnet-4-5",
    "/approval": "show or set the approval mode: strict, ask, auto-edit, yolo",
    "/tools": "the tools and whether each asks first",
    "/sandbox": "show or set the sandbox: auto, read-only, workspace-write, off",
    "/sessions": "recent sessions",
    "/resume": "continue a stored session: /resume ID",
    "/compact": "summarise the conversation so far to free the context window",
    "/cost": "tokens and cost of this session",
    "/undo": "revert the file changes of the last turn (shows the diff, asks first)",
    "/rewind": "go back to before turn N (files and conversation): /rewind [N]",
    "/ps": "background commands: /ps, or /ps stop ID",
    "/mcp": "MCP servers: state, tools and errors",
    "/init": "ask the model to write an AGENTS.md for this project",
    "/memory": "the AGENTS.md instructions the model was given",
    "/trust": "this folder's .swebash/ settings: /trust, /trust add, /trust revoke",
    "/fix": "why this terminal's last failed command failed, and a fix: /fix [N]",
}

def _model_names(prefix: str) -> list[str]:
    from swebash_py.provider.modelnames import complete  # the table: on the first Tab

    return complete(prefix)


ARGUMENTS: dict[str, Sequence[str] | Callable[[str], Iterable[str]]] = {  # what Tab offers
    "/model": _model_names,
    "/trust": ("add", "revoke"),
    "/approval": APPROVAL_MODES,
    "/sandbox": SANDBOX_MODES,
}

INIT_PROMPT = """\
Write an AGENTS.md file for this project, in {cwd}: short, practical instructions \
for an AI coding assistant working here. Look around first (list the directory, read \
the README, the build and test configuration). Cover: what the project is, how to \
build, run and test it (exact commands), the code layout, conventions and things to \
avoid. Keep it under 60 lines of Markdown. {existing}Create it with write_file."""

HELP_FOOTER = """\
!command     run a shell command yourself; its output is attached to your next question
? task       ask for one shell command, then execute / edit / describe / abort it
?? command   explain a shell command in a few lines
@path        attach a file (text or image); @"a b.txt" or @a\\ b.txt for spaces
Esc Enter    new line (multi-line input; pasted text keeps its lines)
Ctrl-C       cancel the running answer or tool; on an empty prompt it does nothing
Tab          complete /commands and file paths
"""

EXIT = object()


class SlashCommands:
    def __init__(self, repl: Repl) -> None:
        self.repl = repl

    async def handle(self, line: str) -> object:
        name, _, arg = line.strip().partition(" ")
        if name in ("/exit", "/quit"):
            return EXIT
        method = getattr(self, "cmd_" + name[1:].replace("-", "_"), None)
        if name not in COMMANDS or method is None:
            custom = self.repl.custom_commands.get(name[1:])
            if custom is None:
                self.repl.say(f"unknown command {name}; /help lists them", "red")
                return None
            await self.repl.run_prompt(custom.expand(arg.strip()))
            return None
        await method(arg.strip())
        return None

    async def cmd_help(self, _arg: str) -> None:
        table = Table.grid(padding=(0, 2))
        for name, text in COMMANDS.items():
            table.add_row(Text(name, style="bold"), text)
        self.repl.console.print(table)
        custom = self.repl.custom_commands
        if custom:
            self.repl.say("custom commands:", "bold")
            table = Table.grid(padding=(0, 2))
            for name, command in sorted(custom.items()):
                table.add_row(Text("/" + name, style="bold"), Text(one_line(command.description)))
            self.repl.console.print(table)
        self.repl.console.print(Text(HELP_FOOTER, style="dim"))
        files = self.repl.extensions.instructions.files
        if files:
            self.repl.say("instructions from " + ", ".join(str(p) for p, _ in files)
                          + " (/memory shows them)", "dim")

    async def cmd_memory(self, _arg: str) -> None:
        instructions = self.repl.extensions.instructions
        if not instructions.files:
            self.repl.say("no AGENTS.md instructions (the user's "
                          f"{user_dir() / 'AGENTS.md'}, or one from the git root down to "
                          "here); /init writes one", "dim")
            return
        for path, text in instructions.files:
            self.repl.say(f"── {path}", "bold")
            self.repl.console.print(Text(neutralize(text.rstrip())))
        if instructions.cut:
            self.repl.say("(cut: AGENTS.md text is capped at 32 KiB in all)", "yellow")

    async def cmd_init(self, _arg: str) -> None:
        from pathlib import Path

        cwd = Path.cwd()
        existing = ("An AGENTS.md exists already: read it and improve it. "
                    if (cwd / "AGENTS.md").exists() else "")
        await self.repl.run_prompt(INIT_PROMPT.format(cwd=cwd, existing=existing))

    async def cmd_mcp(self, _arg: str) -> None:
        from swebash_py.mcpclient.listing import server_lines

        ext = self.repl.extensions
        project = ext.project
        if project.root is not None and not project.trusted:
            self.repl.say(f"{project.root}/.swebash/ is not used: {project.reason}", "yellow")
        if ext.mcp is None or not ext.mcp.connections:
            self.repl.say("no MCP servers configured ([mcp_servers.NAME] in the config file)"
                          if not self.repl.invocation.no_tools
                          else "no tools in this session (--no-tools)", "dim")
            return
        for connection in ext.mcp.connections.values():
            for i, line in enumerate(server_lines(connection)):
                self.repl.console.print(Text(line, style="bold" if i == 0 else ""))

    async def cmd_clear(self, _arg: str) -> None:
        self.repl.new_session()
        self.repl.console.clear()
        self.repl.say("new session (the old one stays stored: /sessions)", "dim")

    async def cmd_model(self, arg: str) -> None:
        agent = self.repl.agent
        if arg:
            from swebash_py.provider.modelnames import model_problem

            problem = model_problem(arg, agent.options.api_base,
                                    self.repl.runtime.client.backend_setting)
            if problem is not None and problem[0] == "refuse":  # it cannot work: kept as was
                self.repl.say(f"not changed: {problem[1]}", "red")
                return
            if problem is not None:  # allowed (new models, local servers), but said
                self.repl.say(f"note: {problem[1]}", "yellow")
            if refused := self._through_gate("model", arg):
                self.repl.say(refused, "yellow")
            else:
                agent.options.model = arg
                self.repl.recorder.model = arg
        route = self.repl.runtime.client.route_for(agent.options.model, agent.options.api_base)
        self.repl.say(f"model: {agent.options.model} ({route.describe()})")
        if route.backend == "litellm":
            self.repl.preload_litellm()

    async def cmd_approval(self, arg: str) -> None:
        approver = self.repl.approver
        if arg:
            if arg not in APPROVAL_MODES:
                self.repl.say(f"unknown mode {arg}: use {', '.join(APPROVAL_MODES)}", "red")
                return
            if refused := self._through_gate("approval", arg):
                self.repl.say(refused, "yellow")
            else:
                approver.mode = arg
        self.repl.say(f"approval: {approver.mode}")

    async def cmd_sandbox(self, arg: str) -> None:
        from swebash_py.repl.sandbox_notice import describe

        if arg:
            if arg not in SANDBOX_MODES:
                self.repl.say(f"unknown sandbox mode {arg}: use {', '.join(SANDBOX_MODES)}",
                              "red")
                return
            if refused := self._through_gate("sandbox.mode", arg):
                self.repl.say(refused, "yellow")
        self.repl.say(describe(self.repl.settings))

    def _through_gate(self, key: str, value: str) -> str | None:
        """Change setting ``key`` through the one settings gate (the managed policy
        is applied there, and nowhere here); the refusal line, or None when set."""
        import msgspec

        asked_as = f"/{key.split('.')[0]} {value}"
        try:
            return self.repl.settings.gate.change(self.repl.settings, key, value, asked_as)
        except msgspec.ValidationError as exc:  # nothing was set
            return f"{asked_as} ignored: {exc}"

    async def cmd_tools(self, _arg: str) -> None:
        from swebash_py.front.words import confirmation

        for tool in self.repl.runtime.registry.tools():
            asks = confirmation(tool.traits(), self.repl.approver.mode)
            self.repl.console.print(Text.assemble((f"{tool.name:<15}", "bold"),
                                                  f" asks: {asks}"))

    async def cmd_sessions(self, _arg: str) -> None:
        from swebash_py.front.words import DIR_WIDTH, age, directory_text, turns_text

        current = self.repl.recorder.session_id
        listed = self.repl.store.list_sessions(15)
        short = self.repl.store.short_ids([info.id for info in listed])
        for info in listed:  # the columns of `ai sessions list`: where each one was
            mark = "*" if info.id == current else " "
            self.repl.console.print(Text(
                f"{mark} {short[info.id]}  {age(info.updated):>9}  {turns_text(info.turns):>9}  "
                f"{directory_text(info.cwd):<{DIR_WIDTH}}  {(info.title or '')[:50]}"))

    async def cmd_resume(self, arg: str) -> None:
        if not arg:
            self.repl.say("usage: /resume ID (see /sessions)", "red")
            return
        info = self.repl.store.get_session(arg)
        if info is None:  # another host's, perhaps (with a store URL)
            info = await self._pull(arg)
        if info is None:
            self.repl.say(f"no session '{arg}'", "red")
            return
        self.repl.resume(info.id)
        self.repl.show_recap()

    async def _pull(self, key: str) -> Any:
        """The team store's session ``key``, copied in; None when there is none."""
        import asyncio

        from swebash_py.errors import SwebashError
        from swebash_py.team.remote import pull_session

        store = self.repl.store
        try:
            found = await asyncio.to_thread(pull_session, self.repl.settings, store, key)
        except SwebashError as exc:
            self.repl.say(str(exc), "red")
            return None
        return store.get_session(found) if found else None

    async def cmd_compact(self, _arg: str) -> None:
        agent = self.repl.agent
        if not agent.history:
            self.repl.say("nothing to compact yet", "dim")
            return
        fitter = self.repl.fitter
        tools = self.repl.runtime.registry.specs()
        messages, note = await fitter.compact(agent.options.system, agent.history, tools)
        if fitter.last is None or not fitter.last.compacted:
            self.repl.say("nothing was compacted (the summary request failed, or the "
                          "conversation is too short to shorten)", "yellow")
            return
        agent.history[:] = messages
        self.repl.recorder.checkpoint(agent.history)
        self.repl.say(note or "compacted", "dim")

    async def cmd_cost(self, _arg: str) -> None:
        session_id = self.repl.recorder.session_id
        if session_id is None:
            self.repl.say("no tokens used yet", "dim")
            return
        for turn in self.repl.store.turns(session_id):
            tokens = (turn.input_tokens, turn.output_tokens)
            self.repl.say(f"  turn {turn.seq}: {turn.input_tokens:,} in{cache_words(turn)}, "
                          f"{turn.output_tokens:,} out, {format_cost(turn.cost, tokens)}", "dim")
        usage = self.repl.store.session_usage(session_id)
        tokens_in, tokens_out, cost = usage.input_tokens, usage.output_tokens, usage.cost
        summaries = self.repl.fitter.summary_usage
        if summaries:  # compaction requests: real tokens, not part of any turn
            from swebash_py.engine.modelinfo import cost as price

            s_in, s_out = sum(u[1] for u in summaries), sum(u[2] for u in summaries)
            prices = [price(model, i, o) for model, i, o in summaries]
            s_cost = None if None in prices else sum(p or 0.0 for p in prices)
            self.repl.say(f"  compaction ({len(summaries)} request"
                          f"{'s' if len(summaries) > 1 else ''}): {s_in:,} in, {s_out:,} out, "
                          f"{format_cost(s_cost, (s_in, s_out))}", "dim")
            tokens_in, tokens_out = tokens_in + s_in, tokens_out + s_out
            cost = None if cost is None or s_cost is None else cost + s_cost
        shown = "unknown" if cost is None else f"${cost:.4f}"
        short = self.repl.short_id(session_id)
        self.repl.say(f"session {short}: {tokens_in:,} tokens in{cache_words(usage)}, "
                      f"{tokens_out:,} out, cost {shown}")


    async def cmd_undo(self, _arg: str) -> None:
        from swebash_py.repl.undo import undo

        await undo(self.repl)

    async def cmd_rewind(self, arg: str) -> None:
        from swebash_py.repl.undo import rewind

        await rewind(self.repl, arg)

    async def cmd_ps(self, arg: str) -> None:
        from swebash_py.repl.undo import ps

        await ps(self.repl, arg)

    async def cmd_fix(self, arg: str) -> None:
        await fix_in_repl(self.repl, arg)

    async def cmd_trust(self, arg: str) -> None:
        from swebash_py.repl.trusting import trust_command

        await trust_command(self.repl, arg)


async def fix_in_repl(repl: Repl, arg: str) -> None:
    """`/fix [N]`: the N-th last failed command of the terminal the REPL was
    started from (as `ai fix`), then run (as `!command`) / edit / copy / abort."""
    from swebash_py.front import shell_helper
    from swebash_py.shellhist.context import fix_question
    from swebash_py.shellhist.store import failed, read_history, terminal_id

    if not repl.settings.shell_init.history or terminal_id() is None:
        repl.say("no shell history for this terminal (`ai shell-init`, [shell_init] history)",
                 "yellow")
        return
    nth = int(arg) if arg.isdigit() and int(arg) > 0 else 1
    entry = failed(read_history(), nth)
    if entry is None:
        repl.say("no failed command in this terminal's history", "yellow")
        return
    answer: list[str] = []
    await repl._turn(fix_question(entry, shell_helper.user_shell().rsplit("/", 1)[-1]),
                     collect=answer)
    command = shell_helper.extract_fenced("".join(answer))
    if not command:
        return
    repl.console.print(Text(shell_helper.shown_command(command), style="bold"))
    while True:
        try:
            action = shell_helper.parse_fix_choice(await repl.read_line(shell_helper.FIX_CHOICES))
            if action == "edit":
                command = (await repl.read_line(
                    "edit> ", default=shell_helper.for_command_line(command))).strip()
                action = "run" if command else "abort"
        except (KeyboardInterrupt, EOFError):
            action = "abort"
        if action == "unclear":
            repl.say(shell_helper.FIX_UNCLEAR, "yellow")
            continue
        if action == "run":
            await repl._shell(command)
        elif action == "copy":
            repl.console.file.write(shell_helper.clipboard_sequence(command))
            repl.say(shell_helper.COPIED, "dim")
        else:
            repl.say(shell_helper.ABORTED, "yellow")
        return


def cache_words(usage: Any) -> str:
    """' (1,200 cache reads, 300 cache writes)' for what the prompt cache did; '' if nothing."""
    read, write = usage.cache_read_tokens, usage.cache_write_tokens
    if not (read or write):
        return ""
    return f" ({read:,} cache reads, {write:,} cache writes)"


def format_cost(cost: float | None, tokens: tuple[int, int]) -> str:
    """'$0.0012', or 'cost unknown' when tokens (in, out) were used at an unknown price."""
    if cost is not None:
        return f"${cost:.4f}"
    return "cost unknown" if any(tokens) else "$0.0000"
