"""/undo, /rewind and /ps in the REPL (the flows live in checkpoints/ and tools/)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from swebash_py.checkpoints.flow import Ask, from_turn, is_yes, last_turn, take_back
from swebash_py.fs.workspace import shown_path

if TYPE_CHECKING:
    from swebash_py.repl.session import Repl


UNDO_NOTE = "(The user undid the file changes"


def _show(repl: Repl, text: str) -> None:
    from swebash_py.render.diff import looks_like_diff, render_diff
    from swebash_py.text.sanitize import neutralize

    if looks_like_diff(text):
        repl.console.print(render_diff(text, max_lines=80))
    else:
        repl.console.print(Text(neutralize(text)))


def _asker(repl: Repl) -> Ask:
    async def ask(question: str) -> bool:
        try:
            return is_yes(await repl.read_line(question))
        except (KeyboardInterrupt, EOFError):
            return False
    return ask


async def undo(repl: Repl) -> None:
    # a REPL that has not asked anything yet undoes the workspace's latest session
    session_id = repl.recorder.session_id or repl.store.latest_session(
        str(repl.settings.workspace))
    back = last_turn(repl.store, session_id) if session_id else None
    if back is None:
        repl.say("nothing to undo: no file changes recorded in this session", "dim")
        return
    repl.say(f"Undo the file changes of {back.title}:", "bold")
    outcome = await take_back(repl.store, back, repl.settings.workspace,
                              lambda t: _show(repl, t), _asker(repl))
    if outcome is None:
        repl.say("nothing undone", "yellow")
    elif outcome.restored:
        ws = repl.settings.workspace.resolve()
        names = ", ".join(shown_path(p, ws) for p in outcome.restored[:20])
        repl.pending_context.append(f"{UNDO_NOTE} of turn {back.first_seq}; these files are "
                                    f"back as they were before it: {names}.)")


async def rewind(repl: Repl, arg: str) -> None:
    session_id = repl.recorder.session_id
    turns = repl.store.live_turns(session_id) if session_id else []
    if not turns:
        repl.say("nothing to rewind: this session has no turns yet", "dim")
        return
    seqs = [t.seq for t in turns]
    try:
        seq = int(arg) if arg else seqs[-1]
    except ValueError:
        seq = -1
    if seq not in seqs:
        repl.say(f"no turn {arg} here; turns: " + ", ".join(map(str, seqs)), "red")
        return
    later = [t for t in turns if t.seq >= seq]
    repl.say(f"Rewind to before turn {seq}: {len(later)} turn{'s' if len(later) != 1 else ''} "
             "leave the conversation, and their file changes are undone:", "bold")
    for t in later:
        repl.say(f"  {t.seq}: {' '.join(t.user_text.split())[:70]}", "dim")
    back = from_turn(repl.store, session_id, seq)
    outcome = await take_back(repl.store, back, repl.settings.workspace,
                              lambda t: _show(repl, t), _asker(repl),
                              question=f"Rewind to before turn {seq}?", always_ask=True)
    if outcome is None:
        repl.say("nothing rewound", "yellow")
        return
    repl.store.mark_rewound(session_id, seq)
    repl.pending_context[:] = [c for c in repl.pending_context if not c.startswith(UNDO_NOTE)]
    repl.resume(session_id)
    repl.say(f"rewound: the conversation is back to before turn {seq} "
             f"({len(repl.agent.history)} messages)", "dim")


async def ps(repl: Repl, arg: str) -> None:
    jobs = repl.runtime.jobs
    if jobs is None:
        repl.say("no background commands", "dim")
        return
    word, _, job_id = arg.partition(" ")
    if word == "stop" and job_id.strip():
        job = jobs.get(job_id)
        if job is None:
            repl.say(f"no background command {job_id.strip()}", "red")
            return
        await jobs.stop(job)
        repl.say(f"{job.id}: {job.status()}")
        return
    lines = jobs.table()
    repl.say("\n".join(lines) if lines else "no background commands", "" if lines else "dim")
