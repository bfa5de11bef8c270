"""Scrub obvious secrets from text before it is stored or logged.

``redact(text)`` replaces API keys (OpenAI ``sk-``, Anthropic ``sk-ant-``,
Google ``AIza``, GitHub ``ghp_``/``gho_``/``github_pat_``, Slack ``xox?-``,
AWS ``AKIA``), ``Authorization: Bearer|Basic`` values, PEM private-key blocks
and ``*_API_KEY=`` / ``*_TOKEN=`` / ``*_SECRET=`` / ``password=`` style
assignments with ``[REDACTED]``. The patterns never cross a quote, so a JSON
string stays valid JSON after redaction.
"""

from __future__ import annotations

import re

REDACTED = "[REDACTED]"

# The value part of an assignment or header: anything up to whitespace, a quote
# or a JSON/shell separator (so a JSON document stays parseable).
_VALUE = r"[^\s\"'`,;&|<>]+"

# a private key block; without its END line (a truncated key), to the end of the text
_PEM = re.compile(
    r"-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----.*?(?:-----END \1PRIVATE KEY-----|\Z)",
    re.DOTALL,
)
# scheme://user:password@host: the password part
# (also bare "user:secret@host", as error messages print a URL's netloc)
_USERINFO = re.compile(r"(?i)((?:\b[a-z][a-z0-9+.\-]*://|(?<![\w:/.@-]))[^\s/@:\"'<>]*:)"
                       r"([^\s/@\"'<>]+)(@[\w\[])")

_TOKENS = re.compile(
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

_AUTH_HEADER = re.compile(
    r"(?i)\b((?:proxy-)?authorization\s*[:=]\s*[\"']?(?:bearer|basic|token)\s+)" + _VALUE
)
_BEARER = re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9_\-\.=+/]{16,}")
_HEADER_KEYS = re.compile(r"(?i)\b((?:x-api-key|api-key|x-goog-api-key)\s*[:=]\s*[\"']?)" + _VALUE)

# FOO_API_KEY=..., GITHUB_TOKEN=..., DB_PASSWORD=... (environment style, upper case)
_ENV_ASSIGNMENT = re.compile(
    r"\b([A-Z0-9_]*(?:API_?KEY|SECRET(?:_?KEY)?|TOKEN|PASSWORD|PASSWD|PRIVATE_?KEY"
    r"|ACCESS_?KEY))(\s*[:=]\s*[\"']?)(" + _VALUE + ")"
)
# password: ..., "api_key": "...", client_secret = ... (any case, config style)
_KEY_ASSIGNMENT = re.compile(
    r"(?i)\b(password|passwd|api_?key|secret_?key|client_?secret|access_?token|auth_?token"
    r"|refresh_?token)([\"']?\s*[:=]\s*[\"']?)(" + _VALUE + ")"
)


# db_password=..., aws_secret_access_key = ..., "X_API_KEY": "..." (any case, any prefix;
# the name must end in the secret word, so max_tokens or token_count do not match)
_NAMED_ASSIGNMENT = re.compile(
    r"(?i)\b([A-Za-z0-9_.\-]*(?:api_?key|access_?key|secret_?key|private_?key|secret|token"
    r"|password|passwd|credentials?))([\"']?\s*[:=]\s*[\"']?)(" + _VALUE + ")"
)


def redact_userinfo(text: str) -> str:
    """``scheme://user:secret@host`` → ``scheme://user:[REDACTED]@host``."""
    return _USERINFO.sub(lambda m: m.group(1) + REDACTED + m.group(3), text) if text else text


def _assignment(match: re.Match[str]) -> str:
    value = match.group(3)
    if value == REDACTED or value.startswith(("$", "{", "%", "<")) or any(
        c in value for c in "([)"
    ):
        return match.group(0)  # a reference ($OPENAI_API_KEY) or code, not a secret
    return f"{match.group(1)}{match.group(2)}{REDACTED}"


def redact(text: str) -> str:
    """Return ``text`` with secrets replaced by ``[REDACTED]``."""
    if not text:
        return text
    text = _PEM.sub(REDACTED, text)
    text = _AUTH_HEADER.sub(lambda m: m.group(1) + REDACTED, text)
    text = _BEARER.sub(lambda m: m.group(1) + REDACTED, text)
    text = _HEADER_KEYS.sub(lambda m: m.group(1) + REDACTED, text)
    text = _TOKENS.sub(REDACTED, text)
    text = redact_userinfo(text)
    text = _ENV_ASSIGNMENT.sub(_assignment, text)
    text = _KEY_ASSIGNMENT.sub(_assignment, text)
    return _NAMED_ASSIGNMENT.sub(_assignment, text)
