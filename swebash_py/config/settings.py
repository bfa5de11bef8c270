"""Settings: defaults < config file < environment < flags.

The file is TOML (see ``config.example.toml``); each table is a ``Table``
(``configtable``: a msgspec Struct). Every problem becomes one ``ConfigError``
naming the file, the key and what is wrong (``configerrors``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec

from swebash_py.config.mcp import McpServerSettings, check_server_names
from swebash_py.config.names import ApprovalMode, SandboxMode
from swebash_py.config.paths import config_path
from swebash_py.config.table import Table, check_field
from swebash_py.errors import ConfigError

if TYPE_CHECKING:
    from swebash_py.config.gate import Check, SettingsGate
    from swebash_py.config.project import ProjectStatus

Positive = Annotated[float, msgspec.Meta(gt=0)]  # seconds, mostly
PositiveInt = Annotated[int, msgspec.Meta(gt=0)]


class ToolsSettings(Table):
    command_timeout: Positive = 120.0
    max_output_chars: Annotated[int, msgspec.Meta(ge=1_000)] = 30_000
    workspace: Path | None = None  # checked to exist when loaded (load_settings)
    text_tool_calls: bool = True  # calls a model writes as text are run (agent.textcalls)


class PermissionsSettings(Table):
    # rule TEXT only: the rules' syntax is the approvals layer's (approvals.rules),
    # checked at load by the check the caller passes in (load_settings(checks=))
    allow: list[str] = msgspec.field(default_factory=list)
    deny: list[str] = msgspec.field(default_factory=list)


def _http_url(value: str | None) -> None:
    if value and not value.startswith(("http://", "https://")):
        raise ValueError("must be an http:// or https:// URL")


class WebSearchSettings(Table):
    backend: Literal["duckduckgo", "searxng", "brave"] = "duckduckgo"
    searxng_url: str | None = None
    max_results: Annotated[int, msgspec.Meta(ge=1, le=10)] = 5
    brave_api_key_env: str = "BRAVE_API_KEY"

    def __post_init__(self) -> None:
        check_field("searxng_url", _http_url, self.searxng_url)
        self.searxng_url = self.searxng_url or None


class HooksSettings(Table):
    pre_tool: list[str] = msgspec.field(default_factory=list)
    post_tool: list[str] = msgspec.field(default_factory=list)
    timeout: Positive = 60.0


class SandboxSettings(Table):
    mode: SandboxMode = "auto"
    network: bool = False
    writable_roots: list[Path] = msgspec.field(default_factory=list)
    host_allow: list[str] = msgspec.field(default_factory=list)  # command rule text, as above
    preview: bool = True
    preview_max_mb: Annotated[int, msgspec.Meta(ge=1)] = 1024


def _postgres_only(value: str | None) -> None:
    if value and not value.startswith(("postgresql://", "postgres://")):
        raise ValueError("must be a postgresql:// URL")


class StoreSettings(Table):
    url: str | None = None  # postgresql://... (the team store); never printed whole
    upload_output: bool = False

    def __post_init__(self) -> None:
        check_field("url", _postgres_only, self.url)
        self.url = self.url or None


class ShellInitSettings(Table):
    key: str = "alt-\\"  # the key `ai shell-init` binds: alt-X or ctrl-X
    history: bool = True  # the snippet records each finished command (for `ai fix`)


class UiSettings(Table):
    usage: bool = True  # one dim line of tokens (and cost) after each answer on a terminal


class Settings(Table, dict=True):  # dict: room for the run's project status, not a key
    model: str | None = None
    api_base: str | None = None
    temperature: Annotated[float, msgspec.Meta(ge=0, le=2)] | None = None
    max_tokens: PositiveInt | None = None
    context_window: PositiveInt | None = None
    supports_vision: bool | None = None  # the model takes images (None: the table says)
    max_iterations: Annotated[int, msgspec.Meta(ge=1)] = 25
    max_retries: Annotated[int, msgspec.Meta(ge=0, le=20)] = 4
    connect_timeout: Positive = 10.0
    stream_idle_timeout: Positive = 120.0
    approval: ApprovalMode = "ask"
    backend: Literal["auto", "direct", "litellm"] = "auto"
    system_prompt: str | None = None
    editing_mode: Literal["emacs", "vi"] = "emacs"
    notify: bool = True  # ring when a long turn ends or a question waits, unseen
    notify_after: Annotated[float, msgspec.Meta(ge=0)] = 10.0  # seconds a turn must take
    notify_method: Literal["bell", "osc9"] = "bell"
    tools: ToolsSettings = msgspec.field(default_factory=ToolsSettings)
    permissions: PermissionsSettings = msgspec.field(default_factory=PermissionsSettings)
    web_search: WebSearchSettings = msgspec.field(default_factory=WebSearchSettings)
    hooks: HooksSettings = msgspec.field(default_factory=HooksSettings)
    sandbox: SandboxSettings = msgspec.field(default_factory=SandboxSettings)
    store: StoreSettings = msgspec.field(default_factory=StoreSettings)
    mcp_servers: dict[str, McpServerSettings] = msgspec.field(default_factory=dict)
    shell_init: ShellInitSettings = msgspec.field(default_factory=ShellInitSettings)
    ui: UiSettings = msgspec.field(default_factory=UiSettings)

    def __post_init__(self) -> None:
        check_field("mcp_servers", check_server_names, self.mcp_servers)

    @property
    def project(self) -> ProjectStatus | None:
        """Whether this folder's ``.swebash/`` counts (None: not looked at)."""
        status: ProjectStatus | None = self.__dict__.get("_project")
        return status

    def set_project(self, status: ProjectStatus | None) -> None:
        self.__dict__["_project"] = status

    @property
    def gate(self) -> SettingsGate:
        """The one gate a later change of these settings goes through (the
        managed policy read at load; read now for settings built otherwise)."""
        gate: SettingsGate | None = self.__dict__.get("_gate")
        if gate is None:
            from swebash_py.config.gate import SettingsGate
            from swebash_py.config.managed import ManagedPolicy

            gate = self.__dict__["_gate"] = SettingsGate(ManagedPolicy.load(), _notice)
        return gate

    def set_gate(self, gate: SettingsGate) -> None:
        self.__dict__["_gate"] = gate

    @property
    def resolved_model(self) -> str:
        """The model to use: the configured one, else one whose key is set."""
        return self.model or default_model()

    @property
    def workspace(self) -> Path:
        return (self.tools.workspace or Path.cwd()).expanduser().resolve()


_KEY_DEFAULTS = (
    ("OPENAI_API_KEY", "openai/gpt-4o-mini"),
    ("ANTHROPIC_API_KEY", "anthropic/claude-sonnet-4-5"),
    ("GEMINI_API_KEY", "gemini/gemini-2.5-flash"),
)


def default_model() -> str:
    """The first provider whose API key is set; OpenAI when none is."""
    for variable, model in _KEY_DEFAULTS:
        if os.environ.get(variable):
            return model
    return _KEY_DEFAULTS[0][1]


_ENV_KEYS = {"SWEBASH_MODEL": "model", "SWEBASH_API_BASE": "api_base",
             "SWEBASH_APPROVAL": "approval"}


def load_settings(flags: dict[str, Any] | None = None, path: Path | None = None, *,
                  project: Callable[[Path], Any] | None = None,
                  checks: Mapping[str, Check] | None = None) -> Settings:
    """Merge defaults, the config file, a trusted project's ``.swebash/config.toml``
    (``project`` decides, given the workspace; None ignores it), the environment
    and ``flags``. ``checks`` (dotted key → check) are the checks of values whose
    meaning a higher layer owns (the permission rules: ``cli.settings`` passes the
    approvals layer's); the settings gate runs them now and on a later change, and a
    problem is the same one line as any bad value."""
    path = path or config_path()
    data = read_config_file(path)
    status = None
    if project is not None:
        from swebash_py.config.project import merge_project

        status = project(_workspace_of(data))
        data = merge_project(data, status.config)
    for variable, key in _ENV_KEYS.items():
        if value := os.environ.get(variable):
            data[key] = value
    if url := os.environ.get("SWEBASH_STORE_URL"):
        data["store"] = {**(data.get("store") or {}), "url": url}
    for key, value in (flags or {}).items():
        if value is not None and key == "sandbox_mode":
            section = data.get("sandbox")
            data["sandbox"] = {**(section if isinstance(section, dict) else {}), "mode": value}
        elif value is not None:
            data[key] = value
    gate = _gate(checks)
    data = gate.merge(data, flags or {})
    try:
        settings = Settings.from_data(data)
    except msgspec.ValidationError as exc:
        from swebash_py.config.errors import describe

        source_of = partial(_source_of, path=path, flags=flags or {})
        raise ConfigError(describe(exc, data, Settings, source_of)) from exc
    gate.check(settings, partial(_source_of, path=path, flags=flags or {}))
    configured = settings.tools.workspace
    if configured is not None and not configured.expanduser().is_dir():
        source = _source_of("tools.workspace", path, flags or {})
        raise ConfigError(f"config error: {source}: key 'tools.workspace': no such directory: "
                          f"{configured}")
    settings.set_project(status)
    settings.set_gate(gate)
    return settings


def _workspace_of(data: dict[str, Any]) -> Path:
    tools = data.get("tools")
    configured = tools.get("workspace") if isinstance(tools, dict) else None
    return Path(str(configured) if configured else Path.cwd()).expanduser().resolve()


def _gate(checks: Mapping[str, Check] | None = None) -> SettingsGate:
    """The gate with the managed policy in force and the checks passed in."""
    from swebash_py.config.gate import SettingsGate
    from swebash_py.config.managed import ManagedPolicy

    return SettingsGate(ManagedPolicy.load(), _notice, checks)


def _notice(message: str) -> None:
    sys.stderr.write(f"ai: note: {message}\n")


def read_config_file(path: Path) -> dict[str, Any]:
    """The parsed TOML file, or ``{}`` when there is none."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"config error: {path}: cannot read: {exc}") from exc
    import tomllib  # only with a file to read (most runs have no managed policy)

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config error: {path}: invalid TOML: {exc}") from exc


def _source_of(key: str, path: Path, flags: dict[str, Any]) -> str:
    top = key.split(".")[0]
    if managed_file := managed_source(key):
        return managed_file
    if flags.get(top) is not None:
        return "command line"
    for variable, name in _ENV_KEYS.items():
        if name == top and os.environ.get(variable):
            return f"environment variable {variable}"
    if key == "store.url" and os.environ.get("SWEBASH_STORE_URL"):
        return "environment variable SWEBASH_STORE_URL"
    return str(path)


def managed_source(key: str) -> str | None:
    """The managed policy file, when it sets ``key`` (a dotted path)."""
    from swebash_py.config.managed import ManagedPolicy

    try:
        policy = ManagedPolicy.load()
    except ConfigError:
        return None
    return policy.source if policy.value(key) is not None else None
