"""What compaction keeps: a structured state, not a free-form summary.

A model-written summary loses exactly what must survive: the user's own
constraints (paraphrased away), what was refused (so the model retries it) and
which files changed. So three parts are taken from the history itself, by us,
verbatim: the user's words, the calls denied or discarded, the files written or
edited (a tool of the edit kind: the caller, which knows the tools' traits, says
which, ``changes_files``; the engine is below the tools and never names one).
The model writes only what needs judgement (goal, decisions, findings,
what is next) under fixed headings. A later compaction reads the recorded parts
back out of the earlier state and carries them on, newest kept when capped.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from swebash_py.engine.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock

STATE_INSTRUCTION = (
    "Write the state of the conversation above for your own later use, facts only, at "
    "most 250 words, under these headings: Goal: (what the user wants). Decisions: (what "
    "was decided or tried, and why). Found: (facts learned: paths, causes, versions). "
    "Next: (what is still to do). The user's own words, refused calls and changed files "
    "are kept separately: do not repeat them.")

WORDS = "The user's words (verbatim):"
REFUSED = "Denied or discarded (the user's no: do not retry these or an equivalent):"
FILES = "Files changed:"
_HEADINGS = (REFUSED, FILES, WORDS)  # the short lists first: a capped state loses the end
# (first items, last items, characters each): the user's first words usually hold the
# task and its constraints, the last ones the current request
_CAPS = {WORDS: (2, 4, 240), REFUSED: (0, 10, 200), FILES: (0, 30, 200)}
ChangesFiles = Callable[[str], bool]  # tool name -> whether its calls change files


def recorded(messages: list[Message], previous: str | None = None, *,
             changes_files: ChangesFiles) -> dict[str, list[str]]:
    """The recorded parts of ``messages``, after those carried in ``previous``;
    a successful call of a tool that ``changes_files`` lists its path."""
    found = parse(previous) if previous else {heading: [] for heading in _HEADINGS}
    calls: dict[str, ToolUseBlock] = {}
    for message in messages:
        for block in message.blocks:
            if isinstance(block, TextBlock) and message.role == "user":
                _add(found, WORDS, _quoted(block.text))
            elif isinstance(block, ToolUseBlock):
                calls[block.id] = block
            elif isinstance(block, ToolResultBlock):
                _note_result(found, block, calls.get(block.call_id), changes_files)
    return {heading: _capped(heading, items) for heading, items in found.items()}


def state_text(model_part: str, parts: dict[str, list[str]]) -> str:
    """The state: the recorded parts first (bounded), then the model's headings."""
    lines = []
    for heading in _HEADINGS:
        if parts.get(heading):
            lines += [heading, *(f"- {item}" for item in parts[heading])]
    return "\n".join([*lines, model_part.strip()]).strip()


def parse(text: str) -> dict[str, list[str]]:
    """The recorded parts of an earlier state (its ``- `` lines under our headings)."""
    found: dict[str, list[str]] = {heading: [] for heading in _HEADINGS}
    current: str | None = None
    for line in text.splitlines():
        if line in _HEADINGS:
            current = line
        elif current and line.startswith("- "):
            found[current].append(line[2:])
        else:
            current = None
    return found


def _note_result(found: dict[str, list[str]], result: ToolResultBlock,
                 call: ToolUseBlock | None, changes_files: ChangesFiles) -> None:
    subject = _subject(call) if call else ""
    lowered = result.content.lower()
    if result.is_error and ("denied" in lowered or "discarded" in lowered):
        first = result.content.strip().splitlines()[0] if result.content.strip() else ""
        _add(found, REFUSED, f"{result.name} {subject}: {first}".strip())
    elif not result.is_error and changes_files(result.name) and subject:
        _add(found, FILES, subject)


def _subject(call: ToolUseBlock) -> str:
    try:
        args = json.loads(call.arguments or "{}")
    except ValueError:
        return ""
    if not isinstance(args, dict):
        return ""
    for key in ("command", "path", "url", "query"):
        if isinstance(args.get(key), str):
            return str(args[key])
    return ""


def _quoted(text: str) -> str:
    from swebash_py.engine.context import SUMMARY_PREFIX  # the earlier state is not a word

    text = text.strip()
    if not text or text.startswith(SUMMARY_PREFIX) or text.startswith("[Earlier conversation"):
        return ""
    return json.dumps(text, ensure_ascii=False)  # one line, quoted: verbatim and unmistakable


def _add(found: dict[str, list[str]], heading: str, item: str) -> None:
    if item and item not in found[heading]:
        found[heading].append(item)


def _capped(heading: str, items: list[str]) -> list[str]:
    first, last, chars = _CAPS[heading]
    kept = items if len(items) <= first + last else items[:first] + items[-last:]
    return [item if len(item) <= chars else item[:chars - 1] + "…" for item in kept]
