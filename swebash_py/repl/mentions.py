"""`@path` in a question attaches that file (the contract's REPL section).

One tokenizer (``find``) for text files and images alike:

- ``@`` starts a mention at the start of the text, after whitespace or after
  ``(``, ``[``, ``{`` (``me@example.com`` is not one; ``\\@x`` neither);
- the name runs to the next unescaped whitespace; ``\\`` escapes the next
  character (``@my\\ notes.txt``); ``@"my notes.txt"`` and ``@'...'`` quote it;
- trailing punctuation (``.,;:!?)]}'"``, unescaped) is dropped from an unquoted
  name when the name with it names no file (``see @notes.txt.``);
- only names of existing files (``~`` expanded, relative to the REPL's
  directory) count: anything else is left as text.

``expand`` attaches them: a text file's contents are appended to the question
(its ``@name`` stays, so the model sees what was referred to); an image
(png, jpeg, gif, webp by suffix) is handed back in ``Mentions.images`` for the
image support to attach, and its ``@name`` becomes the bare name.

Every file is read by the one reader (``fs.reader``): capped before reading,
regular files only. A mention ``read_file`` would ask about (outside the
workspace, a secret) is asked about the same way, by the same approver
(``expand_asking``): ``--yes`` does not skip the question for a secret, and
with no one to ask it is not attached (a one-line note says why).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from swebash_py.fs.reader import Access, Unreadable, describe, judge, read_capped

if TYPE_CHECKING:
    from swebash_py.approvals.decision import Approver

MAX_FILE_CHARS = 100_000
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")
TRAILING = ".,;:!?)]}'\""
OPENERS = "([{"
QUOTES = "\"'"


@dataclass(frozen=True)
class Mention:
    start: int  # where its ``@`` is in the text
    end: int  # just past its last character (trailing punctuation not included)
    name: str  # as the user wrote it, unquoted and unescaped
    path: Path


@dataclass
class Mentions:
    question: str  # the question with the attached texts appended
    attached: list[Path] = field(default_factory=list)
    images: list[Path] = field(default_factory=list)  # for the image support to attach
    notes: list[str] = field(default_factory=list)  # one line each, for the user


def find(text: str, cwd: Path) -> list[Mention]:
    """Every ``@name`` in ``text`` that names an existing file, in order."""
    found: list[Mention] = []
    i = 0
    while (i := text.find("@", i)) != -1:
        start, i = i, i + 1
        if start and not (text[start - 1].isspace() or text[start - 1] in OPENERS):
            continue
        if i < len(text) and text[i] in QUOTES:
            close = text.find(text[i], i + 1)
            if close == -1:
                continue
            word = text[i + 1:close]
            candidates = [(word, close + 1)] if word else []
            i = close + 1
        else:
            chars, i = _word(text, i)
            candidates = _candidates(chars)
        for name, end in candidates:
            path = cwd / Path(name).expanduser()
            if path.is_file():
                found.append(Mention(start, end, name, path))
                break
    return found


def _word(text: str, i: int) -> tuple[list[tuple[str, int, bool]], int]:
    """The characters of a name from ``i`` to unescaped whitespace: (char, end of
    it in ``text``, escaped); and where the name ends."""
    chars: list[tuple[str, int, bool]] = []
    while i < len(text) and not text[i].isspace():
        if text[i] == "\\" and i + 1 < len(text):
            chars.append((text[i + 1], i + 2, True))
            i += 2
        else:
            chars.append((text[i], i + 1, False))
            i += 1
    return chars, i


def _candidates(chars: list[tuple[str, int, bool]]) -> list[tuple[str, int]]:
    """The name, then the name less each trailing (unescaped) punctuation mark."""
    found: list[tuple[str, int]] = []
    while chars:
        found.append(("".join(c for c, _, _ in chars), chars[-1][1]))
        char, _, escaped = chars[-1]
        if escaped or char not in TRAILING:
            break
        chars = chars[:-1]
    return found


def judge_mention(mention: Mention, cwd: Path, workspace: Path | None = None) -> Access:
    """The one reader's judgement of a mention: inside ``workspace`` (``cwd`` when
    None), not a secret, not our own files."""
    return judge(str(mention.path), cwd, (workspace or cwd,))


async def expand_asking(question: str, cwd: Path, workspace: Path, approver: Approver
                        ) -> Mentions:
    """``expand``, after asking (as ``read_file`` would be asked, through the same
    approver and question) about each mention the reader would not read unasked."""
    answers: dict[Path, str] = {}  # by the resolved path that was asked about
    for n, mention in enumerate(find(question, cwd)):
        access = judge_mention(mention, cwd, workspace)
        if access.problem and access.path not in answers:
            answers[access.path] = await ask_like_read_file(mention, workspace, approver, n)
    return expand(question, cwd, workspace, answers)


async def ask_like_read_file(mention: Mention, workspace: Path, approver: Approver,
                             n: int = 0) -> str:
    """'' when the approver allows ``read_file`` of the mentioned path (a rule,
    ``--yes`` for a path outside, or the user's answer), else why not. Its
    unresolved path goes in, so a secret's own name counts as well as its target's."""
    from swebash_py.approvals.decision import PendingCall
    from swebash_py.engine.messages import ToolUseBlock
    from swebash_py.tools.base import ToolContext
    from swebash_py.tools.files import ReadFile, ReadFileArgs

    raw = str(mention.path)
    tool, args = ReadFile(), ReadFileArgs(path=raw)
    preview = tool.preview(args, ToolContext(workspace=workspace))
    preview.summary += f"  (to attach @{mention.name} to your question)"
    call = ToolUseBlock(f"mention-{n}", tool.name, json.dumps({"path": raw}))
    pending = PendingCall(call, tool, args, preview)
    judged = approver.check(pending)
    verdict = judged.verdict
    if verdict.action == "ask":
        verdict = await approver.ask(pending, judged)
    return "" if verdict.action == "allow" else (verdict.reason or "not allowed")


def expand(question: str, cwd: Path, workspace: Path | None = None,
           answers: dict[Path, str] | None = None) -> Mentions:
    """Attach every file named ``@path`` in ``question`` (see the module doc).
    A mention the reader would not read unasked is attached only when
    ``answers`` (from ``expand_asking``) holds '' for the resolved path it has
    now (a link changed while the question was open is judged afresh: refused);
    else a note says why not, and its ``@name`` stays as text."""
    result = Mentions(question)
    blocks: list[str] = []
    pieces: list[str] = []
    done = 0
    refused: set[Path] = set()
    for mention in find(question, cwd):
        path, name = mention.path, mention.name
        if path in result.attached or path in refused:
            continue
        access = judge_mention(mention, cwd, workspace)
        if access.problem and (why := (answers or {}).get(access.path, describe(access))):
            result.notes.append(f"not attached: {name}: {why}")
            refused.add(path)
            continue
        if path.suffix.lower() in IMAGE_SUFFIXES:
            pieces += [question[done:mention.start], name]  # the image goes as itself
            done = mention.end
            if path not in result.images:
                result.images.append(path)
            continue
        if (block := _text_block(access.path, name, result.notes)) is not None:
            blocks.append(block)
            result.attached.append(path)
    text = "".join([*pieces, question[done:]])
    result.question = "\n\n".join([text, *blocks])
    return result


def _text_block(path: Path, name: str, notes: list[str]) -> str | None:
    """The file's text as a block for the question (None for a binary file, or
    one the reader refused: a note says why)."""
    try:
        capped = read_capped(path, name, MAX_FILE_CHARS * 4)  # UTF-8: at most 4 bytes a char
    except Unreadable as exc:
        notes.append(f"not attached: {exc}")
        return None
    if b"\0" in capped.data[:8192]:
        notes.append(f"not attached: {name} is a binary file")
        return None
    text = capped.text()
    cut = capped.cut or len(text) > MAX_FILE_CHARS
    text = text[:MAX_FILE_CHARS]
    lines = text.count("\n") + (not text.endswith("\n") and bool(text))
    counted = "1 line" if lines == 1 else f"{lines} lines"
    notes.append(f"attached {name} ({counted}" + (", cut" if cut else "") + ")")
    return (f"Contents of `{name}`" + (f" (first {MAX_FILE_CHARS:,} characters)" if cut else "")
            + f":\n```\n{text.rstrip()}\n```")
