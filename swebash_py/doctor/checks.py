"""The checks behind ``ai doctor``: each returns one ``Check`` line.

``needed`` checks that fail make ``ai doctor`` exit 1; the others inform.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from swebash_py.config.paths import config_path, data_dir

if TYPE_CHECKING:
    from swebash_py.config.settings import Settings

Status = Literal["ok", "warn", "fail"]
_KEY_VARS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY",
             "gemini": "GEMINI_API_KEY", "mistral": "MISTRAL_API_KEY",
             "groq": "GROQ_API_KEY", "deepseek": "DEEPSEEK_API_KEY",
             "openrouter": "OPENROUTER_API_KEY", "xai": "XAI_API_KEY"}
_KEYLESS = ("ollama", "ollama_chat", "lm_studio", "hosted_vllm", "vllm", "llamafile")


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str

    def line(self) -> str:
        return f"{self.status:<4}  {self.name}: {self.detail}"


def sandbox_check(settings: Settings) -> Check:
    from swebash_py.sandbox.runner import available

    mode = settings.sandbox.mode
    if mode == "off":
        return Check("sandbox", "warn", "off ([sandbox] mode or --sandbox): model commands run "
                                        "with your full access, after a question")
    found = available()
    net = "network on" if settings.sandbox.network else "no network"
    if found.ok:
        return Check("sandbox", "ok", f"{found.detail} ({mode}, {net})")
    return Check("sandbox", "fail", f"{found.name} unavailable: {found.detail}. Until then every "
                                    "command asks first (only plain file reads run unasked)")


def preview_check(settings: Settings) -> Check:
    """Whether commands that would ask run as a preview first, or why not."""
    from swebash_py.preview.policy import unavailable_reason
    from swebash_py.sandbox.policy import effective_mode

    section = settings.sandbox
    fallback = "commands that would ask, ask before they run"
    if not section.preview:
        return Check("preview", "warn", f"off ([sandbox] preview = false): {fallback}")
    if effective_mode(section.mode, "write") != "workspace-write":
        return Check("preview", "warn", f"not with sandbox mode {section.mode}: {fallback}")
    why = unavailable_reason()
    if why is not None:
        return Check("preview", "warn", f"unavailable: {why}; {fallback}")
    from swebash_py.sandbox import overlay

    found = overlay.support()
    here = overlay.why_not([Path(os.path.realpath(settings.workspace))])
    if here is not None:
        return Check("preview", "warn", f"{found.how} works, but not in this workspace "
                                        f"({here}): {fallback}")
    return Check("preview", "ok", f"{found.how}; overlay bounded by a "
                                  f"{section.preview_max_mb} MB tmpfs (preview_max_mb)")


def provider_check(settings: Settings) -> Check:
    """The key (when one is needed), then whether the provider answers (``reach``)."""
    found = key_check(settings)
    if found.status == "fail":
        return found
    from swebash_py.doctor.reach import reach

    status, detail = reach(settings.resolved_model, settings.api_base)
    worst: Status = "fail" if "fail" in (status, found.status) else (
        "warn" if "warn" in (status, found.status) else "ok")
    return Check("provider", worst, f"{found.detail}; {detail}")


def key_check(settings: Settings) -> Check:
    model = settings.resolved_model
    provider = model.split("/", 1)[0] if "/" in model else "openai"
    if provider in _KEYLESS:
        return Check("provider", "ok", f"{model}: no key needed")
    variable = _KEY_VARS.get(provider)
    if variable is None:
        return Check("provider", "warn", f"{model}: key variable unknown to doctor "
                                         "(litellm reads the provider's own)")
    if os.environ.get(variable):
        return Check("provider", "ok", f"{model}: {variable} is set")
    if settings.api_base:
        return Check("provider", "warn", f"{model}: {variable} is not set (fine for a local "
                                         "server at api_base)")
    return Check("provider", "fail", f"{model}: {variable} is not set: export it, or pick "
                                     "another model with -m / SWEBASH_MODEL")


def paths_check() -> Check:
    config, data = config_path(), data_dir()
    try:
        data.mkdir(parents=True, exist_ok=True, mode=0o700)
        writable = os.access(data, os.W_OK)
    except OSError as exc:
        return Check("paths", "fail", f"data directory {data}: {exc.strerror}")
    if not writable:
        return Check("paths", "fail", f"data directory {data} is not writable")
    state = "exists" if config.exists() else "not created: defaults apply"
    return Check("paths", "ok", f"config {config} ({state}); data {data}")


def store_check() -> Check:
    """The session store's health (``PRAGMA quick_check``, schema version)."""
    from swebash_py.store.faults import health_check
    from swebash_py.store.sessions import default_path

    path = default_path()
    problems = health_check(path)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return Check("store", "fail", f"{problems[0]}{more}. `ai` moves a damaged database "
                     "aside on its next start; a newer one needs an upgrade")
    return Check("store", "ok", f"{path} ({'sound' if path.exists() else 'not created yet'})")


def search_check() -> Check:
    if shutil.which("rg"):
        return Check("search", "ok", "ripgrep found")
    return Check("search", "warn", "ripgrep not found: search_files uses a slower Python walk "
                                   "(Debian/Ubuntu: apt-get install ripgrep)")


def run_checks(settings: Settings) -> list[Check]:
    return [sandbox_check(settings), preview_check(settings), provider_check(settings),
            paths_check(), store_check(), search_check(), *mcp_checks(settings)]


def mcp_checks(settings: Settings) -> list[Check]:
    """One line per configured MCP server (each started, listed and stopped)."""
    from swebash_py.mcpclient.doctor import mcp_checks as probe

    return [Check(name, status, detail) for name, status, detail in probe(settings)]
