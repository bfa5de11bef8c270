"""redact(): secrets never reach the database or logs."""

from __future__ import annotations

import json

import pytest

from swebash_py.engine.secrets import REDACTED, redact

SECRETS = [
    "sk-proj-Abcdefghijklmnopqrstuvwxyz0123456789",
    "sk-ant-api03-Abcdefghijklmnopqrstuvwxyz0123456789",
    "AIzaSyA1234567890abcdefghijklmnopqrstuv",
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "xoxb-1234567890-abcdefghijkl",
    "AKIAIOSFODNN7EXAMPLE",
]


@pytest.mark.parametrize("secret", SECRETS)
def test_api_keys(secret: str) -> None:
    out = redact(f"the key is {secret} ok")
    assert secret not in out and out == f"the key is {REDACTED} ok"


def test_headers_assignments_and_pem() -> None:
    text = (
        'curl -H "Authorization: Bearer abc.def-ghi_jkl123456" https://x\n'
        "export MY_SERVICE_API_KEY=hunter2hunter2\n"
        "DB_PASSWORD='s3cr3t!'\n"
        "password: correct-horse\n"
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA\nAAAA\n"
        "-----END OPENSSH PRIVATE KEY-----\n"
    )
    out = redact(text)
    for secret in ["abc.def-ghi_jkl123456", "hunter2hunter2", "s3cr3t!", "correct-horse",
                   "b3BlbnNzaC1rZXktdjEA"]:
        assert secret not in out
    assert "Authorization: Bearer [REDACTED]" in out
    assert "MY_SERVICE_API_KEY=[REDACTED]" in out


def test_json_stays_valid() -> None:
    args = json.dumps({"command": f"curl -H 'x-api-key: {SECRETS[1]}' api",
                       "env": {"OPENAI_API_KEY": SECRETS[0]}, "password": "pw12345"})
    out = redact(args)
    assert not any(s in out for s in SECRETS) and "pw12345" not in out
    json.loads(out)


@pytest.mark.parametrize("text", [
    "token = tokens[0]", "max_tokens=1000", "key=$OPENAI_API_KEY",
    "password = getpass()", "the sk-learn library", "ordinary prose, nothing to hide",
])
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(("text", "secret"), [
    ("db_password=hunter2xyz", "hunter2xyz"),
    ("DB_Password = s3cr3tvalue", "s3cr3tvalue"),
    ("postgres_password: foo12345", "foo12345"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG", "wJalrXUtnFEMI/K7MDENG"),
    ('{"X_API_KEY": "abcdef123456"}', "abcdef123456"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\ncut off here", "MIIEowIBAAKCAQEA"),
    ("api_base = https://bob:pa55word@proxy.example/v1", "pa55word"),
    ("cannot reach bob:pa55word@127.0.0.1:9", "pa55word"),
])
def test_more_secret_shapes(text: str, secret: str) -> None:
    out = redact(text)
    assert secret not in out and REDACTED in out


@pytest.mark.parametrize("text", ["input_tokens: 10", "token_count: 12", "secretary = Jane",
                                  "git@github.com:org/repo.git", "ssh://git@host:22/x"])
def test_more_ordinary_text_left_alone(text: str) -> None:
    assert redact(text) == text
