"""Images attached to a question (``-i/--image FILE``, ``@shot.png`` in the REPL:
found by ``repl.mentions``) or returned by a tool (``read_file`` of an image, an MCP
tool's image: ``from_data``). Which requests carry them: ``images.vision``.

An image is read, its type told from its first bytes (png, jpeg, gif, webp),
downscaled with Pillow (imported only then) when it is larger than providers
take (bytes, or pixels a side: ``images.size``), and kept content-addressed in
``<data dir>/images/<sha256>.<ext>``: the session store keeps only that name, and
resuming reads the file back.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path

from swebash_py.engine.messages import ImageBlock, TextBlock
from swebash_py.errors import ImageError, install_extra

MAX_BYTES = 3_750_000  # Anthropic takes 5 MB of base64 per image: 3.75 MB of bytes
MAX_SIDE = 8000  # pixels; Anthropic refuses larger
FIT_SIDE = 2000  # a downscaled image's longer side (Anthropic's cap when a request has many)
MAX_INPUT_BYTES = 50_000_000  # not even worth decoding past this
EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif",
              "image/webp": "webp"}


def sniff(data: bytes) -> str | None:
    """The media type told by the first bytes, or None when not one we send."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def images_dir() -> Path:
    from swebash_py.config.paths import data_dir

    return data_dir() / "images"


def attach(path: Path | str) -> ImageBlock:
    """The image at ``path`` as a block, stored in the data dir (ImageError if not).

    Read by the one reader (``fs.reader``): the user named this file (``-i``, or
    an ``@path`` the mention flow already judged and, if it had to, asked about),
    so it may be anywhere; but never a secret, our own files or anything but a
    regular file, and no more than ``MAX_INPUT_BYTES`` are read."""
    from swebash_py.fs.reader import Unreadable, describe, judge, read_capped

    shown = str(path)
    access = judge(shown, Path.cwd(), (Path("/"),))
    if access.problem:
        raise ImageError(f"cannot attach {shown}: {describe(access)}")
    try:
        capped = read_capped(access.path, shown, MAX_INPUT_BYTES)
    except Unreadable as exc:
        raise ImageError(f"cannot attach {shown}: {exc.reason}") from exc
    if capped.cut:
        raise ImageError(f"cannot attach {shown}: more than {MAX_INPUT_BYTES / 1e6:.0f} MB "
                         "is too large")
    data = capped.data
    media_type = sniff(data)
    if media_type is None:
        raise ImageError(f"cannot attach {shown}: not a png, jpeg, gif or webp image")
    return store(*fitted(data, media_type, shown))


def from_data(data: bytes, source: str) -> ImageBlock:
    """An image a tool returned (its bytes) as a block, stored like an attached one
    (ImageError, naming ``source``, if it is not one we send)."""
    if len(data) > MAX_INPUT_BYTES:
        raise ImageError(f"cannot attach {source}: {len(data) / 1e6:.0f} MB is too large")
    media_type = sniff(data)
    if media_type is None:
        raise ImageError(f"cannot attach {source}: not a png, jpeg, gif or webp image")
    return store(*fitted(data, media_type, source))


def fitted(data: bytes, media_type: str, shown: str) -> tuple[bytes, str]:
    """``data`` within what providers take, in bytes and in pixels a side (a copy
    downscaled with Pillow when not; ImageError naming the extra without it)."""
    from swebash_py.images.size import dimensions

    size = dimensions(data, media_type)
    if size is not None and max(size) > MAX_SIDE:
        return downscale(data, Path(shown), f"{size[0]}x{size[1]} pixels is over the "
                                            f"{MAX_SIDE} a side providers take")
    if len(data) > MAX_BYTES:
        return downscale(data, Path(shown))
    return data, media_type


def downscale(data: bytes, path: Path, why: str | None = None) -> tuple[bytes, str]:
    """A smaller copy that fits ``MAX_BYTES`` and ``FIT_SIDE`` (png stays png when it
    can; else jpeg); ``why`` it is needed goes into the error without Pillow."""
    why = why or f"{len(data) / 1e6:.1f} MB is over the {MAX_BYTES / 1e6:.2f} MB providers take"
    try:
        from PIL import Image
    except ImportError as exc:  # an optional part: the [images] extra
        raise ImageError(f"cannot attach {path}: {why}, and making it smaller "
                         f"needs Pillow, the [images] extra: {install_extra('images')}"
                         ) from exc
    try:
        with Image.open(io.BytesIO(data)) as img:
            img.load()
            img.thumbnail((FIT_SIDE, FIT_SIDE))
            for fmt in ("PNG", "JPEG"):
                out = io.BytesIO()
                frame = img.convert("RGB") if fmt == "JPEG" and img.mode != "RGB" else img
                frame.save(out, format=fmt, **({"quality": 85} if fmt == "JPEG" else {}))
                if out.tell() <= MAX_BYTES:
                    return out.getvalue(), f"image/{fmt.lower()}"
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise ImageError(f"cannot attach {path}: cannot read the image: {exc}") from exc
    raise ImageError(f"cannot attach {path}: still over {MAX_BYTES / 1e6:.2f} MB "
                     "after downscaling")


def store(data: bytes, media_type: str) -> ImageBlock:
    """Keep ``data`` under its hash in the images dir (once); the block for it."""
    import hashlib  # here: a question with no image needs none

    from swebash_py.atomic import write_atomic

    digest = hashlib.sha256(data).hexdigest()
    target = images_dir() / f"{digest}.{EXTENSIONS[media_type]}"
    if not target.exists():
        write_atomic(target, data, new_mode=0o600)
    return ImageBlock(media_type, digest, base64.b64encode(data).decode("ascii"))


def load(media_type: str, digest: str, call_id: str | None = None) -> ImageBlock | TextBlock:
    """The stored image as a block (``call_id``: the tool call that returned it);
    a text note when its file is gone."""
    name = f"{digest}.{EXTENSIONS.get(media_type, 'bin')}"
    try:
        data = (images_dir() / name).read_bytes()
    except OSError:
        return TextBlock(f"[an image was attached here; its file {name} is gone]")
    return ImageBlock(media_type, digest, base64.b64encode(data).decode("ascii"),
                      call_id=call_id)


def placeholder(block: ImageBlock) -> str:
    """How an image shows in text (exports, the stored row)."""
    return f"[image {block.sha256[:12]}.{EXTENSIONS.get(block.media_type, 'bin')}]"
