"""Settings: defaults < config file < environment < flags.

The file is TOML (see ``config.example.toml``). Every problem becomes one
``ConfigError`` naming the file, the key and what is wrong.
"""

from __future__ import annotations

import os
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from swebash_py.cli.names import ApprovalMode, SandboxMode
from swebash_py.errors import ConfigError
from swebash_py.mcpclient.settings import McpServerSettings, check_server_names
from swebash_py.paths import config_path

if TYPE_CHECKING:
    from swebash_py.project.loading import ProjectStatus


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class ToolsSettings(Section):
    command_timeout: float = Field(120.0, gt=0)
    max_output_chars: int = Field(30_000, ge=1_000)
    workspace: Path | None = None  # checked to exist when loaded (load_settings)


def _check_rules(rules: list[str], wrap: str = "{}") -> list[str]:
    """Each rule parses (``ValueError`` naming the first that does not)."""
    from swebash_py.approvals.rules import parse_rule

    for rule in rules:
        parse_rule(wrap.format(rule))
    return rules


class PermissionsSettings(Section):
    allow: list[str] = Field(default_factory=list)
    deny: list[str] = Field(default_factory=list)

    @field_validator("allow", "deny")
    @classmethod
    def _valid_rules(cls, rules: list[str]) -> list[str]:
        return _check_rules(rules)


class WebSearchSettings(Section):
    backend: Literal["duckduckgo", "searxng", "brave"] = "duckduckgo"
    searxng_url: str | None = None
    max_results: int = Field(5, ge=1, le=10)
    brave_api_key_env: str = "BRAVE_API_KEY"

    @field_validator("searxng_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value and not value.startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL")
        return value or None


class HooksSettings(Section):
    pre_tool: list[str] = Field(default_factory=list)
    post_tool: list[str] = Field(default_factory=list)
    timeout: float = Field(60.0, gt=0)


class SandboxSettings(Section):
    mode: SandboxMode = "auto"
    network: bool = False
    writable_roots: list[Path] = Field(default_factory=list)
    host_allow: list[str] = Field(default_factory=list)
    preview: bool = True
    preview_max_mb: int = Field(1024, ge=1)

    @field_validator("host_allow")
    @classmethod
    def _valid_patterns(cls, patterns: list[str]) -> list[str]:
        return _check_rules(patterns, "run_command({})")


class StoreSettings(Section):
    url: str | None = None  # postgresql://... (the team store); never printed whole
    upload_output: bool = False

    @field_validator("url")
    @classmethod
    def _postgres_only(cls, value: str | None) -> str | None:
        if value and not value.startswith(("postgresql://", "postgres://")):
            raise ValueError("must be a postgresql:// URL")
        return value or None


class ShellInitSettings(Section):
    key: str = "alt-\\"  # the key `ai shell-init` binds: alt-X or ctrl-X


class Settings(Section):
    model: str | None = None
    api_base: str | None = None
    temperature: float | None = Field(None, ge=0, le=2)
    max_tokens: int | None = Field(None, gt=0)
    context_window: int | None = Field(None, gt=0)
    max_iterations: int = Field(25, ge=1)
    max_retries: int = Field(4, ge=0, le=20)
    connect_timeout: float = Field(10.0, gt=0)
    stream_idle_timeout: float = Field(120.0, gt=0)
    approval: ApprovalMode = "ask"
    backend: Literal["auto", "direct", "litellm"] = "auto"
    system_prompt: str | None = None
    editing_mode: Literal["emacs", "vi"] = "emacs"
    notify: bool = True  # ring when a long turn ends or a question waits, unseen
    notify_after: float = Field(10.0, ge=0)  # seconds a turn must take to ring at its end
    notify_method: Literal["bell", "osc9"] = "bell"
    tools: ToolsSettings = Field(default_factory=lambda: ToolsSettings.model_validate({}))
    permissions: PermissionsSettings = Field(
        default_factory=lambda: PermissionsSettings.model_validate({}))
    web_search: WebSearchSettings = Field(
        default_factory=lambda: WebSearchSettings.model_validate({}))
    hooks: HooksSettings = Field(default_factory=lambda: HooksSettings.model_validate({}))
    sandbox: SandboxSettings = Field(
        default_factory=lambda: SandboxSettings.model_validate({}))
    store: StoreSettings = Field(default_factory=lambda: StoreSettings.model_validate({}))
    mcp_servers: dict[str, McpServerSettings] = Field(default_factory=dict)
    shell_init: ShellInitSettings = Field(
        default_factory=lambda: ShellInitSettings.model_validate({}))
    _project: ProjectStatus | None = PrivateAttr(default=None)  # this run's, if decided

    @field_validator("mcp_servers")
    @classmethod
    def _server_names(cls, servers: dict[str, McpServerSettings]
                      ) -> dict[str, McpServerSettings]:
        check_server_names(servers)
        return servers

    @property
    def project(self) -> ProjectStatus | None:
        """Whether this folder's ``.swebash/`` counts (None: not looked at)."""
        return self._project

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
                  project: Callable[[Path], Any] | None = None) -> Settings:
    """Merge defaults, the config file, a trusted project's ``.swebash/config.toml``
    (``project`` decides, given the workspace; None ignores it), the environment
    and ``flags``."""
    path = path or config_path()
    data = read_config_file(path)
    status = None
    if project is not None:
        from swebash_py.project.settings import merge_project

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
    data = _managed(data, flags or {})
    try:
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(exc, path, flags or {})) from exc
    configured = settings.tools.workspace
    if configured is not None and not configured.expanduser().is_dir():
        source = _source_of("tools.workspace", path, flags or {})
        raise ConfigError(f"config error: {source}: key 'tools.workspace': no such directory: "
                          f"{configured}")
    settings._project = status
    return settings


def _workspace_of(data: dict[str, Any]) -> Path:
    tools = data.get("tools")
    configured = tools.get("workspace") if isinstance(tools, dict) else None
    return Path(str(configured) if configured else Path.cwd()).expanduser().resolve()


def _managed(data: dict[str, Any], flags: dict[str, Any]) -> dict[str, Any]:
    """Lay the managed policy (``managed.py``) over everything else, if there is one."""
    from swebash_py import managed

    path = managed.managed_path()
    fixed = read_config_file(path)
    if not fixed:
        return data
    return managed.apply(data, flags, fixed, path, _notice)


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
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config error: {path}: invalid TOML: {exc}") from exc


def describe_validation_error(exc: ValidationError, path: Path, flags: dict[str, Any]) -> str:
    """One line: where the bad value came from, which key, what is wrong."""
    first = exc.errors()[0]
    key = ".".join(str(part) for part in first["loc"])
    source = _source_of(key, path, flags)
    if first["type"] == "extra_forbidden":
        problem = "unknown key" + _did_you_mean(first["loc"])
    elif key == "store.url":  # the input may hold a password: never echo it
        problem = str(first["msg"])
    elif first["type"] == "value_error":  # our own validators: the message says it all
        problem = str(first["msg"]).removeprefix("Value error, ")
    else:
        problem = f"{first['msg']} (got {first.get('input')!r})"
    more = len(exc.errors()) - 1
    suffix = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
    return f"config error: {source}: key '{key}': {problem}{suffix}"


def _did_you_mean(loc: tuple[int | str, ...]) -> str:
    """`; did you mean 'model'?` for a misspelt key (``modle``), else ''."""
    import difflib

    model: Any = Settings
    for part in loc[:-1]:  # walk down to the table that holds the key
        field = model.model_fields.get(str(part)) if hasattr(model, "model_fields") else None
        model = getattr(field, "annotation", None) if field else None
    names = list(getattr(model, "model_fields", {}))
    close = difflib.get_close_matches(str(loc[-1]), names, n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


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
    from swebash_py import managed

    path = managed.managed_path()
    try:
        table: Any = read_config_file(path)
    except ConfigError:
        return None
    for part in key.split("."):
        if not isinstance(table, dict) or part not in table:
            return None
        table = table[part]
    return f"managed policy {path}"
