"""An image's size from its header (images.size), and what is done with it: a small
but too wide image is downscaled (Pillow) or refused with a line naming the extra;
one within the limit goes as it is (the twin)."""

from __future__ import annotations

import base64
import io
import sys
from pathlib import Path

import pytest
from PIL import Image

from swebash_py import images
from swebash_py.engine.messages import ImageBlock
from swebash_py.errors import ImageError
from swebash_py.images.size import dimensions


def _encoded(size: tuple[int, int], fmt: str, **options: object) -> bytes:
    out = io.BytesIO()
    mode = "RGBA" if options.pop("alpha", False) else "RGB"
    Image.new(mode, size, (200, 10, 10)).save(out, format=fmt, **options)
    return out.getvalue()


@pytest.mark.parametrize(("fmt", "options"), [
    ("PNG", {}), ("GIF", {}), ("JPEG", {}), ("JPEG", {"progressive": True}),
    ("WEBP", {}), ("WEBP", {"lossless": True}), ("WEBP", {"alpha": True}),  # VP8, VP8L, VP8X
])
def test_the_header_tells_the_size(fmt: str, options: dict[str, object]) -> None:
    data = _encoded((321, 123), fmt, **options)
    media_type = images.sniff(data)
    assert media_type is not None
    assert dimensions(data, media_type) == (321, 123)


def test_twin_a_header_it_cannot_read_is_none() -> None:
    assert dimensions(b"\x89PNG\r\n\x1a\n" + b"\0" * 30, "image/png") is None
    assert dimensions(b"\xff\xd8\xff", "image/jpeg") is None
    assert dimensions(b"RIFF\0\0\0\0WEBPVP8Z", "image/webp") is None


def test_a_small_but_too_wide_image_is_downscaled(workspace: Path) -> None:
    wide = workspace / "wide.png"
    wide.write_bytes(_encoded((images.MAX_SIDE + 1000, 10), "PNG"))
    assert wide.stat().st_size < images.MAX_BYTES  # the bytes alone would pass
    block = images.attach(wide)
    sent = images.load(block.media_type, block.sha256)
    assert isinstance(sent, ImageBlock)
    size = dimensions(base64.b64decode(sent.data), sent.media_type)
    assert size is not None and max(size) <= images.FIT_SIDE


def test_twin_an_image_at_the_limit_goes_as_it_is(workspace: Path) -> None:
    data = _encoded((images.MAX_SIDE, 10), "PNG")
    (workspace / "edge.png").write_bytes(data)
    block = images.attach(workspace / "edge.png")
    assert block.data == base64.b64encode(data).decode()


def test_too_wide_without_pillow_names_the_extra(workspace: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    (workspace / "wide.png").write_bytes(_encoded((9000, 10), "PNG"))
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImageError, match=r"^cannot attach .*wide\.png: 9000x10 pixels is over "
                                         r"the 8000 a side providers take, and making it "
                                         r"smaller needs Pillow, the \[images\] extra: "):
        images.attach(workspace / "wide.png")


def test_read_file_of_a_too_large_image_without_pillow_says_why(
        workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from swebash_py.tools.files import read_image

    (workspace / "wide.png").write_bytes(_encoded((9000, 10), "PNG"))
    (workspace / "fake.png").write_bytes(b"not an image at all")
    monkeypatch.setitem(sys.modules, "PIL", None)
    result = read_image(workspace / "wide.png", "wide.png")
    assert result is not None and result.is_error
    assert "needs Pillow, the [images] extra" in result.output
    assert "images" not in result.metadata
    assert read_image(workspace / "fake.png", "fake.png") is None  # twin: read as a file


def test_an_mcp_tools_too_large_image_without_pillow_names_the_extra_whole(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from swebash_py.mcpclient.results import map_result

    wide = base64.b64encode(_encoded((9000, 10), "PNG")).decode()
    small = base64.b64encode(_encoded((10, 10), "PNG")).decode()
    monkeypatch.setitem(sys.modules, "PIL", None)
    result = map_result(SimpleNamespace(content=[
        SimpleNamespace(type="image", data=wide, mime_type="image/png"),
        SimpleNamespace(type="image", data=small, mime_type="image/png")]), 10_000)
    first, second = result.output.splitlines()
    assert first.endswith("the [images] extra: pip install 'swebash-py[images]' "
                          "(or ./scripts/install.sh --images))")
    assert "not shown" in first
    assert second.startswith("[image returned by the tool: image/png")  # twin: it goes
    assert len(result.metadata["images"]) == 1
