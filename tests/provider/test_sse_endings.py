"""Through the installed `ai` (direct backend): bodies the standard reads
differently from the old reader. A UTF-8 BOM and an unknown first field are a
stream; a last event with no blank line after it is discarded, and the answer
still ends cleanly when the provider's stop reason came before it, or is
reported as cut off when it did not."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import model_args, run_ai
from tests.fakeprovider import FakeProvider, RawReply

STREAMS = Path(__file__).parent.parent / "streams"


def anthropic_answer() -> str:
    """A recorded Anthropic answer ("Here is a general") that ends normally."""
    return (STREAMS / "anthropic_refusal.sse").read_text().replace('"refusal"', '"end_turn"')


def openai_answer() -> str:
    """A recorded OpenAI-compatible body whose first event is the answer's first words."""
    body = (STREAMS / "openrouter_reasoning.sse").read_text()
    return body[body.rindex("data: ", 0, body.index('"The answer"')):]


def test_a_bom_before_the_first_event_is_skipped(fake_provider: FakeProvider,
                                                 workspace: Path) -> None:
    fake_provider.queue(RawReply("\ufeff" + openai_answer()))
    result = run_ai(*model_args(fake_provider), "--no-tools", "hi", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "The answer is 4."  # the first event kept


def test_an_unknown_first_field_is_a_stream(fake_provider: FakeProvider,
                                            workspace: Path) -> None:
    fake_provider.queue(RawReply("x-served-by: edge-7\n" + openai_answer()))
    result = run_ai(*model_args(fake_provider), "--no-tools", "hi", cwd=workspace)
    assert "not an event stream" not in result.stderr
    assert result.stdout.strip() == "The answer is 4."


def test_an_anthropic_body_without_its_last_blank_line_ends_cleanly(
        fake_provider: FakeProvider, workspace: Path) -> None:
    """``message_stop`` lacks its blank line, so the standard discards it; the
    stop reason came in ``message_delta`` before it: the answer is whole."""
    fake_provider.queue(RawReply(anthropic_answer().rstrip("\n")))
    result = run_ai(*model_args(fake_provider, "anthropic"), "hi", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Here is a general"
    assert "retrying" not in result.stderr


def test_twin_an_anthropic_body_cut_before_its_stop_reason_is_cut_off(
        fake_provider: FakeProvider, workspace: Path) -> None:
    body = anthropic_answer()
    cut = body[:body.index("event: message_delta")] + 'event: message_delta\ndata: {"type"'
    fake_provider.queue(RawReply(cut), RawReply(cut), RawReply(cut), RawReply(cut),
                        RawReply(cut))
    result = run_ai(*model_args(fake_provider, "anthropic"), "hi", cwd=workspace)
    assert result.returncode == 1
    assert "ended before the model finished" in result.stderr


def test_an_openai_body_ending_at_done_without_a_blank_line_ends_cleanly(
        fake_provider: FakeProvider, workspace: Path) -> None:
    body = (STREAMS / "openrouter_reasoning.sse").read_text().rstrip("\n")
    assert body.endswith("data: [DONE]")
    fake_provider.queue(RawReply(body))
    result = run_ai(*model_args(fake_provider), "--no-tools", "hi", cwd=workspace)
    assert "ended before" not in result.stderr and result.stdout.strip() == "The answer is 4."
