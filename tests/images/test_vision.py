"""images.vision, the one owner of which requests carry images: the model table's
supports_vision (kept by the slim table), the setting over it, notes in a copy of
the history for a text-only model (the history keeps the images), one retry after
a refusal; and where each wire format puts a tool's image."""

from __future__ import annotations

from pathlib import Path

import pytest

from swebash_py.engine import modelinfo
from swebash_py.engine.messages import ImageBlock, Message, TextBlock, ToolResultBlock
from swebash_py.images.vision import ImagePolicy, accepts_images
from swebash_py.provider import anthropic_wire, openai_wire


@pytest.mark.parametrize("model", ["gpt-4o", "openai/gpt-4o-mini", "anthropic/claude-sonnet-4-5",
                                   "gemini/gemini-2.5-flash"])
def test_the_table_knows_vision_models(model: str) -> None:
    assert accepts_images(model) is True


@pytest.mark.parametrize("model", ["openai/gpt-3.5-turbo", "ollama_chat/llama3.1:8b",
                                   "o3-mini"])
def test_twin_the_table_knows_text_only_models(model: str) -> None:
    assert accepts_images(model) is False


def test_an_unknown_model_is_unknown_and_the_setting_decides_for_any() -> None:
    assert accepts_images("acme/brand-new") is None
    assert accepts_images("acme/brand-new", setting=False) is False
    assert accepts_images("openai/gpt-3.5-turbo", setting=True) is True
    assert accepts_images("gpt-4o", setting=False) is False


def test_the_slim_table_keeps_supports_vision(isolated: Path) -> None:
    modelinfo.model_map.cache_clear()
    try:
        assert modelinfo.model_map()["gpt-4o"]["supports_vision"] is True
        (cached,) = (isolated / "data" / "cache").glob("models-*.lines")
        assert cached.read_bytes().startswith(modelinfo.HEADER)
    finally:
        modelinfo.model_map.cache_clear()


def _image(call_id: str | None = None) -> ImageBlock:
    return ImageBlock("image/png", "ab" * 32, "iVBORw0KGgo=", call_id=call_id)


def _history() -> list[Message]:
    return [Message("user", [TextBlock("look"), _image()]),
            Message("user", [ToolResultBlock("c1", "read_file", "[image a.png]"), _image("c1")])]


def test_a_text_only_model_gets_notes_in_a_copy_and_is_told_once() -> None:
    history, told = _history(), []
    policy = ImagePolicy()
    sent = policy.for_request(history, "openai/gpt-3.5-turbo", told.append)
    assert not any(m.images() for m in sent)
    assert sent[0].blocks[1] == TextBlock(
        "[1 image(s) not shown: this model does not take images]")
    assert sent[1].tool_results()[0].content == (
        "[image a.png]\n[1 image(s) not shown: this model does not take images]")
    assert [len(m.images()) for m in history] == [1, 1]  # the history keeps them
    policy.for_request(history, "openai/gpt-3.5-turbo", told.append)
    assert len(told) == 1 and "does not take images" in told[0]


def test_twin_a_vision_model_gets_the_history_as_it_is() -> None:
    history, told = _history(), []
    assert ImagePolicy().for_request(history, "gpt-4o", told.append) is history
    assert told == []


def test_a_refusal_is_retried_once_with_notes_and_only_with_images() -> None:
    policy, told = ImagePolicy(), []
    assert policy.refused("acme/x", [Message.user("no image")]) is False  # nothing to drop
    assert policy.refused("acme/x", _history()) is True
    sent = policy.for_request(_history(), "acme/x", told.append)
    assert "the provider refused images" in sent[0].text
    assert policy.refused("acme/x", _history()) is False  # once: the next one is the error
    assert policy.sends_images("acme/y")  # another model is not concerned


def test_anthropic_puts_a_tools_image_inside_its_result() -> None:
    message = Message("user", [ToolResultBlock("c1", "read_file", "[image a.png]"),
                               _image("c1"), _image(), _image("gone")])
    content = anthropic_wire.convert_message(message)["content"]
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": "iVBORw0KGgo="}}
    assert content == [{"type": "tool_result", "tool_use_id": "c1",
                        "content": [{"type": "text", "text": "[image a.png]"}, image]},
                       image, image]  # the user's, and one whose result is not here


def test_openai_puts_a_tools_image_in_a_user_message_after_the_results() -> None:
    message = Message("user", [ToolResultBlock("c1", "read_file", "[image a.png]"),
                               _image("c1")])
    tool, user = openai_wire.convert_message(message)
    assert tool == {"role": "tool", "tool_call_id": "c1", "content": "[image a.png]"}
    assert user == {"role": "user", "content": [
        {"type": "text", "text": "[the image(s) read_file returned (call c1)]"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]}


def test_a_tools_image_keeps_its_call_in_the_store(isolated: Path) -> None:
    import base64

    from swebash_py import images
    from swebash_py.store.records import block_to_row, parse_json, row_to_block

    png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8"
                           "/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==")
    stored = images.store(png, "image/png")
    for call_id in ("c1", None):  # a tool's, and the twin: the user's has none
        kind, text, raw = block_to_row(ImageBlock(stored.media_type, stored.sha256,
                                                  stored.data, call_id=call_id), step=2)
        back = row_to_block(kind, text, parse_json(raw))
        assert isinstance(back, ImageBlock)
        assert (back.call_id, back.data) == (call_id, stored.data)


@pytest.mark.parametrize(("status", "message"), [
    (400, "Invalid content type. image_url is only supported by certain models."),
    (400, "this model does not support image input"),  # Ollama
    (500, "image input is not supported - hint: you may need to provide the mmproj"),
    (500, 'Failed to parse messages: Unsupported content part type: "image_url"'),
])
def test_an_image_refusal_is_images_refused(status: int, message: str) -> None:
    from swebash_py.errors import ImagesRefused
    from swebash_py.provider.errormap import error_for_status

    assert isinstance(error_for_status(status, message), ImagesRefused)


@pytest.mark.parametrize(("status", "message"), [(500, "overloaded"), (400, "bad json"),
                                                 (502, "image gateway down")])
def test_twin_other_errors_are_not(status: int, message: str) -> None:
    from swebash_py.errors import ImagesRefused
    from swebash_py.provider.errormap import error_for_status

    assert not isinstance(error_for_status(status, message), ImagesRefused)


async def test_the_summary_request_carries_no_image_bytes() -> None:
    """Compaction's request (agent.fitting) writes text from text: a note for each
    image, so a text-only model does not refuse it; the twin: the text is there."""
    from swebash_py.agent.fitting import ContextFitter
    from swebash_py.events import TextDelta

    seen = []

    async def stream(request):  # type: ignore[no-untyped-def]
        seen.append(request)
        yield TextDelta("summary")

    fitter = ContextFitter(lambda: "openai/gpt-3.5-turbo", stream,
                           changes_files=lambda _name: False)
    assert await fitter._model_state(_history()) == "summary"
    (request,) = seen
    assert not any(m.images() for m in request.messages)
    assert "look" in request.messages[0].text
    assert "a summary is written from the text" in str(request.messages)
