"""A commit is told once: the command that only staged and committed it gives its outcome to the commit's
line instead of a line of its own repeating the message (`Commit e2aec0d “Initial commit…”` beside
`git add … && git commit -m "Initial commit…" → 2 files changed…`)."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.sources.completed import completed_facts
from compaction.history.sources.registry import FactContext
from compaction.history.steering import role_preset
from compaction.model import Message, Role
from tests.unit.synthetic import call_pair, transcript


def _completed(*commands: tuple[str, str]) -> list[str]:
    msgs = [Message(0, Role.USER, "commit the work")]
    for i, (command, out) in enumerate(commands):
        msgs += call_pair("bash", {"command": command}, f"c{i}", out)
        msgs.append(Message(0, Role.USER, "next"))
    t = transcript(msgs)
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds))
    return [f.text for f in completed_facts(ctx)]


COMMITTED = "[main (root-commit) e2aec0d] Initial commit: pixel art\n 2 files changed, 393 insertions(+)\n"


def test_a_stage_and_commit_command_is_told_by_its_commit_line() -> None:
    lines = _completed(('git add index.html LICENSE && git commit -m "Initial commit: pixel art"', COMMITTED))
    assert lines == ["Commit e2aec0d “Initial commit: pixel art” → 2 files changed, 393 insertions(+) (r1)"]


def test_a_push_after_the_commit_is_said_after_its_outcome() -> None:
    lines = _completed(('git add a.py && git commit -m "Initial commit: pixel art" && git push origin main',
                        COMMITTED + "To github.com:me/app.git\n"))
    assert lines == ["Commit e2aec0d “Initial commit: pixel art” → 2 files changed, 393 insertions(+), "
                     "then `git push origin main` (r1)"]


def test_a_command_doing_more_than_committing_keeps_its_line() -> None:
    lines = _completed(('npm run build && git commit -am "Initial commit: pixel art"', COMMITTED))
    assert sorted(lines) == ["Commit e2aec0d “Initial commit: pixel art” (r1)",
                             '`npm run build && git commit -am "Initial commit: pixel art"` → 2 files changed, '
                             '393 insertions(+) (r1)']
