"""The settings layer: values, defaults and the one line a bad value gets
(``config error: SOURCE: key 'a.b': PROBLEM``), for every kind of problem."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from swebash_py.cli.settings import load_settings
from swebash_py.config import settings as config_settings
from swebash_py.config.mcp import McpServerSettings
from swebash_py.config.settings import Settings
from swebash_py.errors import ConfigError

SERVER_NAME_RULE = "use letters, digits, '-' and single '_' (at most 32 characters)"


def error_of(isolated: Path, body: str, flags: dict[str, str] | None = None) -> str:
    config = isolated / "config.toml"
    config.write_text(body + "\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(flags)
    line = str(caught.value)
    prefix = f"config error: {config}: "
    assert line.startswith(prefix) and "\n" not in line, line
    return line.removeprefix(prefix)


@pytest.mark.parametrize(("body", "said"), [
    ("modle = 'x'", "key 'modle': unknown key; did you mean 'model'?"),
    ("zzz = 1", "key 'zzz': unknown key"),
    ("[sandbox]\nmde = 'off'", "key 'sandbox.mde': unknown key; did you mean 'mode'?"),
    ("[mcp_servers.docs]\ncomand = 'x'",
     "key 'mcp_servers.docs.comand': unknown key; did you mean 'command'?"),
    ("_project = 1", "key '_project': unknown key"),  # the run's project status is no key
    ("max_iterations = 0", "key 'max_iterations': Input should be greater than or equal "
                           "to 1 (got 0)"),
    ("temperature = 3", "key 'temperature': Input should be less than or equal to 2 (got 3)"),
    ("[tools]\ncommand_timeout = 0",
     "key 'tools.command_timeout': Input should be greater than 0 (got 0)"),
    ("[tools]\ncommand_timeout = 'soon'",
     "key 'tools.command_timeout': Input should be a valid number (got 'soon')"),
    ("max_iterations = 2.5", "key 'max_iterations': Input should be a valid integer (got 2.5)"),
    ("model = 5", "key 'model': Input should be a valid string (got 5)"),
    ("notify = 2", "key 'notify': Input should be a valid boolean (got 2)"),
    ("tools = 5", "key 'tools': Input should be a valid dictionary (got 5)"),
    ("[permissions]\nallow = 'x'", "key 'permissions.allow': Input should be a valid list "
                                   "(got 'x')"),
    ("[permissions]\nallow = ['read_file', 1]",
     "key 'permissions.allow.1': Input should be a valid string (got 1)"),
    ("approval = 'sometimes'", "key 'approval': Input should be 'strict', 'ask', 'auto-edit' "
                               "or 'yolo' (got 'sometimes')"),
    ("editing_mode = 1", "key 'editing_mode': Input should be 'emacs' or 'vi' (got 1)"),
    ("[tools]\nworkspace = 5", "key 'tools.workspace': Input is not a valid path (got 5)"),
    ("[sandbox]\nwritable_roots = ['/tmp', 1]",
     "key 'sandbox.writable_roots.1': Input is not a valid path (got 1)"),
    ("[tools]\nworkspace = '/no/such/dir'",
     "key 'tools.workspace': no such directory: /no/such/dir"),
    ("[permissions]\nallow = ['run_command(']",
     "key 'permissions.allow': invalid permission rule 'run_command(': expected TOOL or "
     "TOOL(PATTERN), e.g. run_command(git status)"),
    ("[permissions]\ndeny = ['read_file', 'nosuchtool(x)']",
     "key 'permissions.deny': invalid permission rule 'nosuchtool(x)': unknown tool "),
    ("[sandbox]\nhost_allow = ['ls \"x']", "key 'sandbox.host_allow': invalid permission rule "
     "'run_command(ls \"x)': cannot split the command: No closing quotation"),
    ("[web_search]\nsearxng_url = 'localhost:8888'",
     "key 'web_search.searxng_url': must be an http:// or https:// URL"),
    ("[mcp_servers.docs]\nurl = 'ftp://x'",
     "key 'mcp_servers.docs': url must start with http:// or https://"),
    ("[mcp_servers.ok]\ncommand = 'x'\n[mcp_servers.docs]\nargs = []",
     "key 'mcp_servers.docs': give either command (a stdio server) or url (streamable HTTP)"),
    ("[mcp_servers.docs]\ncommand = 'x'\nenv = {A = 'a', B = 2}",
     "key 'mcp_servers.docs.env.B': Input should be a valid string (got 2)"),
    ("[mcp_servers.docs]\ncommand = 'x'\nstartup_timeout = 0",
     "key 'mcp_servers.docs.startup_timeout': Input should be greater than 0 (got 0)"),
    ("[mcp_servers.a__b]\ncommand = 'x'",
     f"key 'mcp_servers': server name 'a__b': {SERVER_NAME_RULE}"),
    ("[mcp_servers.'x - at `$.y']\ncommand = 'x'",  # msgspec's words inside our message
     f"key 'mcp_servers': server name 'x - at `$.y': {SERVER_NAME_RULE}"),
], ids=lambda value: value if isinstance(value, str) and len(value) < 40 else None)
def test_a_bad_value_gets_one_line_naming_key_and_problem(isolated: Path, body: str,
                                                          said: str) -> None:
    line = error_of(isolated, body)
    assert line == said or (said.endswith("unknown tool ") and line.startswith(said)), line


def test_config_holds_rule_text_and_the_approvals_layer_checks_it(isolated: Path) -> None:
    """config imports nothing above it: its own loader keeps a rule as text (the
    rules' syntax is approvals.rules'); the front end's loader, which every command
    of ``ai`` uses, checks it with the approvals layer's check."""
    (isolated / "config.toml").write_text("[permissions]\nallow = ['run_command(']\n")
    assert config_settings.load_settings().permissions.allow == ["run_command("]
    with pytest.raises(ConfigError, match="invalid permission rule 'run_command\\('"):
        load_settings()


def test_twin_good_rules_load_through_the_check(isolated: Path) -> None:
    (isolated / "config.toml").write_text(
        "[permissions]\nallow = ['run_command(git status)', 'read_file(/etc/**)', "
        "'mcp__time__*']\ndeny = ['run_command(rm:*)']\n[sandbox]\nhost_allow = ['git:*']\n")
    settings = load_settings()
    assert settings.permissions.allow[0] == "run_command(git status)"
    assert settings.permissions.deny == ["run_command(rm:*)"]
    assert settings.sandbox.host_allow == ["git:*"]


def test_a_later_change_of_rules_is_checked_by_the_same_gate(isolated: Path) -> None:
    settings = load_settings()
    with pytest.raises(msgspec.ValidationError, match="invalid permission rule 'run_command\\('"):
        settings.gate.change(settings, "permissions.allow", ["run_command("])
    assert settings.permissions.allow == []  # nothing was set
    # the twin: a good rule goes through the same door
    assert settings.gate.change(settings, "permissions.allow", ["run_command(make)"]) is None
    assert settings.permissions.allow == ["run_command(make)"]


def test_a_bad_managed_rule_names_the_managed_policy(isolated: Path) -> None:
    (isolated / "managed.toml").write_text("[permissions]\ndeny = ['run_command(\"x)']\n")
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert str(caught.value).startswith(
        f"config error: managed policy {isolated / 'managed.toml'}: key 'permissions.deny': "
        "invalid permission rule")


@pytest.mark.parametrize("url", ["mysql://u:secret@h/db", "5"])
def test_the_store_url_is_never_echoed(isolated: Path, url: str) -> None:
    value = url if url.isdigit() else f"'{url}'"
    line = error_of(isolated, f"[store]\nurl = {value}")
    assert line.startswith("key 'store.url': ") and url not in line.removeprefix("key 'store.url")
    assert "postgresql://" in line or "valid string" in line


def test_the_source_is_the_flag_the_environment_or_the_managed_policy(
        isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def line(flags: dict[str, str] | None = None) -> str:
        with pytest.raises(ConfigError) as caught:
            load_settings(flags)
        return str(caught.value)

    assert line({"approval": "nope"}).startswith("config error: command line: key 'approval'")
    monkeypatch.setenv("SWEBASH_APPROVAL", "nope")
    assert line().startswith("config error: environment variable SWEBASH_APPROVAL: key "
                             "'approval': Input should be 'strict'")
    monkeypatch.delenv("SWEBASH_APPROVAL")
    monkeypatch.setenv("SWEBASH_STORE_URL", "mysql://u:pw@h/x")
    assert line() == ("config error: environment variable SWEBASH_STORE_URL: key 'store.url': "
                      "must be a postgresql:// URL")
    monkeypatch.delenv("SWEBASH_STORE_URL")
    (isolated / "managed.toml").write_text("max_retries = 99\n")
    assert line() == (f"config error: managed policy {isolated / 'managed.toml'}: key "
                      "'max_retries': Input should be less than or equal to 20 (got 99)")


def test_values_load_typed_and_defaults_fill_the_rest(isolated: Path, tmp_path: Path) -> None:
    (isolated / "config.toml").write_text(
        "temperature = 1\nmax_iterations = 3.0\n"
        f"[tools]\nworkspace = '{tmp_path}'\n[sandbox]\nwritable_roots = ['~/a']\n"
        "[web_search]\nsearxng_url = ''\n[store]\nurl = ''\n"
        "[mcp_servers.docs]\nurl = 'http://127.0.0.1:9/mcp'\n")
    settings = load_settings({"model": "openai/x", "api_base": None})
    assert settings.model == "openai/x" and settings.api_base is None
    assert settings.temperature == 1.0 and isinstance(settings.temperature, float)
    assert settings.max_iterations == 3 and isinstance(settings.max_iterations, int)
    assert settings.tools.workspace == tmp_path and settings.workspace == tmp_path.resolve()
    assert settings.sandbox.writable_roots == [Path("~/a")]
    assert settings.web_search.searxng_url is None and settings.store.url is None
    assert settings.mcp_servers["docs"].transport == "http"
    assert settings.tools.command_timeout == 120.0 and settings.hooks.pre_tool == []
    assert settings.project is None  # no project decider given


def test_each_settings_gets_its_own_lists() -> None:
    first, second = Settings(), Settings()
    first.permissions.allow.append("read_file")
    assert second.permissions.allow == [] and Settings().permissions.allow == []


def test_to_data_is_plain_and_in_the_file_s_order(tmp_path: Path) -> None:
    settings = Settings.from_data({"tools": {"workspace": str(tmp_path)},
                                   "sandbox": {"writable_roots": ["/a"]}})
    data = settings.to_data()
    assert list(data)[:3] == ["model", "api_base", "temperature"]
    assert data["tools"]["workspace"] == str(tmp_path) and data["sandbox"]["writable_roots"] == [
        "/a"]
    assert msgspec.json.decode(msgspec.json.encode(data)) == data  # plain JSON types only


def test_change_checks_the_value_like_the_file() -> None:
    section = Settings().sandbox
    section.change(mode="read-only")
    assert section.mode == "read-only"
    with pytest.raises(msgspec.ValidationError, match="Invalid enum value 'sideways'"):
        section.change(mode="sideways")
    assert section.mode == "read-only"  # unchanged
    search = Settings().web_search
    with pytest.raises(msgspec.ValidationError):
        search.change(searxng_url="localhost:8888")  # our own checks too
    assert search.searxng_url is None


def test_the_twin_plain_assignment_is_not_checked() -> None:
    """What `change` is for: msgspec does not check an assignment."""
    section = Settings().sandbox
    section.mode = "sideways"  # type: ignore[assignment]
    assert section.mode == "sideways"


def test_an_mcp_server_has_one_transport() -> None:
    assert McpServerSettings.from_data({"command": "x"}).transport == "stdio"
    for raw, said in (({}, "give either command"), ({"command": "x", "url": "http://h"},
                                                    "give either command"),
                      ({"url": "ftp://h"}, "url must start with http://")):
        with pytest.raises(msgspec.ValidationError, match=said):
            McpServerSettings.from_data(raw)
        with pytest.raises(ValueError, match=said):  # built directly: the same check
            McpServerSettings(**raw)
