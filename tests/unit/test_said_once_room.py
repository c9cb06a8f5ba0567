"""One failure, one place (issue 14 items 3 and 5): the hand-over document's Error Memory block says
what failed beside each record's protocol fields, so no Problems line repeats it; commits run by run;
the artifact the hooks, MCP and restore read keeps its own shape."""

from __future__ import annotations

from compaction.errors import parse_block
from compaction.events import Event, EventKind
from compaction.history.engine import compact
from compaction.history.facts import Fact
from compaction.history.sections import Section
from compaction.history.sources.completed import _commit_runs, _same_round
from compaction.model import Message, Role
from tests.unit.synthetic import call_pair as _call
from tests.unit.synthetic import transcript as _transcript

FILLER = "The loader reads the configuration, validates each section and caches the result for later calls. " * 30


def _session():
    msgs = [Message(0, Role.USER, "rename load to read_config in app/io.py")]
    for i in range(4):
        msgs += [Message(0, Role.ASSISTANT, f"Trying the edit again ({i}). {FILLER}"),
                 *_call("Edit", {"file_path": "/repo/app/io.py", "old_string": "def load(path):",
                                 "new_string": "def read_config(path):"}, f"c{i}",
                        "<tool_use_error>String to replace not found in file.</tool_use_error>", is_error=True),
                 Message(0, Role.USER, f"go on {i}")]
    msgs.append(Message(0, Role.ASSISTANT, "The function is named load_file, not load: that is why the edit failed."))
    return _transcript(msgs, cwd="/repo")


def _section(markdown: str, heading: str) -> str:
    start = markdown.find(f"## {heading}")
    if start < 0:
        return ""
    end = markdown.find("\n## ", start + 3)
    return markdown[start:] if end < 0 else markdown[start:end]


def test_a_failure_is_told_once_in_its_record_with_its_specifics():
    r = compact(_session(), target_tokens=1200)
    block = _section(r.markdown, "Error Memory")
    [rec] = [e for e in r.error_memory if e.id == "ERR_TOOL_EditNotFound"]
    assert f"occurrences {rec.count}" in block and "Protocol:" in block
    # what failed, where and with which text: the Error line of its record
    assert "Error: at `app/io.py`" in block and "searched `def load(path):`" in block
    assert "Solution:" in block and "Avoidance:" in block
    # ... and not again under Problems
    assert "ERR_TOOL_EditNotFound" not in _section(r.markdown, "Problems and solutions")
    # the document's block still parses as the seed's block: ids and counts survive
    [parsed] = [p for p in parse_block(block) if p.id == rec.id]
    assert parsed.count == rec.count
    # the artifact the hooks and restore read keeps the seed's three lines per record
    assert "Error:" not in r.error_memory_markdown and rec.id in r.error_memory_markdown


def _commit(rnd: int, h: str, msg: str) -> Event:
    return Event(EventKind.COMMIT, rnd, 0, text=msg, commit_hash=h)


def test_commits_in_a_run_share_a_line_and_a_message_the_change_records_tell_is_its_hash():
    commits = [_commit(3, "aaaaaaa1", "feat: add SignalScorer"), _commit(4, "bbbbbbb2", "docs: update the notes"),
               _commit(9, "ccccccc3", "fix: correct the invoker import")]
    said = {4: "notes.md: edited — docs: update the notes file with the new steps"}
    runs = _commit_runs(commits, [6], said)  # another completed action at r6 ends the first run
    assert [f.text for f in runs] == ["Commits aaaaaaa “feat: add SignalScorer”, bbbbbbb (r3, r4)",
                                      "Commit ccccccc “fix: correct the invoker import” (r9)"]


def test_commands_run_once_in_one_round_share_a_line():
    a = Fact(Section.COMPLETED, "`mkdir -p dist/dags` (r42)", [42], score=60)
    b = Fact(Section.COMPLETED, "`touch dist/dags/index.js` (r42)", [42], score=60)
    c = Fact(Section.COMPLETED, "`touch dist/index.d.ts` (r43)", [43], score=60)
    assert [f.text for f in _same_round([a, b, c])] == ["`mkdir -p dist/dags`; `touch dist/dags/index.js` (r42)",
                                                        "`touch dist/index.d.ts` (r43)"]
