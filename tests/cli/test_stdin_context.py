"""Piped stdin: capped, never read past the cap (an endless producer must not hang us)."""

from __future__ import annotations

import io
import subprocess

from swebash_py.cli.stdin import compose_question, read_piped
from tests.e2e.conftest import AI, ai_env
from tests.fakeprovider import FakeProvider, Reply


class Endless(io.RawIOBase):
    """`yes` as a stream: it never ends; counts what was read."""

    def __init__(self) -> None:
        self.read_bytes = 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        size = 1 << 16 if size is None or size < 0 else size
        self.read_bytes += size
        return (b"y\n" * (size // 2 + 1))[:size]


def test_an_endless_stream_is_cut_at_the_cap() -> None:
    stream = Endless()
    piped = read_piped(stream, limit=1_000)  # type: ignore[arg-type]
    assert piped is not None and piped.cut and len(piped.text) == 1_000
    assert stream.read_bytes <= 4_001
    assert "cut to its first 1,000 characters" in (piped.note() or "")


def test_small_input_is_kept_whole() -> None:
    piped = read_piped(io.BytesIO("héllo\n".encode()), limit=1_000)
    assert piped is not None and piped.text == "héllo\n" and not piped.cut
    assert piped.note() is None


def test_binary_input_is_replaced_not_fatal() -> None:
    piped = read_piped(io.BytesIO(b"\xff\xfe\x00ok"), limit=1_000)
    assert piped is not None and piped.text.endswith("ok") and "\ufffd" in piped.text


def test_compose() -> None:
    assert compose_question("why?", None) == "why?"
    assert compose_question("", read_piped(io.BytesIO(b"just this"))) == "just this"
    assert compose_question("what failed?", read_piped(io.BytesIO(b"log\n"))) == (
        "what failed?\n\n<stdin>\nlog\n</stdin>")


def test_yes_piped_into_ai_answers_and_notes_the_cut(fake_provider: FakeProvider) -> None:
    fake_provider.queue(Reply(text="That is a lot of y."))
    producer = subprocess.Popen(["yes"], stdout=subprocess.PIPE)
    try:
        result = subprocess.run([AI, "-m", "openai/x", "--api-base", fake_provider.url,
                                 "what is this?"], stdin=producer.stdout, capture_output=True,
                                text=True, env=ai_env(), timeout=60)
    finally:
        producer.kill()
        producer.wait()
    assert result.returncode == 0, result.stderr
    assert result.stdout == "That is a lot of y.\n"  # only the answer on stdout
    assert "stdin was cut" in result.stderr
