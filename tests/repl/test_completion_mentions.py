"""Path completion anywhere in a line, and `@path` attaching a file's text."""

from __future__ import annotations

from pathlib import Path

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from swebash_py.repl.commands import COMMANDS
from swebash_py.repl.completion import ReplCompleter
from swebash_py.repl.mentions import expand


def completions(text: str, cwd: Path) -> list[str]:
    completer = ReplCompleter(COMMANDS, lambda: cwd)
    doc = Document(text, len(text))
    event = CompleteEvent(completion_requested=True)
    return [c.text for c in completer.get_completions(doc, event)]


def test_paths_complete_in_the_middle_of_a_question(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("x")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x")
    assert completions("please review REA", tmp_path) == ["DME.md"]
    assert completions("look at @src/a", tmp_path) == ["pp.py"]
    assert completions("!cat src/", tmp_path) == ["app.py"]
    assert "/help" in completions("/he", tmp_path)


def test_at_path_attaches_the_text_and_leaves_other_at_signs(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("buy milk\ncall bob\n")
    (tmp_path / "pic.png").write_bytes(b"\x89PNG\r\n")
    found = expand("summarise @notes.txt, mail me@example.com about @pic.png and @nope",
                   tmp_path)
    assert found.attached == [tmp_path / "notes.txt"]  # trailing comma is not the name
    assert found.images == [tmp_path / "pic.png"]  # the hook for image support
    assert "Contents of `notes.txt,`" not in found.question
    assert "buy milk\ncall bob" in found.question
    assert "Contents of `notes.txt`:" in found.question
    assert found.notes == ["attached notes.txt (2 lines)"]


def test_the_twin_without_a_file_nothing_is_attached(tmp_path: Path) -> None:
    question = "what is @notes.txt"
    assert expand(question, tmp_path).question == question
