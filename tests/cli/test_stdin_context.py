"""Piped stdin: capped to its head and tail with a separated note; reading is bounded
(an endless producer must not hang us)."""

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


def test_an_endless_stream_is_cut_and_reading_stops() -> None:
    """(Was: never read past the cap. The tail needs reading on, so the bound is
    ``max_read``, and the note says reading stopped.)"""
    stream = Endless()
    piped = read_piped(stream, limit=1_000, max_read=1 << 20)  # type: ignore[arg-type]
    assert piped is not None and piped.cut and not piped.ended
    assert stream.read_bytes <= 1 << 20
    assert (piped.head_chars, piped.tail_chars) == (500, 500)
    note = piped.note() or ""
    assert "first 500 and last 500 characters" in note and "reading stopped" in note


def test_beyond_the_cap_the_head_and_the_tail_are_kept_with_a_note_between() -> None:
    lines = [f"line {n}" for n in range(20_000)]
    piped = read_piped(io.BytesIO("\n".join(lines).encode()), limit=1_000)
    assert piped is not None and piped.cut and piped.ended
    assert piped.text.startswith("line 0\nline 1\n")
    assert piped.text.endswith("line 19998\nline 19999")  # the end of a log matters
    head, marker, tail = piped.text.split("\n\n")  # the note stands on its own
    assert marker.startswith("[… ") and "bytes of stdin left out here" in marker
    assert len(head) == 500 and len(tail) == 500
    assert piped.left_out_bytes == len("\n".join(lines)) - 1_000


def test_the_twin_input_at_the_cap_is_kept_whole() -> None:
    text = "é" * 1_000  # two bytes a character: the byte count is not the cap
    piped = read_piped(io.BytesIO(text.encode()), limit=1_000)
    assert piped is not None and piped.text == text and not piped.cut


def test_a_cut_never_splits_a_character() -> None:
    piped = read_piped(io.BytesIO(("ü" * 5_000).encode()), limit=1_000)
    assert piped is not None and "\ufffd" not in piped.text


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


def test_a_long_log_piped_into_ai_reaches_the_model_head_and_tail(
        fake_provider: FakeProvider) -> None:
    fake_provider.queue(Reply(text="The last line says it failed."))
    log = "\n".join(f"step {n} ok" for n in range(40_000)) + "\nFATAL: the very end\n"
    result = subprocess.run([AI, "-m", "openai/x", "--api-base", fake_provider.url,
                             "why did it fail?"], input=log, capture_output=True, text=True,
                            env=ai_env(), timeout=60)
    assert result.returncode == 0, result.stderr
    sent = fake_provider.requests[0].body["messages"][-1]["content"]
    sent = sent if isinstance(sent, str) else " ".join(p.get("text", "") for p in sent)
    assert "step 0 ok" in sent and "FATAL: the very end" in sent
    assert "bytes of stdin left out here" in sent
    assert "stdin was cut" in result.stderr
