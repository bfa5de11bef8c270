"""`@path` in a question attaches that file's text (the contract's REPL section).

``expand`` finds each ``@path`` naming an existing file and appends its text to
the question; the ``@path`` itself stays in the question, so the model sees
what the user referred to. Images are handed back untouched in
``Mentions.images`` (attaching them is the image support's job: a hook).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

MAX_FILE_CHARS = 100_000
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")
_MENTION = re.compile(r"(?<![\w@])@((?:\\ |[^\s])+)")
_TRAILING = ".,;:!?)]}'\""


@dataclass
class Mentions:
    question: str  # the question with the attached texts appended
    attached: list[Path] = field(default_factory=list)
    images: list[Path] = field(default_factory=list)  # for the image support to attach
    notes: list[str] = field(default_factory=list)  # one line each, for the user


def _resolve(word: str, cwd: Path) -> tuple[Path, str] | None:
    """The file ``word`` names (trailing punctuation allowed) and its name."""
    word = word.replace("\\ ", " ")
    for candidate in (word, word.rstrip(_TRAILING)):
        path = (cwd / Path(candidate).expanduser())
        if candidate and path.is_file():
            return path, candidate
    return None


def expand(question: str, cwd: Path) -> Mentions:
    """Attach the text of every file named ``@path`` in ``question``."""
    result = Mentions(question)
    blocks: list[str] = []
    for match in _MENTION.finditer(question):
        found = _resolve(match.group(1), cwd)
        if found is None or found[0] in result.attached or found[0] in result.images:
            continue
        path, name = found
        if path.suffix.lower() in IMAGE_SUFFIXES:
            result.images.append(path)
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            result.notes.append(f"not attached: {name} is a binary file")
            continue
        text = data.decode("utf-8", errors="replace")
        cut = len(text) > MAX_FILE_CHARS
        body = text[:MAX_FILE_CHARS]
        blocks.append(f"Contents of `{name}`"
                      + (f" (first {MAX_FILE_CHARS:,} characters)" if cut else "")
                      + f":\n```\n{body.rstrip()}\n```")
        result.attached.append(path)
        lines = text.count("\n") + (not text.endswith("\n") and bool(text))
        result.notes.append(f"attached {name} ({lines} lines"
                            + (", cut" if cut else "") + ")")
    if blocks:
        result.question = "\n\n".join([question, *blocks])
    return result
