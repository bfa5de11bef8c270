"""A tool is an async function plus metadata, declared once, in its class.

The class holds everything about a tool: its ``name``, ``description``,
arguments (``Args``: a msgspec Struct, ``tools.args.ToolArgs``, unknown fields
rejected; its JSON schema is what the model sees) and traits (``ToolTraits``):
its ``kind``, which argument is a path, which holds a shell command, which asks
to leave the sandbox, whether it is ``read_only`` (changes nothing, so it is
safe to run concurrently), whether it can run as a preview, and its default
approval. The generated catalog (``tools.catalog``) is made from the classes.
Rules, the policy, the sandbox grant, previews, `ai tools` and the executor
read the traits; nothing outside ``tools/`` looks at a tool's name to decide
what it does (tests/architecture/test_no_tool_names.py). Failures a model can
act on are returned as ``ToolResult(is_error=True)``, never raised
(``ToolFailed`` is the shortcut for raising one from deep inside a tool).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeVar

from swebash_py.config.settings import SandboxSettings
from swebash_py.provider.base import ToolSpec

if TYPE_CHECKING:
    from swebash_py.checkpoints.model import Checkpointer
    from swebash_py.sandbox.runner import Runner
    from swebash_py.tools.args import ToolArgs

A = TypeVar("A", bound="ToolArgs")

ToolKind = Literal["read", "edit", "execute", "fetch", "other"]
# How a call is approved by default (under `ask`; the modes and rules adjust it):
#   inside-workspace  runs inside the workspace, asks outside (reads)
#   auto-edit         asks; runs inside the workspace under `auto-edit` (edits)
#   command           asks unless every command in it is allowed (by a rule or
#                     the built-in read-only list)
#   ask               asks unless an allow rule matches (the default of
#                     anything else: web tools, MCP tools)
#   allow             runs without a question (strict still asks): reading or
#                     stopping a background command the user already allowed
DefaultApproval = Literal["inside-workspace", "auto-edit", "command", "ask", "allow"]
_APPROVAL_BY_KIND: dict[ToolKind, DefaultApproval] = {
    "read": "inside-workspace", "edit": "auto-edit", "execute": "command",
    "fetch": "ask", "other": "ask"}


@dataclass(frozen=True)
class ToolTraits:
    """What the approvals, rules, `ai tools` and the executor know of a tool."""

    name: str
    kind: ToolKind = "other"
    path_arg: str | None = None  # the argument that names a path, if any
    read_only: bool = False  # changes nothing: safe to run concurrently
    approval: DefaultApproval | None = None  # None: the kind's default
    shows: str = ""  # what the approval question shows, e.g. "a diff"
    # the argument holding a shell command line: rules match their pattern against
    # it, its parsed commands are judged, it runs in a sandbox grant (host_allow)
    command_arg: str | None = None
    escalate_arg: str | None = None  # the argument that asks to run outside the sandbox
    previews: bool = False  # a call that would ask may run as a preview first (an overlay)

    @property
    def default_approval(self) -> DefaultApproval:
        return self.approval or _APPROVAL_BY_KIND[self.kind]

    @property
    def takes_pattern(self) -> bool:
        """Whether a rule may narrow the tool with ``TOOL(PATTERN)``."""
        return self.path_arg is not None or self.command_arg is not None

    def escalates(self, args: dict[str, Any]) -> bool:
        """Whether this call asks to run outside the sandbox."""
        return self.escalate_arg is not None and bool(args.get(self.escalate_arg))


@dataclass
class ToolContext:
    """What a running tool may use: where it works, its limits, a progress sink."""

    workspace: Path
    command_timeout: float = 120.0
    max_output_chars: int = 30_000
    progress: Callable[[str], None] = lambda _text: None
    env: dict[str, str] | None = None
    sandbox: SandboxSettings = field(  # [sandbox]: the walls a command runs in
        default_factory=SandboxSettings)
    checkpoints: Checkpointer | None = None  # file changes are recorded here for /undo
    jobs: Any = None  # background commands (tools.background.JobTable)
    grant: str = "write"  # read | write | host: the sandbox this call runs in (approvals.grant)
    runner: Runner | None = None  # how its processes run (None: sandbox.runner.DIRECT); the
    # executor picks it from the call's execution plan (a preview's catches the writes)


@dataclass
class ToolResult:
    """What a tool returns. ``output`` goes to the model (capped by the
    executor); ``display`` is an optional richer view for the user (a diff)."""

    output: str
    is_error: bool = False
    display: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


def redact_result(result: ToolResult) -> ToolResult:
    """A copy of ``result`` with ``output`` and ``display`` free of our secret values."""
    from swebash_py.process.values import redact, secret_values  # here: a tool call's

    values = secret_values()
    if not values:
        return result
    display = result.display
    return replace(result, output=redact(result.output, values),
                   display=redact(display, values) if display else display)


@dataclass
class Preview:
    """What a call would do, for the approval question.

    ``paths`` are resolved paths the call touches; ``outside`` is true when
    any of them is outside the workspace; ``sensitive`` when any is a
    secrets path; ``detail`` is the full command, the new file or the diff.
    ``must_ask`` (a reason) makes the call ask whatever the mode or the allow
    rules say (a fetch from a private address); only a deny rule beats it.
    """

    summary: str
    detail: str | None = None
    detail_kind: str = "text"  # "text" | "diff" | "command" | "file" | "replaced" (unreadable)
    paths: list[Path] = field(default_factory=list)
    outside: bool = False
    sensitive: bool = False
    protected: bool = False
    warnings: list[str] = field(default_factory=list)
    output: str | None = None  # a preview run's output (tail), for the changes question
    changes: str | None = None  # a preview run's changes (preview.summary)
    must_ask: str | None = None


class Tool(ABC, Generic[A]):
    """Base class: subclasses set the class attributes and implement ``run``."""

    name: ClassVar[str]
    description: ClassVar[str]
    Args: ClassVar[type[ToolArgs]]
    kind: ClassVar[ToolKind] = "other"
    path_arg: ClassVar[str | None] = None
    read_only: ClassVar[bool] = False
    approval: ClassVar[DefaultApproval | None] = None
    shows: ClassVar[str] = ""
    command_arg: ClassVar[str | None] = None
    escalate_arg: ClassVar[str | None] = None
    previews: ClassVar[bool] = False

    @classmethod
    def configured(cls, settings: Any) -> Tool[Any]:
        """An instance configured from the settings (override to read them)."""
        return cls()

    @classmethod
    def traits(cls) -> ToolTraits:
        return ToolTraits(cls.name, cls.kind, cls.path_arg, cls.read_only, cls.approval,
                          cls.shows, cls.command_arg, cls.escalate_arg, cls.previews)

    @abstractmethod
    async def run(self, args: A, ctx: ToolContext) -> ToolResult:
        """Do the work. May raise ``ToolFailed``; honours cancellation."""

    def preview(self, args: A, ctx: ToolContext) -> Preview:
        """Describe the call for an approval question (override for detail)."""
        import msgspec  # here: only a tool without its own preview needs it (compact JSON)

        shown = msgspec.json.encode(args.to_dict()).decode()
        return Preview(summary=f"{self.name} {shown}")

    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, self.Args.json_schema())
