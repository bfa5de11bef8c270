"""An image's width and height read from its header, without Pillow.

Providers refuse images past a side length (Anthropic: 8000 px) whatever their
byte size, so a small but very wide PNG must be caught before it is sent; the
header says it in a few bytes, and Pillow (the optional ``[images]`` extra) is
then needed only to make it smaller.
"""

from __future__ import annotations

import struct

# JPEG start-of-frame markers (baseline, progressive, ...); C4, C8 and CC are others
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def dimensions(data: bytes, media_type: str) -> tuple[int, int] | None:
    """(width, height) from the header of a png, gif, webp or jpeg; None when the
    header cannot be read (then the provider judges)."""
    try:
        if media_type == "image/png" and data[12:16] == b"IHDR":
            width, height = struct.unpack(">II", data[16:24])
            return int(width), int(height)
        if media_type == "image/gif":
            width, height = struct.unpack("<HH", data[6:10])
            return int(width), int(height)
        if media_type == "image/webp":
            return _webp(data)
        if media_type == "image/jpeg":
            return _jpeg(data)
    except (struct.error, IndexError):
        return None
    return None


def _webp(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X":  # extended: 24-bit sizes minus one
        return (int.from_bytes(data[24:27], "little") + 1,
                int.from_bytes(data[27:30], "little") + 1)
    if chunk == b"VP8 ":  # lossy: 14-bit sizes after the frame tag and start code
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L":  # lossless: 14-bit sizes minus one, packed after a signature
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    return None


def _jpeg(data: bytes) -> tuple[int, int] | None:
    """The size in the first start-of-frame segment (walking the segments)."""
    at = 2
    while at + 9 < len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if 0xD0 <= marker <= 0xD9 or marker == 0x01:  # no length follows
            at += 2
            continue
        length = int.from_bytes(data[at + 2:at + 4], "big")
        if marker in _SOF:
            height, width = struct.unpack(">HH", data[at + 5:at + 9])
            return int(width), int(height)
        at += 2 + length
    return None
