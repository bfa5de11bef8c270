"""Completion of slash commands, their arguments (``/model `` + Tab: the model
table's names) and of file paths (anywhere in the line)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent, Completer, Completion, PathCompleter
from prompt_toolkit.document import Document


class ReplCompleter(Completer):
    """`/` completes commands (first word) and, for some, their argument
    (``arguments``); any other word completes a path, relative to ``cwd()``
    (``@path`` too: the ``@`` stays)."""

    def __init__(self, commands: dict[str, str],
                 cwd: Callable[[], Path] = Path.cwd,
                 arguments: Mapping[str, Sequence[str] | Callable[[str], Iterable[str]]]
                 | None = None) -> None:
        self._commands = commands
        self._arguments = arguments or {}
        self._paths = PathCompleter(expanduser=True, get_paths=lambda: [str(cwd())])

    def get_completions(self, document: Document,
                        complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        if text.startswith("/") and " " not in text:
            for name, help_text in self._commands.items():
                if name.startswith(text):
                    yield Completion(name, -len(text), display_meta=help_text)
            return
        name, _, arg = text.partition(" ")
        if name in self._arguments and " " not in arg:
            offered = self._arguments[name]  # words, or a function of what is typed
            words = offered(arg) if callable(offered) else offered
            for word in words:
                if word.startswith(arg):
                    yield Completion(word, -len(arg))
            return
        word = document.get_word_before_cursor(WORD=True)
        if text.startswith("!") and word == text:
            word = word[1:]  # `!./scr<Tab>`
        word = word.removeprefix("@")
        sub = Document(word, len(word))
        yield from self._paths.get_completions(sub, complete_event)
