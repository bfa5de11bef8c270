"""Fit the conversation into the model's context window before every request.

Vocabulary: a *turn* starts at a user message holding text and no tool_result
(the user's request); it runs through the assistant's replies and the tool
results that follow. A *cut* is an index where the history may be split without
parting a tool_use from its result: a turn start, or an assistant message.

:meth:`ContextManager.fit` returns the history unchanged while the request
stays under ``threshold`` (80 %) of the input budget (window minus reply
budget). Above it, the older part is summarised by the injected ``summarize``
callable (in chunks that each fit) and replaced by one summary, carried as the
first text block of the first kept user message (valid for OpenAI and
Anthropic alike). If the result is still too long, whole oldest turns are
dropped, then the largest tool results are cut to head + tail. Each step runs
once; nothing loops.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from msgspec.structs import replace

from swebash_py.engine.messages import (
    Block,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    json_object,
)
from swebash_py.engine.tokens import IMAGE_TOKENS, TokenCounter, chars_for_tokens, estimate_text

SUMMARY_PREFIX = "[Summary of the earlier conversation]\n"
SUMMARY_END = "\n[End of summary]"
REQUEST_HEADER = "\n\n[The request being worked on]\n"
SUMMARY_ACK = "Understood. I have the summary of our earlier conversation."

Summarizer = Callable[[list[Message]], Awaitable[str]]


@dataclass
class FitResult:
    """The history to send, and what was done to it."""

    messages: list[Message]
    tokens: int  # calibrated estimate of the whole request (system + tools + messages)
    raw_tokens: int  # uncalibrated; give it to TokenCounter.calibrate with the usage
    budget: int  # input tokens available (window minus reply budget)
    compacted: bool = False
    summarized_messages: int = 0
    dropped_turns: int = 0
    shortened_results: int = 0
    note: str | None = None

    @property
    def fits(self) -> bool:
        return self.tokens <= self.budget


def input_budget(window: int, reply_budget: int) -> int:
    """Tokens left for the request: the window minus the reply (at most half of it)."""
    return max(1, window - min(max(0, reply_budget), window // 2))


class ContextManager:
    """Keeps requests inside the window; one instance per conversation.

    ``summarize`` receives a valid conversation (user first, tool pairs intact)
    whose estimate is at most ``summary_input_ratio`` of the input budget and
    returns the summary text; it adds its own instruction and must cap its reply.
    """

    def __init__(self, summarize: Summarizer | None = None, counter: TokenCounter | None = None,
                 *, threshold: float = 0.8, keep_ratio: float = 0.5,
                 summary_ratio: float = 0.15, summary_input_ratio: float = 0.6,
                 max_summary_chunks: int = 4) -> None:
        self.summarize = summarize
        self.counter = counter or TokenCounter()
        self.threshold = threshold
        self.keep_ratio = keep_ratio
        self.summary_ratio = summary_ratio
        self.summary_input_ratio = summary_input_ratio
        self.max_summary_chunks = max_summary_chunks

    # ---------------------------------------------------------------- public
    async def fit(self, system: str, messages: list[Message], tools_tokens: int,
                  window: int, reply_budget: int) -> FitResult:
        """The history to send now: unchanged under the threshold, else compacted."""
        budget = input_budget(window, reply_budget)
        fixed = self.counter.text(system) + tools_tokens
        raw = fixed + self.counter.messages(messages)
        if self.counter.scaled(raw) <= self.threshold * budget:
            return self._result(messages, raw, budget)
        return await self._compact(messages, fixed, budget, self.keep_ratio, forced=False)

    async def compact(self, system: str, messages: list[Message], tools_tokens: int,
                      window: int, reply_budget: int) -> FitResult:
        """``/compact``: summarise all but the last turn (when that turn is small)."""
        budget = input_budget(window, reply_budget)
        fixed = self.counter.text(system) + tools_tokens
        return await self._compact(messages, fixed, budget, self.keep_ratio / 2, forced=True)

    def recover_from_overflow(self, system: str, messages: list[Message], tools_tokens: int,
                              window: int, reply_budget: int) -> FitResult:
        """The provider said "context exceeded": cut to half the budget, no model call.

        Also raises the calibration factor, since our estimate proved too low.
        Call it once per refused request; its output is deterministic.
        """
        self.counter.penalize()
        budget = input_budget(window, reply_budget)
        fixed = self.counter.text(system) + tools_tokens
        summary, body = split_summary(messages)
        avail = self._raw(budget * 0.5) - fixed
        msgs, dropped, shortened = self._shrink(summary, body, avail)
        result = self._result(msgs, fixed + self.counter.messages(msgs), budget)
        result.dropped_turns, result.shortened_results = dropped, shortened
        result.note = _note("Context window exceeded; retrying with a shorter history",
                            0, dropped, shortened)
        return result

    # ---------------------------------------------------------------- steps
    def _raw(self, real_tokens: float) -> int:
        return int(real_tokens / self.counter.factor)

    def _result(self, msgs: list[Message], raw: int, budget: int) -> FitResult:
        return FitResult(msgs, self.counter.scaled(raw), raw, budget)

    async def _compact(self, messages: list[Message], fixed: int, budget: int,
                       keep_ratio: float, *, forced: bool) -> FitResult:
        avail = self._raw(budget) - fixed
        summary, body = split_summary(messages)
        cut = self._choose_cut(body, int(avail * keep_ratio), forced)
        summarized = skipped = 0
        if cut is not None and self.summarize is not None:
            older, kept = body[:cut], body[cut:]
            new_summary, skipped = await self._summarize(with_summary(summary, older), avail)
            if new_summary is not None:
                summary, body, summarized = new_summary, kept, len(older) - skipped
                if kept and kept[0].role == "assistant":
                    summary += REQUEST_HEADER + _current_request(older)
        msgs, dropped, shortened = self._shrink(summary, body, avail)
        result = self._result(msgs, fixed + self.counter.messages(msgs), budget)
        result.compacted = summarized > 0
        result.summarized_messages = summarized
        result.dropped_turns, result.shortened_results = dropped, shortened
        result.note = _note("Context compacted", summarized, dropped, shortened)
        if result.note and skipped:
            result.note = result.note[:-1] + f" (and left out the oldest {skipped} messages)."
        return result

    def _choose_cut(self, body: list[Message], keep: int, forced: bool) -> int | None:
        """Where the kept (recent, verbatim) part begins; None = nothing to summarise."""
        n = len(body)
        suffix = [0] * (n + 1)
        for i in range(n - 1, -1, -1):
            suffix[i] = suffix[i + 1] + self.counter.message(body[i])
        starts = [i for i in turn_starts(body) if i > 0]
        if forced:  # keep only the last turn, and only if it is small
            return starts[-1] if starts and suffix[starts[-1]] <= keep else (n or None)
        for i in starts:
            if suffix[i] <= keep:
                return i
        last = starts[-1] if starts else 0
        inner = [i for i in range(last + 1, n) if body[i].role == "assistant"]
        for i in inner:
            if suffix[i] <= keep:
                return i
        if inner:
            return inner[-1]
        return last or None

    async def _summarize(self, older: list[Message], avail: int) -> tuple[str | None, int]:
        """The summary of ``older`` and how many of its oldest messages were left out.

        At most ``max_summary_chunks`` requests; beyond that the oldest part is dropped.
        """
        assert self.summarize is not None
        cap = max(64, int(avail * self.summary_ratio))
        limit = max(128, int(avail * self.summary_input_ratio) - cap - 32)
        chunks = _chunks(older, limit, self.counter)
        skipped = sum(len(c) for c in chunks[: -self.max_summary_chunks])
        summary: str | None = None
        for chunk in chunks[-self.max_summary_chunks:]:
            try:
                text = (await self.summarize(with_summary(summary, chunk))).strip()
            except Exception:  # a failed summary must not fail the user's turn
                return None, 0
            summary = shorten_text(text, cap, head_only=True)
        return summary, skipped

    def _shrink(self, summary: str | None, body: list[Message],
                avail: int) -> tuple[list[Message], int, int]:
        """Drop oldest whole turns, then cut the largest tool results, to fit ``avail``."""
        head = self.counter.message(Message.user(_summary_text(summary))) if summary else 0
        groups = split_turns(body)
        sizes = [group_tokens(g, self.counter) for g in groups]
        total, dropped = head + sum(sizes), 0
        while total > avail and len(groups) > 1:
            total -= sizes.pop(0)
            groups.pop(0)
            dropped += 1
        msgs = [m for g in groups for m in g]
        shortened = 0
        if total > avail:
            msgs, shortened = shorten_blocks(msgs, total - avail, self.counter,
                                             kinds=(ToolResultBlock,))
        return with_summary(summary, msgs), dropped, shortened


# -------------------------------------------------------------------- summary


def _summary_text(summary: str) -> str:
    return f"{SUMMARY_PREFIX}{summary}{SUMMARY_END}"


def split_summary(messages: list[Message]) -> tuple[str | None, list[Message]]:
    """Take a previous summary off the front of the history."""
    if not messages or messages[0].role != "user" or not messages[0].blocks:
        return None, messages
    first = messages[0].blocks[0]
    if not (isinstance(first, TextBlock) and first.text.startswith(SUMMARY_PREFIX)):
        return None, messages
    summary = first.text[len(SUMMARY_PREFIX):].removesuffix("\n\n").removesuffix(SUMMARY_END)
    rest = messages[0].blocks[1:]
    tail = messages[1:]
    if tail and tail[0].role == "assistant" and tail[0].text == SUMMARY_ACK:
        tail = tail[1:]
    return summary, ([Message("user", rest)] if rest else []) + tail


def with_summary(summary: str | None, msgs: list[Message]) -> list[Message]:
    """Put the summary in front: merged into a leading user request, else its own message."""
    if summary is None:
        if msgs and msgs[0].role == "assistant":
            return [Message.user("[Earlier conversation omitted]"), *msgs]
        return msgs
    text = _summary_text(summary)
    if not msgs:  # keep the history ending on the assistant, ready for the next request
        return [Message.user(text), Message("assistant", [TextBlock(SUMMARY_ACK)])]
    if msgs[0].role == "user" and not msgs[0].tool_results():
        return [Message("user", [TextBlock(text + "\n\n"), *msgs[0].blocks]), *msgs[1:]]
    return [Message.user(text), *msgs]


def _current_request(older: list[Message]) -> str:
    starts = turn_starts(older)
    return older[starts[-1]].text if starts else ""


def _chunks(msgs: list[Message], limit: int, counter: TokenCounter) -> list[list[Message]]:
    """Split at cuts into pieces of at most ``limit`` tokens, shortening oversize pieces."""
    units: list[list[Message]] = []
    for m in msgs:
        if not units or m.role == "assistant" or (m.role == "user" and not m.tool_results()):
            units.append([m])
        else:
            units[-1].append(m)
    chunks: list[list[Message]] = []
    size = 0
    for unit in units:
        n = group_tokens(unit, counter)
        if n > limit:
            unit, _ = shorten_blocks(unit, n - limit, counter, kinds=None)
            n = group_tokens(unit, counter)
        if chunks and size + n <= limit:
            chunks[-1].extend(unit)
            size += n
        else:
            chunks.append(list(unit))
            size = n
    return chunks


def _note(what: str, summarized: int, dropped: int, shortened: int) -> str | None:
    parts = []
    if summarized:
        parts.append(f"summarised {summarized} earlier messages")
    if dropped:
        parts.append(f"dropped {dropped} oldest turn{'s' if dropped != 1 else ''}")
    if shortened:
        parts.append(f"shortened {shortened} tool result{'s' if shortened != 1 else ''}")
    if not parts:
        return None if what == "Context compacted" else what
    return f"{what}: {', '.join(parts)}."


# -------------------------------------------------------------------- turns


def is_turn_start(msg: Message) -> bool:
    """A user request: user text and no tool result."""
    return (msg.role == "user" and not msg.tool_results()
            and any(isinstance(b, TextBlock) for b in msg.blocks))


def turn_starts(msgs: list[Message]) -> list[int]:
    return [i for i, m in enumerate(msgs) if is_turn_start(m)]


def split_turns(msgs: list[Message]) -> list[list[Message]]:
    """Whole turns; messages before the first request form a group of their own."""
    groups: list[list[Message]] = []
    for m in msgs:
        if not groups or is_turn_start(m):
            groups.append([m])
        else:
            groups[-1].append(m)
    return groups


def group_tokens(msgs: list[Message], counter: TokenCounter) -> int:
    return counter.messages(msgs)


# -------------------------------------------------------------------- shortening

MIN_KEEP = 48  # tokens a shortened block keeps at least
MARKER_TOKENS = 16  # what the "[... omitted ...]" marker costs


def shorten_text(text: str, tokens: int, *, head_only: bool = False) -> str:
    """``text`` cut to about ``tokens`` tokens: head and tail around a marker."""
    if estimate_text(text) <= tokens:
        return text
    keep = chars_for_tokens(text, tokens)
    omitted = len(text) - keep
    if head_only:
        return text[:keep] + f"\n[... {omitted} characters omitted]"
    head = keep * 3 // 5
    tail = text[len(text) - (keep - head):] if keep > head else ""
    return f"{text[:head]}\n[... {omitted} characters omitted ...]\n{tail}"


def _block_size(block: Block) -> int:
    if isinstance(block, ToolResultBlock):
        return estimate_text(block.content)
    if isinstance(block, ToolUseBlock):
        return estimate_text(block.arguments)
    if isinstance(block, ImageBlock):
        return IMAGE_TOKENS
    return estimate_text(block.text)


def _shorten_block(block: Block, tokens: int) -> Block:
    if isinstance(block, ToolResultBlock):
        return replace(block, content=shorten_text(block.content, tokens))
    if isinstance(block, ToolUseBlock):
        return replace(block, arguments=_shorten_arguments(block.arguments, tokens))
    if isinstance(block, ThinkingBlock):  # a cut thinking block's signature is void
        return ThinkingBlock(shorten_text(block.text, tokens), None)
    if isinstance(block, ImageBlock):  # an image cannot be cut: it goes, a note stays
        return TextBlock("[an attached image was left out to fit the context window]")
    return replace(block, text=shorten_text(block.text, tokens))


def _shorten_arguments(arguments: str, tokens: int) -> str:
    """Shorten the string values of a JSON object, keeping it valid JSON."""
    value = json_object(arguments)
    if value is None:
        value = {"arguments": arguments}
    share = max(MIN_KEEP, tokens // max(1, len(value)))
    short = {k: shorten_text(v, share) if isinstance(v, str) else v for k, v in value.items()}
    return json.dumps(short, ensure_ascii=False)


def _water_level(sizes: list[int], excess: int) -> int | None:
    """The cap C such that cutting every size above C saves about ``excess``."""
    ordered = sorted(sizes, reverse=True)
    if not ordered or ordered[0] <= MIN_KEEP:
        return None
    prefix = 0
    for k, size in enumerate(ordered, start=1):
        prefix += size
        cap = (prefix - excess - k * MARKER_TOKENS) // k
        following = ordered[k] if k < len(ordered) else 0
        if cap >= following:
            return max(cap, MIN_KEEP)
    return MIN_KEEP


def shorten_blocks(msgs: list[Message], excess: int, counter: TokenCounter,
                   kinds: tuple[type, ...] | None) -> tuple[list[Message], int]:
    """Cut the largest blocks of ``kinds`` (None: any) so the total drops by ``excess``.

    Returns new messages (the input is not modified) and how many blocks were cut.
    At most three passes, since a cut's density can differ from the block's average.
    """
    cut: set[tuple[int, int]] = set()
    msgs = list(msgs)
    for _ in range(3):
        if excess <= 0:
            break
        spots = [(i, j, _block_size(b)) for i, m in enumerate(msgs)
                 for j, b in enumerate(m.blocks) if kinds is None or isinstance(b, kinds)]
        cap = _water_level([size for _, _, size in spots], excess)
        if cap is None:
            break
        changed = {i for i, _, size in spots if size > cap}
        before = counter.messages(msgs[i] for i in changed)
        for i in changed:
            blocks = list(msgs[i].blocks)
            for j, b in enumerate(blocks):
                if (kinds is None or isinstance(b, kinds)) and _block_size(b) > cap:
                    blocks[j] = _shorten_block(b, cap)
                    cut.add((i, j))
            msgs[i] = Message(msgs[i].role, blocks)
        saved = before - counter.messages(msgs[i] for i in changed)
        if saved <= 0:
            break
        excess -= saved
    return msgs, len(cut)


# -------------------------------------------------------------------- repair

INTERRUPTED = "interrupted: the session ended before this tool ran/finished"


def merge_same_role(msgs: list[Message]) -> list[Message]:
    """Consecutive messages of one role merged into one (the wire formats want
    user and assistant to alternate)."""
    out: list[Message] = []
    for m in msgs:
        if out and out[-1].role == m.role:
            out[-1] = Message(m.role, [*out[-1].blocks, *m.blocks])
        else:
            out.append(m)
    return out


def _pair_results(msg: Message, uses: list[ToolUseBlock]) -> Message:
    """``msg`` with exactly one result per call of ``uses``, in call order, results first."""
    found: dict[str, ToolResultBlock] = {}
    for r in msg.tool_results():
        found.setdefault(r.call_id, r)
    results: list[Block] = [
        found.get(u.id) or ToolResultBlock(u.id, u.name, INTERRUPTED, is_error=True)
        for u in uses
    ]
    others = [b for b in msg.blocks if not isinstance(b, ToolResultBlock)]
    blocks = results + others
    if len(blocks) == len(msg.blocks) and all(a is b for a, b in zip(blocks, msg.blocks,
                                                                     strict=True)):
        return msg
    return Message("user", blocks)


def repair(messages: list[Message]) -> list[Message]:
    """Make any history valid for the providers.

    Empty messages go; consecutive same-role messages merge; every tool_use gets
    exactly one result right after it (a missing one becomes an error result
    saying the session was interrupted); results without their call are
    dropped; the history starts with a user message. Untouched messages keep
    their identity (so token estimates stay cached).
    """
    msgs = merge_same_role([m for m in messages if m.blocks])
    out: list[Message] = []
    for i, m in enumerate(msgs):
        if m.role == "assistant":
            out.append(m)
            uses = m.tool_uses()
            if uses and (i + 1 == len(msgs) or msgs[i + 1].role != "user"):
                out.append(_pair_results(Message("user", []), uses))
            continue
        prev = msgs[i - 1] if i else None
        uses = prev.tool_uses() if prev is not None and prev.role == "assistant" else []
        fixed = _pair_results(m, uses)
        if fixed.blocks:
            out.append(fixed)
    out = merge_same_role(out)
    if out and out[0].role == "assistant":
        out.insert(0, Message.user("[Earlier conversation omitted]"))
    return out
