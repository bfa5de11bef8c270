"""Which images a request carries: the one owner of "does this model take images".

Every image reaches the history the same way, whatever its source (``-i``, an
``@shot.png`` mention, ``read_file`` of an image, an MCP tool's image): as an
``ImageBlock``. The history keeps them all; each request is built from a copy in
which, for a model that does not take images, every image is a one-line note
instead (so a later ``/model`` to a vision model still sends them).

Who takes images:
- the ``supports_vision`` setting, when set, says so for every model;
- else the model table (litellm's ``supports_vision``): a model it knows
  without the flag is text-only and gets the note, never the bytes (a text-only
  API answers bytes with a 400 that would end the turn);
- a model the table does not know (a local server's vision model, a new name) is
  sent the images: refusing it every image would make those models useless. When
  such a provider answers "no images" (``ImagesRefused``), the request is made
  once more with the notes, and that model gets notes for the rest of the session:
  one wasted request, never a failed turn.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from swebash_py.engine.messages import Block, ImageBlock, Message, TextBlock, ToolResultBlock


def accepts_images(model: str, setting: bool | None = None) -> bool | None:
    """True / False when the setting or the table says, None when nobody knows."""
    if setting is not None:
        return setting
    from swebash_py.engine.modelinfo import supports_vision

    return supports_vision(model)


TEXT_ONLY = "this model does not take images"
REFUSED = "the provider refused images"
SUMMARY = "a summary is written from the text"  # compaction's request (agent.fitting)


def note(count: int, why: str) -> str:
    """What the model reads instead of ``count`` images."""
    return f"[{count} image(s) not shown: {why}]"


def as_notes(messages: list[Message], why: str) -> list[Message]:
    """``messages`` with every image a note saying ``why`` (copies of the messages
    that had images; the others as they are)."""
    return [_without_images(m, why) if m.images() else m for m in messages]


class ImagePolicy:
    """The images a request for a model carries, per model, for one conversation
    (it remembers the models whose provider refused them)."""

    def __init__(self, setting: bool | None = None) -> None:
        self.setting = setting  # the ``supports_vision`` setting (None: the table)
        self._refused: set[str] = set()
        self._told: set[str] = set()

    def sends_images(self, model: str) -> bool:
        if model in self._refused:
            return False
        return accepts_images(model, self.setting) is not False

    def for_request(self, messages: list[Message], model: str,
                    notify: Callable[[str], None]) -> list[Message]:
        """``messages`` as the request for ``model`` carries them (the history is
        left as it is); the user is told once per model when images become notes."""
        if self.sends_images(model) or not any(m.images() for m in messages):
            return messages
        refused = model in self._refused
        if model not in self._told:
            self._told.add(model)
            notify(self._notice(model, refused))
        return as_notes(messages, REFUSED if refused else TEXT_ONLY)

    def refused(self, model: str, messages: list[Message]) -> bool:
        """The provider refused an image: whether to ask again without them (once,
        and only when this request had images to leave out)."""
        if model in self._refused or not any(m.images() for m in messages):
            return False
        if not self.sends_images(model):
            return False
        self._refused.add(model)
        return True

    def _notice(self, model: str, refused: bool) -> str:
        if refused:
            return (f"{model} refused the image(s) (a model without vision?); they are sent "
                    "as a note from now on")
        return (f"{model} does not take images (the model table says so); they are sent as "
                "a note (supports_vision = true in the config sends them anyway)")


def _without_images(message: Message, why: str) -> Message:
    """A copy of ``message`` with its images left out: a tool's images become a note
    in that tool's result, the user's a note of their own."""
    by_call: dict[str, int] = {}
    for image in message.images():
        if image.call_id is not None:
            by_call[image.call_id] = by_call.get(image.call_id, 0) + 1
    results = {b.call_id for b in message.tool_results()}
    blocks: list[Block] = []
    loose = 0
    for block in message.blocks:
        if isinstance(block, ImageBlock):
            loose += block.call_id not in results
            continue
        if isinstance(block, ToolResultBlock) and block.call_id in by_call:
            block = msgspec.structs.replace(block, content=f"{block.content}\n"
                                            f"{note(by_call[block.call_id], why)}")
        blocks.append(block)
    if loose:
        blocks.append(TextBlock(note(loose, why)))
    return Message(message.role, blocks)

