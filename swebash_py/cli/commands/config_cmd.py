"""`ai config show|init|path`."""

from __future__ import annotations

import json
import os
import re
from importlib import resources
from typing import Annotated, Any

import typer

from swebash_py.cli.settings import load_settings
from swebash_py.config.paths import config_path, data_dir
from swebash_py.config.settings import Settings

app = typer.Typer(help="Show, create or locate the configuration.", no_args_is_help=True,
                  add_completion=False)

# Names that hold a secret (engine.secrets' words): a bare "key" is not one (the
# shell-init key binding is `alt-\`, shown as it is).
_SECRET_KEY = re.compile(r"(api_?key|access_?key|private_?key|secret|token|password|passwd"
                         r"|credential)", re.IGNORECASE)


def example_text() -> str:
    """The commented example configuration shipped with the package."""
    return resources.files("swebash_py").joinpath("data/config.example.toml").read_text("utf-8")


@app.command("path")
def path() -> None:
    """Print where the configuration file is (it may not exist yet)."""
    typer.echo(str(config_path()))


@app.command("init")
def init(force: Annotated[bool, typer.Option("--force", help="overwrite")] = False) -> None:
    """Write a commented configuration file with every key."""
    target = config_path()
    if target.exists() and not force:
        typer.echo(f"ai: {target} exists already (use --force to overwrite)", err=True)
        raise typer.Exit(1)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(example_text(), encoding="utf-8")
    typer.echo(f"wrote {target}")


@app.command("show")
def show(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """Print the effective configuration (secrets redacted) and where each value
    came from. A broken configuration is named, then the defaults are shown."""
    from swebash_py.errors import ConfigError

    try:
        settings, problem = load_settings(), None
    except ConfigError as exc:
        settings, problem = Settings(), str(exc)
        typer.echo(f"ai: {exc}", err=True)
    report = effective_report(settings)
    report["sources"] = value_sources()
    if problem:
        report["error"] = problem
    if as_json:
        typer.echo(json.dumps(report, indent=2, default=str))
        raise typer.Exit(1 if problem else 0)
    for line in format_report(report):
        typer.echo(line)
    if problem:
        raise typer.Exit(1)


def value_sources() -> dict[str, str]:
    """Where each top-level key set anywhere comes from: the environment or the file
    (flags do not reach `ai config show`); keys absent here are defaults."""
    from swebash_py.config.settings import _ENV_KEYS, read_config_file
    from swebash_py.errors import ConfigError

    sources: dict[str, str] = {}
    try:
        for key in read_config_file(config_path()):
            sources[key] = "config file"
    except ConfigError:
        pass
    for variable, key in _ENV_KEYS.items():
        if os.environ.get(variable):
            sources[key] = f"environment ${variable}"
    return {**sources, **_managed_sources(sources)}


def _managed_sources(others: dict[str, str]) -> dict[str, str]:
    """Keys the managed policy sets: it wins over everything (its tables merge)."""
    from swebash_py.config import managed
    from swebash_py.config.settings import read_config_file
    from swebash_py.errors import ConfigError

    path = managed.managed_path()
    try:
        fixed = read_config_file(path)
    except ConfigError:
        return {}
    return {key: (f"{others[key]} + managed policy {path}"
                  if isinstance(value, dict) and key in others else f"managed policy {path}")
            for key, value in fixed.items()}


def effective_report(settings: Settings) -> dict[str, Any]:
    from swebash_py.approvals import remembered
    from swebash_py.provider.routing import route

    values = redact(settings.to_data())
    values["model"] = settings.resolved_model
    if settings.store.url:
        from swebash_py.team.url import mask

        values["store"]["url"] = mask(settings.store.url)  # never the password
    return {
        "config_file": str(config_path()),
        "config_file_exists": config_path().exists(),
        "data_dir": str(data_dir()),
        "settings": values,
        "model_backend": route(settings.resolved_model, settings.api_base,
                               settings.backend).describe(),
        "api_keys": {name: "set" for name in sorted(os.environ) if name.endswith("_API_KEY")},
        "remembered_rules": remembered.load(settings.workspace),
    }


def redact(value: Any, key: str = "") -> Any:
    """Replace values of secret-looking keys with '***' (and every literal value of
    an MCP server's ``env`` and ``headers``: tokens hide under any name there)."""
    if isinstance(value, dict) and key in ("env", "headers"):
        return {k: v if re.fullmatch(r"\$\{\w+\}", str(v)) else "***"
                for k, v in value.items()}
    if isinstance(value, dict):
        return {k: redact(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v, key) for v in value]
    if (value and isinstance(value, str) and _SECRET_KEY.search(key)
            and not key.endswith("_env")):
        return "***"
    if isinstance(value, str) and "://" in value:  # api_base and other URLs: userinfo
        from swebash_py.engine.secrets import redact_userinfo

        return redact_userinfo(value)
    return value


def format_report(report: dict[str, Any]) -> list[str]:
    exists = "" if report["config_file_exists"] else "  (not created: `ai config init`)"
    lines = [f"# config file: {report['config_file']}{exists}",
             f"# data dir:    {report['data_dir']}",
             f"# backend:     {report['model_backend']}"]
    keys = ", ".join(report["api_keys"]) or "none"
    lines.append(f"# API keys in the environment: {keys}")
    if report.get("error"):
        lines.append("# the configuration could not be used (see the error above): "
                     "these are the defaults")
    lines.append("# each value: from the config file, the environment, or the default")
    lines += _toml_lines(report["settings"], report.get("sources", {}))
    rules = report["remembered_rules"]
    lines.append("")
    lines.append("# remembered 'always' rules for this workspace"
                 + ("" if rules else ": none"))
    lines += [f"#   {rule}" for rule in rules]
    if rules:
        lines.append("# remove one with: ai config forget 'RULE'")
    return lines


def _toml_lines(settings: dict[str, Any], sources: dict[str, str]) -> list[str]:
    """Valid TOML: unset keys are comments; each value says where it came from."""
    def line(key: str, value: Any, source: str) -> str:
        if value is None:
            return f"# {key} = (unset)"
        return f"{key} = {json.dumps(value)}  # {source}"

    top = [line(k, v, sources.get(k, "default")) for k, v in settings.items()
           if not isinstance(v, dict)]
    tables = []
    for name, table in settings.items():
        if name == "mcp_servers" and isinstance(table, dict):
            source = sources.get(name, "default")
            for server, keys in table.items():
                tables += ["", f"[mcp_servers.{server}]",
                           *(line(k, v, source) for k, v in keys.items())]
        elif isinstance(table, dict):
            source = sources.get(name, "default")
            tables += ["", f"[{name}]", *(line(k, v, source) for k, v in table.items())]
    return [*top, *tables]


@app.command("forget")
def forget(rule: str) -> None:
    """Remove a remembered 'always' rule for this workspace."""
    from swebash_py.approvals import remembered

    settings = load_settings()
    if remembered.remove(settings.workspace, rule):
        typer.echo(f"forgot {rule}")
        return
    typer.echo(f"ai: no remembered rule {rule!r} for {settings.workspace}", err=True)
    raise typer.Exit(1)
