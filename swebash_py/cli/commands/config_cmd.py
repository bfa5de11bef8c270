"""`ai config show|init|path`."""

from __future__ import annotations

import json
import os
import re
from importlib import resources
from typing import Annotated, Any

import typer

from swebash_py.config import Settings, load_settings
from swebash_py.paths import config_path, data_dir

app = typer.Typer(help="Show, create or locate the configuration.", no_args_is_help=True,
                  add_completion=False)

_SECRET_KEY = re.compile(r"(key|token|secret|password)", re.IGNORECASE)


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
    """Print the effective configuration (secrets redacted) and where it came from."""
    settings = load_settings()
    report = effective_report(settings)
    if as_json:
        typer.echo(json.dumps(report, indent=2, default=str))
        return
    for line in format_report(report):
        typer.echo(line)


def effective_report(settings: Settings) -> dict[str, Any]:
    from swebash_py.approvals import remembered
    from swebash_py.provider.routing import route

    values = redact(settings.model_dump(mode="json"))
    values["model"] = settings.resolved_model
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
    lines += _toml_lines(report["settings"])
    rules = report["remembered_rules"]
    lines.append("")
    lines.append("# remembered 'always' rules for this workspace"
                 + ("" if rules else ": none"))
    lines += [f"#   {rule}" for rule in rules]
    if rules:
        lines.append("# remove one with: ai config forget 'RULE'")
    return lines


def _toml_lines(settings: dict[str, Any]) -> list[str]:
    top = [f"{k} = {_toml_value(v)}" for k, v in settings.items() if not isinstance(v, dict)]
    tables = []
    for name, table in settings.items():
        if name == "mcp_servers" and isinstance(table, dict):
            for server, keys in table.items():
                tables += ["", f"[mcp_servers.{server}]",
                           *(f"{k} = {_toml_value(v)}" for k, v in keys.items())]
        elif isinstance(table, dict):
            tables += ["", f"[{name}]", *(f"{k} = {_toml_value(v)}" for k, v in table.items())]
    return [*top, *tables]


def _toml_value(value: Any) -> str:
    if value is None:
        return "# (unset)"
    return json.dumps(value)


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
