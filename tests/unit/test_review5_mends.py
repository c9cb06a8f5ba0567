"""What five blind readers of 10% hand-overs found misleading (session 42): aider's report of one
failed SEARCH/REPLACE block hid the blocks it applied, and a file the session read whole and then
wrote whole was told by every definition it already had."""

from __future__ import annotations

from pathlib import Path

from compaction.events import EventKind, extract_events
from compaction.history.sections import Section
from compaction.history.sources import FactContext, gather
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds
from compaction.transcripts import aider


def _transcript(msgs: list[Message]) -> Transcript:
    return Transcript("t.json", "test", msgs, group_rounds(msgs))


def _call(msgs: list[Message], call: ToolCall, output: str, *, code: int | None = 0) -> None:
    msgs.append(Message(len(msgs), Role.ASSISTANT, "", tool_calls=[call]))
    msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult(output, call.id, call.name, exit_code=code)]))


def _shell(msgs: list[Message], cid: str, command: str, output: str) -> None:
    _call(msgs, ToolCall("bash", {"command": command}, cid, ToolKind.SHELL, command), output)


def _facts(t: Transcript) -> list:
    ctx = FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"), cwd=None,
                      n_rounds=len(t.rounds), target_tokens=4000)
    return gather(ctx)


AIDER_PARTIAL = """# aider chat started at 2025-07-22 17:40:00

#### rename PoIValidator to SignalScorer in the invoker and the test

cli_hooks/invoker.ts
```typescript
<<<<<<< SEARCH
import { PoIValidator } from './PoIValidator';
=======
import { SignalScorer } from '../validators/SignalScorer';
>>>>>>> REPLACE
```

tests/poi.test.ts
```typescript
<<<<<<< SEARCH
import { PoIValidator } from '../validators/PoIValidator';
=======
import { SignalScorer } from '../validators/SignalScorer';
>>>>>>> REPLACE
```

> Tokens: 11k sent, 338 received.
> The LLM did not conform to the edit format.
> # 1 SEARCH/REPLACE block failed to match!

## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in cli_hooks/invoker.ts
<<<<<<< SEARCH
import { PoIValidator } from './PoIValidator';
=======
import { SignalScorer } from '../validators/SignalScorer';
>>>>>>> REPLACE

The SEARCH section must exactly match an existing block of lines including all white space, comments, indentation, docstrings, etc

# The other 1 SEARCH/REPLACE block were applied successfully.
Don't re-send them.
Just reply with fixed versions of the block above that failed to match.

> Commit 7f1724d refactor: update references from PoIValidator to SignalScorer in tests
"""


def test_aiders_report_of_one_failed_block_leaves_the_blocks_it_applied_as_edits(tmp_path: Path) -> None:
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(AIDER_PARTIAL, encoding="utf-8")
    edits = [e for e in extract_events(aider.load(str(path))) if e.kind is EventKind.EDIT]
    assert {(e.path, e.failed) for e in edits} == {("cli_hooks/invoker.ts", True), ("tests/poi.test.ts", False)}


OLD_MODULE = "\n".join([
    "from functools import wraps", "", "",
    "def _wrap_in_pandas_container(data, *, columns, index=None):",
    "    pd = check_pandas_support('Setting output container to \"pandas\"')",
    "    return pd.DataFrame(data, index=index, columns=columns)", "", "",
    "def _get_output_config(method, estimator=None):",
    "    est_config = getattr(estimator, '_sklearn_output_config', {})",
    "    return {'dense': est_config.get(method, 'default')}", "", "",
    "def _safe_set_output(estimator, *, transform=None):",
    "    return estimator.set_output(transform=transform)",
])


def test_a_file_read_whole_then_written_whole_is_told_by_what_the_rewrite_changed() -> None:
    new_module = OLD_MODULE.replace("index=None):", "index=None, dtypes=None):").replace(
        "    return pd.DataFrame(data, index=index, columns=columns)",
        "    df = pd.DataFrame(data, index=index, columns=columns)\n    return df.astype(dtypes) if dtypes else df")
    msgs = [Message(0, Role.USER, "preserve dtypes in the pandas output")]
    _shell(msgs, "r", "cat sklearn/utils/_set_output.py", OLD_MODULE)
    _shell(msgs, "w", f"cat <<'EOF' > sklearn/utils/_set_output.py\n{new_module}\nEOF", "")
    record = next(f for f in _facts(_transcript(msgs)) if f.section is Section.CHANGES)
    text = record.full_text or record.text
    assert "by writing the whole file" in record.text, record.text
    assert "astype" in text and "dtypes" in text, text
    assert "adds" not in record.text and "+ df.astype" in record.text, record.text  # untouched: not told as added
