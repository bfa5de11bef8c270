"""Path completion anywhere in a line, and `@path` attaching a file's text."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from swebash_py.approvals.approver import Answer, PolicyApprover, parse_answer
from swebash_py.repl.commands import ARGUMENTS, COMMANDS
from swebash_py.repl.completion import ReplCompleter
from swebash_py.repl.mentions import expand, expand_asking, find


def completions(text: str, cwd: Path) -> list[str]:
    completer = ReplCompleter(COMMANDS, lambda: cwd, ARGUMENTS)
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


def test_some_commands_complete_their_argument(tmp_path: Path) -> None:
    assert completions("/trust ", tmp_path) == ["add", "revoke"]
    assert completions("/trust r", tmp_path) == ["revoke"]  # the word, from its start
    assert completions("/approval a", tmp_path) == ["ask", "auto-edit"]
    assert completions("/sandbox r", tmp_path) == ["read-only"]
    assert completions("/trust add x", tmp_path) == []  # one argument


def test_model_completes_from_the_model_table_not_file_names(tmp_path: Path) -> None:
    (tmp_path / "anthropic-notes.txt").write_text("x")  # a file Tab used to offer
    offered = completions("/model anthropic/claude-sonnet-4", tmp_path)
    assert "anthropic/claude-sonnet-4-5" in offered
    assert all(name.startswith("anthropic/claude-sonnet-4") for name in offered)
    assert "gpt-4o" in {n.split("/", 1)[-1] for n in completions("/model openai/gpt-4o", tmp_path)}
    assert completions("/model anthropic-n", tmp_path) == []  # never a path
    assert completions("/model nosuch/", tmp_path) == []


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


FILES = ("notes.txt", "my notes.txt", "notes.txt.", "src/a.py", "shot.png", "it's.txt")


@pytest.mark.parametrize(("question", "names"), [
    ("summarise @notes.txt", ["notes.txt"]),
    ("summarise @notes.txt, then stop", ["notes.txt"]),  # trailing punctuation
    ("see (@src/a.py).", ["src/a.py"]),  # opened by a bracket, closed by two marks
    ("read @src/a.py: it fails", ["src/a.py"]),
    ("end with @notes.txt.", ["notes.txt."]),  # that file exists: the dot is its own
    ("what is @shot.png?", ["shot.png"]),
    ('compare @"my notes.txt" and @notes.txt', ["my notes.txt", "notes.txt"]),
    ("compare @'my notes.txt'", ["my notes.txt"]),
    (r"compare @my\ notes.txt please", ["my notes.txt"]),
    (r"this: @it\'s.txt", ["it's.txt"]),
    ("mail me@notes.txt", []),  # not after a space: an address
    (r"a literal \@notes.txt", []),
    ("@@notes.txt", []),
    ("@nope.txt and @src", []),  # no such file; a directory
    ('@"my notes.txt', []),  # an unclosed quote
    (r"@notes.txt\,", []),  # an escaped mark is part of the name
    ("@ notes.txt", []),
])
def test_the_mention_tokenizer(tmp_path: Path, question: str, names: list[str]) -> None:
    for name in FILES:
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("x")
    assert [m.name for m in find(question, tmp_path)] == names
    for mention in find(question, tmp_path):
        assert mention.path == tmp_path / mention.name


def test_an_image_is_replaced_by_its_name_and_text_files_stay(tmp_path: Path) -> None:
    (tmp_path / "my shot.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (tmp_path / "notes.txt").write_text("hi\n")
    found = expand('is @"my shot.png" like (@notes.txt)? and @my\\ shot.png!', tmp_path)
    assert found.images == [tmp_path / "my shot.png"]  # once
    assert found.question.startswith("is my shot.png like (@notes.txt)? and my shot.png!\n\n")
    assert found.attached == [tmp_path / "notes.txt"]


def test_a_mention_is_relative_to_the_given_directory(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "notes.txt").write_text("x")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert [m.path for m in find("@notes.txt @~/sub/notes.txt", tmp_path / "sub")] == [
        tmp_path / "sub" / "notes.txt", tmp_path / "sub" / "notes.txt"]


# -- the one reader: `@path` gets read_file's checks, and read_file's question ----


class Terminal:
    """The REPL's asker seam, scripted: records each question, answers ``reply``."""

    def __init__(self, reply: str = "n") -> None:
        self.reply = reply
        self.asked: list[tuple[str, str, str]] = []

    async def __call__(self, pending: Any, verdict: Any, rule: Any) -> Answer:
        self.asked.append((pending.tool.name, pending.preview.summary, verdict.reason))
        return parse_answer(self.reply)


def _attach(question: str, ws: Path, mode: str, terminal: Terminal | None) -> Any:
    approver = PolicyApprover(mode, None, ws, terminal)
    return asyncio.run(expand_asking(question, ws, ws, approver))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    (path / "notes.txt").write_text("buy milk\n")
    (path / ".env").write_text("TOKEN=env-marker\n")
    return path


@pytest.mark.parametrize("mode", ["ask", "yolo"])
def test_at_a_secret_asks_in_every_mode_and_no_leaves_it_out(ws: Path, mode: str) -> None:
    terminal = Terminal("n")
    found = _attach("read @.env and @notes.txt", ws, mode, terminal)
    assert [(name, reason) for name, _s, reason in terminal.asked] == [
        ("read_file", "touches a sensitive file")]
    assert "env-marker" not in found.question and "buy milk" in found.question
    assert found.notes == ["not attached: .env: the user said no",
                           "attached notes.txt (1 line)"]


def test_twin_yes_to_the_question_attaches_the_secret(ws: Path) -> None:
    found = _attach("read @.env", ws, "yolo", Terminal("y"))
    assert "env-marker" in found.question and found.attached == [ws / ".env"]


def test_a_secret_with_no_one_to_ask_is_not_attached(ws: Path) -> None:
    found = _attach("read @.env", ws, "yolo", None)
    assert "env-marker" not in found.question
    assert found.notes[0].startswith("not attached: .env: ") and "terminal" in found.notes[0]


def test_outside_the_workspace_asks_like_read_file_and_yolo_reads_it(ws: Path) -> None:
    (ws.parent / "other.txt").write_text("other-marker")
    terminal = Terminal("n")
    found = _attach("see @../other.txt", ws, "ask", terminal)
    assert len(terminal.asked) == 1 and "other-marker" not in found.question
    quiet = Terminal("n")  # yolo: read_file outside the workspace asks nothing
    assert "other-marker" in _attach("see @../other.txt", ws, "yolo", quiet).question
    assert quiet.asked == []


def test_our_own_config_is_denied_without_a_question(ws: Path, isolated: Path) -> None:
    (isolated / "config.toml").write_text("# config-marker\n")
    terminal = Terminal("y")
    found = _attach(f"see @{isolated / 'config.toml'}", ws, "yolo", terminal)
    assert terminal.asked == [] and "config-marker" not in found.question
    assert "off limits" in found.notes[0]


def test_without_an_approver_a_problem_mention_is_not_attached(ws: Path) -> None:
    found = expand("read @.env", ws, ws)  # fails closed: nobody said yes
    assert "env-marker" not in found.question
    assert found.notes == ["not attached: .env: a secrets path"]


def test_a_mention_is_capped_before_reading(ws: Path) -> None:
    with (ws / "huge.log").open("wb") as f:
        f.write(b"line\n" * 10)
        f.truncate(1 << 40)  # 1 TB, sparse: NUL bytes after the lines
    found = expand("what is @huge.log", ws, ws)
    assert found.attached == [] and found.notes == ["not attached: huge.log is a binary file"]


def test_a_link_swapped_while_the_question_is_open_is_not_attached(ws: Path) -> None:
    """The yes was for the file shown; the link now leads to a key: judged afresh."""
    (ws.parent / "other.txt").write_text("other-marker")
    (ws.parent / "id_rsa").write_text("key-marker")
    (ws / "link.txt").symlink_to(ws.parent / "other.txt")

    class Swapping(Terminal):
        async def __call__(self, pending: Any, verdict: Any, rule: Any) -> Answer:
            (ws / "link.txt").unlink()
            (ws / "link.txt").symlink_to(ws.parent / "id_rsa")
            return await super().__call__(pending, verdict, rule)

    found = _attach("see @link.txt", ws, "ask", Swapping("y"))
    assert "key-marker" not in found.question and "other-marker" not in found.question
    assert found.notes == [f"not attached: link.txt: it leads to {ws.parent / 'id_rsa'}, "
                           "a secrets path"]
    twin = _attach("see @link.txt", ws, "ask", Terminal("y"))  # no swap: the key asks, yes
    assert "key-marker" in twin.question
