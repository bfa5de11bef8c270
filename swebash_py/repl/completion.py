"""Completion of slash commands and of file paths."""

from __future__ import annotations

from collections.abc import Iterable

from prompt_toolkit.completion import CompleteEvent, Completer, Completion, PathCompleter
from prompt_toolkit.document import Document


class ReplCompleter(Completer):
    """`/` completes commands (first word); anything else completes paths."""

    def __init__(self, commands: dict[str, str]) -> None:
        self._commands = commands
        self._paths = PathCompleter(expanduser=True)

    def get_completions(self, document: Document,
                        complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        if text.startswith("/") and " " not in text:
            for name, help_text in self._commands.items():
                if name.startswith(text):
                    yield Completion(name, -len(text), display_meta=help_text)
            return
        word = document.get_word_before_cursor(WORD=True)
        if not word or not any(ch in word for ch in "/.~"):
            return
        sub = Document(word, len(word))
        yield from self._paths.get_completions(sub, complete_event)
