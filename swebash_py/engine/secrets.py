"""Scrub obvious secrets from text before it is stored or logged.

``redact(text)`` replaces API keys (OpenAI ``sk-``, Anthropic ``sk-ant-``,
Google ``AIza``, GitHub ``ghp_``/``gho_``/``github_pat_``, Slack ``xox?-``,
AWS ``AKIA``), ``Authorization: Bearer|Basic`` values, PEM private-key blocks
and ``*_API_KEY=`` / ``*_TOKEN=`` / ``*_SECRET=`` / ``password=`` style
assignments with ``[REDACTED]``. The patterns never cross a quote, so a JSON
string stays valid JSON after redaction.

Each pattern is compiled at its first use, and applied only to a text holding
what it cannot match without (its ``needs``: a literal of the pattern, or ``:`` /
``=`` for the assignments and headers). A text holding none of them ("hi", most
answers) is returned as it is without compiling any: the result is the same,
as a test checks against every pattern applied.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cached_property
from typing import NamedTuple

REDACTED = "[REDACTED]"


class _Lazy:
    """A pattern compiled at its first use."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._source = pattern, flags

    @cached_property
    def compiled(self) -> re.Pattern[str]:
        return re.compile(*self._source)

    def sub(self, replacement: str | Callable[[re.Match[str]], str], text: str) -> str:
        return self.compiled.sub(replacement, text)


# The value part of an assignment or header: anything up to whitespace, a quote
# or a JSON/shell separator (so a JSON document stays parseable).
_VALUE = r"[^\s\"'`,;&|<>]+"

# a private key block; without its END line (a truncated key), to the end of the text
_PEM = _Lazy(
    r"-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----.*?(?:-----END \1PRIVATE KEY-----|\Z)",
    re.DOTALL,
)
# scheme://user:password@host: the password part
# (also bare "user:secret@host", as error messages print a URL's netloc)
_USERINFO = _Lazy(r"(?i)((?:\b[a-z][a-z0-9+.\-]*://|(?<![\w:/.@-]))[^\s/@:\"'<>]*:)"
                       r"([^\s/@\"'<>]+)(@[\w\[])")

_TOKENS = _Lazy(
    r"""
    \bsk-ant-[A-Za-z0-9_\-]{16,}              # Anthropic
  | \bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}  # OpenAI and look-alikes
  | \bAIza[0-9A-Za-z_\-]{30,}                 # Google API keys
  | \b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,} # GitHub tokens
  | \bgithub_pat_[A-Za-z0-9_]{40,}
  | \bxox[abposr]-[A-Za-z0-9\-]{10,}          # Slack
  | \b(?:AKIA|ASIA)[0-9A-Z]{16}\b             # AWS access key ids
  | \bhf_[A-Za-z0-9]{30,}                     # Hugging Face
  """,
    re.VERBOSE,
)

_AUTH_HEADER = _Lazy(
    r"(?i)\b((?:proxy-)?authorization\s*[:=]\s*[\"']?(?:bearer|basic|token)\s+)" + _VALUE
)
_BEARER = _Lazy(r"(?i)\b(bearer\s+)[A-Za-z0-9_\-\.=+/]{16,}")
_HEADER_KEYS = _Lazy(r"(?i)\b((?:x-api-key|api-key|x-goog-api-key)\s*[:=]\s*[\"']?)" + _VALUE)

# FOO_API_KEY=..., GITHUB_TOKEN=..., DB_PASSWORD=... (environment style, upper case)
_ENV_ASSIGNMENT = _Lazy(
    r"\b([A-Z0-9_]*(?:API_?KEY|SECRET(?:_?KEY)?|TOKEN|PASSWORD|PASSWD|PRIVATE_?KEY"
    r"|ACCESS_?KEY))(\s*[:=]\s*[\"']?)(" + _VALUE + ")"
)
# password: ..., "api_key": "...", client_secret = ... (any case, config style)
_KEY_ASSIGNMENT = _Lazy(
    r"(?i)\b(password|passwd|api_?key|secret_?key|client_?secret|access_?token|auth_?token"
    r"|refresh_?token)([\"']?\s*[:=]\s*[\"']?)(" + _VALUE + ")"
)


# db_password=..., aws_secret_access_key = ..., "X_API_KEY": "..." (any case, any prefix;
# the name must end in the secret word, so max_tokens or token_count do not match)
_NAMED_ASSIGNMENT = _Lazy(
    r"(?i)\b([A-Za-z0-9_.\-]*(?:api_?key|access_?key|secret_?key|private_?key|secret|token"
    r"|password|passwd|credentials?))([\"']?\s*[:=]\s*[\"']?)(" + _VALUE + ")"
)


def redact_userinfo(text: str) -> str:
    """``scheme://user:secret@host`` → ``scheme://user:[REDACTED]@host``."""
    if not text or not _USERINFO_STEP.needs(text):
        return text
    return _USERINFO.sub(_USERINFO_STEP.replacement, text)


def _assignment(match: re.Match[str]) -> str:
    value = match.group(3)
    if value == REDACTED or value.startswith(("$", "{", "%", "<")) or any(
        c in value for c in "([)"
    ):
        return match.group(0)  # a reference ($OPENAI_API_KEY) or code, not a secret
    return f"{match.group(1)}{match.group(2)}{REDACTED}"


def _keep_first(match: re.Match[str]) -> str:
    return match.group(1) + REDACTED


def _assigns(text: str) -> bool:
    return ":" in text or "=" in text


class _Step(NamedTuple):
    """One pattern of ``redact``, what it is replaced by, and a test a text must
    pass for the pattern to match in it at all."""

    pattern: _Lazy
    replacement: str | Callable[[re.Match[str]], str]
    needs: Callable[[str], bool]


# Each ``needs`` holds a literal the pattern cannot match without. Case-insensitive
# patterns are only tested for ASCII letters without special case folds (b e a r)
# or for ':' / '=', which no case folding touches; no replacement adds any of them.
_TOKEN_MARKS = ("sk-", "AIza", "_", "xox", "AKIA", "ASIA")  # gh?_ github_pat_ hf_: "_"
_USERINFO_STEP = _Step(_USERINFO, lambda m: m.group(1) + REDACTED + m.group(3),
                       lambda text: ":" in text and "@" in text)
STEPS = (
    _Step(_PEM, REDACTED, lambda text: "-----BEGIN " in text),
    _Step(_AUTH_HEADER, _keep_first, _assigns),
    _Step(_BEARER, _keep_first, lambda text: "bearer" in text.lower()),
    _Step(_HEADER_KEYS, _keep_first, _assigns),
    _Step(_TOKENS, REDACTED, lambda text: any(mark in text for mark in _TOKEN_MARKS)),
    _USERINFO_STEP,
    _Step(_ENV_ASSIGNMENT, _assignment, _assigns),
    _Step(_KEY_ASSIGNMENT, _assignment, _assigns),
    _Step(_NAMED_ASSIGNMENT, _assignment, _assigns),
)


def redact(text: str) -> str:
    """Return ``text`` with secrets replaced by ``[REDACTED]``."""
    if not text:
        return text
    for step in STEPS:
        if step.needs(text):
            text = step.pattern.sub(step.replacement, text)
    return text
