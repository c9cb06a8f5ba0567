"""What the user and the harness did to the work (issue 14 items 1, 3): an edit undone by `/undo` is
named with what it did; a refused edit says which searched line the file lacked and that the user's
own edits were committed under it; a model switch after provider errors is one line."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.sources import FactContext
from compaction.history.sources.changes import records
from compaction.history.sources.edit_failures import edit_failure_facts
from compaction.history.sources.models import model_facts
from compaction.history.steering import role_preset
from compaction.model import Role
from compaction.transcripts import load_transcript

HISTORY = """# aider chat started at 2025-01-01 10:00:00

> Model: bad-model with diff edit format

#### what is this?
> litellm.BadRequestError: LLM Provider NOT provided. Pass in the LLM provider you are trying to call.

# aider chat started at 2025-01-01 10:05:00

> Main model: good/model-2 with diff edit format

#### add total to a.ts

I will add it.

a.ts
```ts
<<<<<<< SEARCH
/* @pure */
export function sum(a: number) {
=======
export function total(a: number) {
>>>>>>> REPLACE
```

> Committing a.ts before applying edits.
> Commit 1111111 refactor: Remove pure annotations
> # 1 SEARCH/REPLACE block failed to match!

## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in a.ts
<<<<<<< SEARCH
/* @pure */
export function sum(a: number) {
=======
export function total(a: number) {
>>>>>>> REPLACE

Did you mean to match some of these actual lines from a.ts?

```
export function sum(a: number) {
```

The SEARCH section must exactly match an existing block of lines including all white space, comments, indentation, docstrings, etc

You are right, the annotation is gone.

a.ts
```ts
<<<<<<< SEARCH
export function sum(a: number) {
=======
export function total(a: number) {
  const buffered: number[] = [];
>>>>>>> REPLACE
```

> Applied edit to a.ts
> Commit 2222222 refactor: Buffer items before summing

#### /undo
> Removed: 2222222 refactor: Buffer items before summing
> Now at:  1111111 refactor: Remove pure annotations
"""


def _ctx(tmp_path):
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(HISTORY)
    t = load_transcript(str(path))
    return t, FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset(None), cwd=t.cwd,
                          n_rounds=len(t.rounds), target_tokens=2000)


def test_a_reply_after_a_failure_report_is_the_models_message(tmp_path):
    t, _ = _ctx(tmp_path)
    [report] = [m for m in t.messages if m.meta.get("reflection")]
    after = t.messages[report.index + 1]
    assert after.role is Role.ASSISTANT and after.text.startswith("You are right")
    assert "You are right" not in report.tool_results[0].content
    assert [c.path for c in after.tool_calls] == ["a.ts"]


def test_a_refused_edit_says_what_the_file_lacked_and_what_changed_under_it(tmp_path):
    _, ctx = _ctx(tmp_path)
    [fact] = edit_failure_facts(ctx)
    assert "searched `/* @pure */`, not in the file" in fact.text
    assert "(the user's edits “Remove pure annotations” auto-committed)" in fact.text
    assert "applied" in fact.text


def test_an_undone_edit_is_named_with_what_it_did(tmp_path):
    _, ctx = _ctx(tmp_path)
    record = records(ctx)["a.ts"]
    assert "not kept" in record.text and "undone by /undo of “Buffer items before summing”" in record.text


def test_a_model_switch_after_provider_errors_is_one_line(tmp_path):
    _, ctx = _ctx(tmp_path)
    [fact] = model_facts(ctx)
    assert "`bad-model` failed: LLM Provider NOT provided." in fact.text
    assert "finally `good/model-2`" in fact.text


def _edit(rnd: int, path: str, old: str, new: str):
    from compaction.edits import Hunk
    from compaction.events import Event, EventKind
    return Event(EventKind.EDIT, rnd, rnd, path=path, hunks=(Hunk((old,), (new,), None, source=(old, new)),))


def _logs(*events):
    from compaction.history.sources.filelog import file_logs
    return file_logs(list(events), "/repo")


def _git(rnd: int, command: str):
    from compaction.events import Event, EventKind
    return Event(EventKind.COMMAND, rnd, rnd, command=command)


def _commit(rnd: int, sha: str):
    from compaction.events import Event, EventKind
    return Event(EventKind.COMMIT, rnd, rnd, text="work", commit_hash=sha)


def test_a_hard_reset_keeps_what_was_committed():
    log = _logs(_edit(1, "a.py", "x = 1", "x = 2"), _commit(2, "aaaaaaa"), _edit(3, "a.py", "y = 1", "y = 2"),
                _git(4, "git reset --hard"))["a.py"]
    assert [e.event.round for e in log.edits if e.undone is None] == [1]
    assert "git reset --hard" in (log.edits[1].undone or "")


def test_git_revert_and_a_reset_to_an_earlier_commit_throw_that_commits_edits_away():
    events = [_edit(1, "a.py", "x = 1", "x = 2"), _commit(2, "aaaaaaa"), _edit(3, "a.py", "y = 1", "y = 2"),
              _commit(4, "bbbbbbb")]
    reverted = _logs(*events, _git(5, "git revert --no-edit aaaaaaa"))["a.py"]
    assert [e.event.round for e in reverted.edits if e.undone is None] == [3]
    assert "git revert --no-edit aaaaaaa" in (reverted.edits[0].undone or "")
    reset = _logs(*events, _git(5, "git reset --hard HEAD~1"))["a.py"]
    assert [e.event.round for e in reset.edits if e.undone is None] == [1]


RETRY = """# aider chat started at 2025-01-01 10:00:00

#### use the scorer in b.ts

b.ts
```ts
<<<<<<< SEARCH
import { Old } from './Old';
=======
import { Scorer } from './Scorer';
>>>>>>> REPLACE
```

> # 1 SEARCH/REPLACE block failed to match!

## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in b.ts
<<<<<<< SEARCH
import { Old } from './Old';
=======
import { Scorer } from './Scorer';
>>>>>>> REPLACE

The SEARCH section must exactly match an existing block of lines including all white space, comments, indentation, docstrings, etc

b.ts
```ts
<<<<<<< SEARCH
// Invokes Old from core
=======
import { Scorer } from './Scorer';
>>>>>>> REPLACE
```

> Applied edit to b.ts
"""


def test_a_retry_that_replaced_another_line_says_which_and_by_what(tmp_path):
    """The retry did not search the refused text again: it replaced a comment line by the import, and
    the line says so (a reader would otherwise take it for a corrected copy of the same search)."""
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(RETRY)
    t = load_transcript(str(path))
    ctx = FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset(None), cwd=t.cwd,
                      n_rounds=len(t.rounds), target_tokens=2000)
    [fact] = edit_failure_facts(ctx)
    assert "searched `import { Old } from './Old';`" in fact.text
    assert "replaced the comment line `// Invokes Old from core` with `import { Scorer } from './Scorer';`" in fact.text
