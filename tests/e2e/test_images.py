"""Images (`-i/--image`, `@shot.png`): each wire format carries them, large ones are
downscaled, wrong ones refused, and a resumed session sends them again from the
content-addressed copy in the data dir (not from the sessions database)."""

from __future__ import annotations

import base64
import io
import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from swebash_py import images
from swebash_py.errors import ImageError
from tests.agent.helpers import sent_results
from tests.e2e.conftest import run_ai
from tests.fakeprovider import ErrorReply, FakeProvider, Reply, ToolCall

# A valid 1x1 PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==")
PNG_B64 = base64.b64encode(PNG).decode()


@pytest.fixture
def shot(workspace: Path) -> Path:
    path = workspace / "shot.png"
    path.write_bytes(PNG)
    return path


def _ask(provider: FakeProvider, model: str, *args: str) -> Any:
    provider.queue(Reply(text="A tiny picture."))
    return run_ai("-m", model, "--api-base", provider.url, *args)


def test_openai_direct_sends_an_image_url_data_url(fake_provider: FakeProvider,
                                                   shot: Path) -> None:
    result = _ask(fake_provider, "openai/x", "-i", str(shot), "what is this?")
    assert result.returncode == 0, result.stderr
    content = fake_provider.requests[0].body["messages"][-1]["content"]
    assert content == [{"type": "text", "text": "what is this?"},
                       {"type": "image_url",
                        "image_url": {"url": f"data:image/png;base64,{PNG_B64}"}}]


def test_anthropic_direct_sends_a_base64_image_block(fake_provider: FakeProvider,
                                                     shot: Path) -> None:
    result = _ask(fake_provider, "anthropic/x", "--image", str(shot), "-i", str(shot), "what?")
    assert result.returncode == 0, result.stderr
    content = fake_provider.requests[0].body["messages"][-1]["content"]
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": PNG_B64}}
    assert content == [image, image, {"type": "text", "text": "what?",
                                      "cache_control": {"type": "ephemeral"}}]


@pytest.mark.parametrize(("model", "path"), [("anthropic/x", "/v1/messages"),
                                             ("openai/x", "/chat/completions")])
def test_litellm_carries_the_image(fake_provider: FakeProvider, shot: Path, isolated: Path,
                                   model: str, path: str) -> None:
    (isolated / "config.toml").write_text('backend = "litellm"\n')
    env = {"ANTHROPIC_API_KEY": "sk-test-key-1234", "OPENAI_API_KEY": "sk-test-key-1234"}
    fake_provider.queue(Reply(text="A tiny picture."))
    result = run_ai("-m", model, "--api-base", fake_provider.url, "-i", str(shot), "what?",
                    env=env)
    assert result.returncode == 0, result.stderr
    request = fake_provider.requests[0]
    assert request.path == path
    assert PNG_B64 in str(request.body["messages"][-1]["content"])


def test_a_too_large_image_is_downscaled(fake_provider: FakeProvider, workspace: Path) -> None:
    from PIL import Image

    big = workspace / "big.png"
    Image.frombytes("RGB", (1500, 1500), os.urandom(1500 * 1500 * 3)).save(big)
    assert big.stat().st_size > images.MAX_BYTES
    result = _ask(fake_provider, "openai/x", "-i", str(big), "what?")
    assert result.returncode == 0, result.stderr
    url = fake_provider.requests[0].body["messages"][-1]["content"][1]["image_url"]["url"]
    media, _, data = url.partition(";base64,")
    sent = base64.b64decode(data)
    assert len(sent) <= images.MAX_BYTES
    assert media in ("data:image/png", "data:image/jpeg")
    with Image.open(io.BytesIO(sent)) as img:
        assert max(img.size) <= images.FIT_SIDE


def test_too_large_without_pillow_is_refused(workspace: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "PIL", None)  # `from PIL import Image` fails
    big = workspace / "big.png"
    big.write_bytes(PNG + b"\0" * images.MAX_BYTES)
    with pytest.raises(ImageError, match=r"needs Pillow, the \[images\] extra: "
                                         r"pip install 'swebash-py\[images\]' \(or "
                                         r"\./scripts/install\.sh --images\)"):
        images.attach(big)


@pytest.mark.parametrize(("name", "data"), [("notes.png", b"just text, not an image"),
                                            ("pic.bmp", b"BM" + b"\0" * 64)])
def test_an_unsupported_file_is_refused_and_nothing_is_sent(
        fake_provider: FakeProvider, workspace: Path, name: str, data: bytes) -> None:
    (workspace / name).write_bytes(data)
    result = _ask(fake_provider, "openai/x", "-i", name, "what?")
    assert result.returncode == 1
    assert result.stderr == f"ai: cannot attach {name}: not a png, jpeg, gif or webp image\n"
    assert fake_provider.requests == []


def test_a_missing_file_is_one_line(fake_provider: FakeProvider, workspace: Path) -> None:
    result = _ask(fake_provider, "openai/x", "-i", "nope.png", "what?")
    assert result.returncode == 1
    assert result.stderr.startswith("ai: cannot attach nope.png: ")
    assert len(result.stderr.splitlines()) == 1


def test_a_model_without_vision_is_one_clear_line_and_an_answer(fake_provider: FakeProvider,
                                                                 shot: Path) -> None:
    """An unknown model's provider refusing the image: asked once more with a note
    (images.vision; before, the turn ended with the error line)."""
    fake_provider.queue(ErrorReply(400, message="Invalid content type. image_url is only "
                                   "supported by certain models."), Reply(text="No image."))
    result = run_ai("-m", "openai/x", "--api-base", fake_provider.url, "-i", str(shot), "hm")
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("openai/x refused the image(s)")
    assert PNG_B64 not in json.dumps(fake_provider.requests[1].body)


def test_resume_resends_the_image_from_the_data_dir(fake_provider: FakeProvider, shot: Path,
                                                    isolated: Path) -> None:
    first = _ask(fake_provider, "anthropic/x", "-i", str(shot), "what is this?")
    assert first.returncode == 0, first.stderr
    stored = list((isolated / "data" / "images").iterdir())
    assert [p.read_bytes() for p in stored] == [PNG]
    db = sqlite3.connect(isolated / "data" / "sessions.db")
    rows = " ".join(str(r) for r in db.execute("SELECT text, json FROM turn_blocks"))
    db.close()
    assert PNG_B64 not in rows  # by reference, not inline
    assert stored[0].stem in rows

    second = _ask(fake_provider, "anthropic/x", "-c", "and its colour?")
    assert second.returncode == 0, second.stderr
    messages = fake_provider.requests[1].body["messages"]
    assert messages[0]["content"][0]["source"]["data"] == PNG_B64
    assert [b["text"] for b in messages[-1]["content"]] == ["and its colour?"]

    stored[0].unlink()  # the twin: the image really came from that file
    third = _ask(fake_provider, "anthropic/x", "-c", "again?")
    assert third.returncode == 0, third.stderr
    first_user = fake_provider.requests[2].body["messages"][0]["content"]
    assert PNG_B64 not in str(first_user)
    assert "is gone" in str(first_user)


def test_at_mentions_name_existing_images_only(shot: Path, workspace: Path) -> None:
    from swebash_py.repl.mentions import expand

    found = expand("look at @shot.png and @missing.png, mail a@b.png", workspace)
    assert found.images == [shot]
    assert found.question == "look at shot.png and @missing.png, mail a@b.png"
    assert [images.attach(p).data for p in found.images] == [PNG_B64]


def test_the_type_is_told_from_the_bytes() -> None:
    assert images.sniff(PNG) == "image/png"
    assert images.sniff(b"\xff\xd8\xff\xe0rest") == "image/jpeg"
    assert images.sniff(b"GIF89a....") == "image/gif"
    assert images.sniff(b"RIFF\0\0\0\0WEBPVP8 ") == "image/webp"
    assert images.sniff(b"RIFF\0\0\0\0WAVEfmt ") is None


def test_read_file_of_an_image_in_the_workspace_sends_the_image(
        fake_provider: FakeProvider, shot: Path, workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.png"
    outside.write_bytes(PNG)
    calls = [ToolCall("r1", "read_file", json.dumps({"path": "shot.png"})),
             ToolCall("r2", "read_file", json.dumps({"path": str(outside)}))]
    fake_provider.queue(Reply(tool_calls=calls), Reply(text="A dot."))
    result = _ask(fake_provider, "anthropic/x", "-y", "what is in shot.png?")
    assert result.returncode == 0, result.stderr
    (inside_result, outside_result) = sent_results(fake_provider.requests[1])
    assert inside_result[1] == f"[image shot.png: image/png, {len(PNG)} bytes]"
    assert "binary file" in outside_result[1]  # outside the workspace: not sent as one
    user = fake_provider.requests[1].body["messages"][-1]["content"]
    images = [inner for part in user if part["type"] == "tool_result"
              and isinstance(part["content"], list)
              for inner in part["content"] if inner["type"] == "image"]
    assert [part["source"]["data"] for part in images] == [PNG_B64]  # once: the inside one
    assert user[0]["tool_use_id"] == "r1" and user[0]["content"][1] == images[0]  # in its result
