"""Cheap, incremental token estimates, calibrated by what the provider reports.

We do not use tiktoken or litellm's ``token_counter`` here: importing litellm
costs seconds, tokenizing a long session costs tens of milliseconds per
request, and neither knows Anthropic's, Gemini's or a local model's tokenizer
anyway. The only exact figure is the provider's reported ``input_tokens``, so
we estimate from character classes (letters ~4 per token; digits, punctuation
and non-ASCII text much denser), cache the estimate per message, and scale
future estimates by how far the last estimate was from the reported usage.

All counts from :class:`TokenCounter` are *raw* estimates; apply
:meth:`TokenCounter.scaled` to a request total to get the calibrated figure.
"""

from __future__ import annotations

import math
import string
import weakref
from collections.abc import Callable, Iterable

from swebash_py.engine.messages import (
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)

# Tokens per character class, fitted against cl100k on prose, Python, JSON and
# shell output, then rounded up (Anthropic's tokenizer yields ~10 % more).
_PER_LETTER = 0.25
_PER_DIGIT = 0.7
_PER_PUNCT = 0.6
_PER_SPACE = 0.12
_PER_NON_ASCII = 0.9
_SAFETY = 1.05

MESSAGE_OVERHEAD = 4  # role and framing of one message
BLOCK_OVERHEAD = 3  # a content part
IMAGE_TOKENS = 1600  # an attached image (Anthropic: about w*h/750, ~1600 at the usual size)
TOOL_OVERHEAD = 12  # id, name and framing of a tool call or result

FACTOR_MIN = 0.7
FACTOR_MAX = 2.5


def estimate_text(text: str) -> int:
    """Estimated tokens of ``text`` (uncalibrated, slightly conservative)."""
    n = len(text)
    if n == 0:
        return 0
    non_ascii = 0 if text.isascii() else n - len(text.encode("ascii", "ignore"))
    digits = sum(map(text.count, string.digits))
    punct = sum(map(text.count, string.punctuation))
    spaces = sum(map(text.count, " \n\t"))
    letters = max(0, n - non_ascii - digits - punct - spaces)
    raw = (letters * _PER_LETTER + digits * _PER_DIGIT + punct * _PER_PUNCT
           + spaces * _PER_SPACE + non_ascii * _PER_NON_ASCII)
    return math.ceil(raw * _SAFETY)


def chars_for_tokens(text: str, tokens: int) -> int:
    """How many characters of ``text`` hold about ``tokens`` tokens."""
    total = estimate_text(text)
    if total <= tokens:
        return len(text)
    return max(0, int(len(text) * tokens / total))


def block_tokens(block: object) -> int:
    if isinstance(block, TextBlock):
        return BLOCK_OVERHEAD + estimate_text(block.text)
    if isinstance(block, ThinkingBlock):
        # The signature is sent back but is not billed as input on most providers;
        # count a little of it to stay conservative.
        sig = (len(block.signature or "") + len(block.redacted_data or "")) // 16
        return BLOCK_OVERHEAD + estimate_text(block.text) + sig
    if isinstance(block, ToolUseBlock):
        return TOOL_OVERHEAD + estimate_text(block.name) + estimate_text(block.arguments)
    if isinstance(block, ToolResultBlock):
        return TOOL_OVERHEAD + estimate_text(block.content)
    if isinstance(block, ImageBlock):
        return IMAGE_TOKENS
    return BLOCK_OVERHEAD


def _fingerprint(msg: Message) -> tuple[int, int]:
    """Cheap change detector: block count and total string length (len is O(1))."""
    size = 0
    for b in msg.blocks:
        if isinstance(b, TextBlock | ThinkingBlock):
            size += len(b.text)
        elif isinstance(b, ToolUseBlock):
            size += len(b.arguments) + len(b.name)
        elif isinstance(b, ToolResultBlock):
            size += len(b.content)
    return len(msg.blocks), size


class TokenCounter:
    """Per-message cached estimates plus a calibration factor.

    The cache is keyed by the message object's identity (messages are appended
    and rarely change; a cheap fingerprint catches in-place edits) and entries
    vanish when their message is garbage-collected.
    """

    def __init__(self) -> None:
        self.factor = 1.0
        self._cache: dict[int, tuple[weakref.ref[Message], tuple[int, int], int]] = {}

    # ------------------------------------------------------------ counting
    def message(self, msg: Message) -> int:
        """Raw estimated tokens of one message (cached)."""
        key = id(msg)
        fp = _fingerprint(msg)
        hit = self._cache.get(key)
        if hit is not None and hit[0]() is msg and hit[1] == fp:
            return hit[2]
        tokens = MESSAGE_OVERHEAD + sum(block_tokens(b) for b in msg.blocks)
        ref = weakref.ref(msg, self._forget(key))
        self._cache[key] = (ref, fp, tokens)
        return tokens

    def _forget(self, key: int) -> Callable[[weakref.ref[Message]], None]:
        cache = self._cache

        def drop(ref: weakref.ref[Message]) -> None:
            entry = cache.get(key)
            if entry is not None and entry[0] is ref:
                del cache[key]

        return drop

    def messages(self, msgs: Iterable[Message]) -> int:
        """Raw estimated tokens of a list of messages."""
        return sum(self.message(m) for m in msgs)

    def text(self, text: str) -> int:
        """Raw estimated tokens of a string (system prompt, tool schemas)."""
        return estimate_text(text)

    def scaled(self, raw: int) -> int:
        """A raw estimate adjusted by the calibration factor."""
        return math.ceil(raw * self.factor)

    # ------------------------------------------------------------ calibration
    def calibrate(self, raw_estimate: int, reported: int) -> None:
        """Learn from one request: our raw estimate vs the provider's input tokens.

        Small requests are too noisy to learn from; the factor moves halfway to
        the observed ratio each time and stays within [FACTOR_MIN, FACTOR_MAX].
        """
        if raw_estimate < 200 or reported <= 0:
            return
        observed = reported / raw_estimate
        self.factor = _clamp((self.factor + observed) / 2)

    def penalize(self, by: float = 1.25) -> None:
        """The provider refused a request we thought fit: estimate higher from now on."""
        self.factor = _clamp(self.factor * by)


def _clamp(value: float) -> float:
    return min(FACTOR_MAX, max(FACTOR_MIN, value))
