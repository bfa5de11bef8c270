"""redact() compiles a pattern only for a text it could match in, and its result is
always that of every pattern applied in turn."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from swebash_py.engine import secrets

FRAGMENTS = [
    "sk-proj-Abcdefghijklmnopqrstuvwxyz0123456789", "sk-ant-api03-Abcdefghijklmnopqrstuvwx",
    "AIzaSyA1234567890abcdefghijklmnopqrstuv", "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "github_pat_" + "a1" * 21, "xoxb-1234567890-abcdefghijkl", "AKIAIOSFODNN7EXAMPLE",
    "hf_" + "x" * 32, "Authorization: Bearer abc.def-ghi_jkl123456", "bearer " + "q" * 20,
    "BEARER " + "Z9" * 9, "proxy-authorization=basic dXNlcjpwYXNz", "x-api-key: k3y",
    "MY_SERVICE_API_KEY=hunter2hunter2", "DB_PASSWORD='s3cr3t!'", "password: correct-horse",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n-----END OPENSSH PRIVATE KEY-----",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIE cut", "https://bob:pa55word@proxy.example/v1",
    "bob:pa55word@127.0.0.1:9", '{"X_API_KEY": "abcdef123456"}', "token = tokens[0]",
    "key=$OPENAI_API_KEY", "ssh://git@host:22/x", "max_tokens=1000",
    # case folds Python's re applies beyond str.lower(): dotless i, long s, Kelvin sign
    "authorızation: Bearer " + "w" * 18, "paſſword=ſecretvalue", "x-api-Key: v",
    "hi", "Hello! How can I help?", "", " ", ":", "=", "@", "_", "-", "'", '"', "\n",
]


def every_pattern(text: str) -> str:
    """What redact() did before the gates: every pattern, in order."""
    if not text:
        return text
    for step in secrets.STEPS:
        text = step.pattern.sub(step.replacement, text)
    return text


def texts(count: int, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(FRAGMENTS) + rng.choice(["", " ", "\n", ", "])
                    for _ in range(rng.randint(1, 5))) for _ in range(count)]


def test_the_result_is_every_pattern_applied() -> None:
    corpus = FRAGMENTS + texts(3000)
    assert [t for t in corpus if secrets.redact(t) != every_pattern(t)] == []
    assert sum(secrets.redact(t) != t for t in corpus) > 1000  # much of it is redacted


def test_the_twin_a_wrong_gate_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Proof the comparison can fail: a case-sensitive gate for the bearer pattern
    misses "bearer …" and "BEARER …"."""
    steps = list(secrets.STEPS)
    steps[2] = steps[2]._replace(needs=lambda text: "Bearer" in text)
    monkeypatch.setattr(secrets, "STEPS", tuple(steps))
    corpus = FRAGMENTS + texts(300)
    assert [t for t in corpus if secrets.redact(t) != every_pattern(t)]


COMPILED = ("import sys\nfrom swebash_py.engine import secrets\n"
            "out = secrets.redact(sys.argv[1])\n"
            "print(out, sum('compiled' in vars(step.pattern) for step in secrets.STEPS))\n")


@pytest.mark.parametrize(("text", "expected"), [
    ("hi", "hi 0"), ("Hello! How can I help?", "Hello! How can I help? 0"),
    ("key AKIAIOSFODNN7EXAMPLE", "key [REDACTED] 1"),  # the twin: a token compiles its own
])
def test_a_plain_text_compiles_no_pattern(text: str, expected: str) -> None:
    result = subprocess.run([sys.executable, "-c", COMPILED, text], capture_output=True,
                            text=True, check=True)
    assert result.stdout.strip() == expected
