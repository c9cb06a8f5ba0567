"""A file's change record when the harness printed the final diff: its changes said from that diff, each kind once
with how often and where, and the edits a `git checkout` reverted counted, those a later edit made again said so
(sympy 13091: twelve `sed` edits of numbers.py, two checkouts, the record read "2 edits, 1 earlier edit reverted"
over eight fragment lines of a 42-change diff)."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.sources import FactContext
from compaction.history.sources.changes import records
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds

_PATH = "pkg/values.py"
_OPS = ("<", "<=", ">", ">=")
_METHODS = ("__lt__", "__le__", "__gt__", "__ge__")
_CLASSES = 5


def _diff() -> str:
    """The final diff: in each class, every comparison's `raise TypeError` replaced, and its `__ne__` removed."""
    hunks = []
    line = 10
    for _ in range(_CLASSES):
        for op, method in zip(_OPS, _METHODS, strict=True):
            hunks.append(f"@@ -{line},4 +{line},4 @@ def {method}(self, other):\n"
                         "         except SympifyError:\n"
                         f'-            raise TypeError("Invalid comparison %s {op} %s" % (self, other))\n'
                         "+            return NotImplemented\n"
                         "         return self.value\n")
            line += 20
        hunks.append(f"@@ -{line},5 +{line},3 @@ def __eq__(self, other):\n"
                     "         return self.value == other\n"
                     " \n"
                     "-    def __ne__(self, other):\n"
                     "-        return not self.__eq__(other)\n"
                     " \n")
        line += 20
    return f"diff --git a/{_PATH} b/{_PATH}\n--- a/{_PATH}\n+++ b/{_PATH}\n" + "".join(hunks)


def _sed(i: int) -> str:
    return f"sed -i '{10 + 20 * i}s/raise TypeError.*/return NotImplemented/' {_PATH}"


def _session() -> Transcript:
    """Three `sed` edits, a `git checkout` of the file, the same three again and one more, then the submission."""
    commands = [_sed(0), _sed(1), _sed(2), f"git checkout {_PATH}", _sed(0), _sed(1), _sed(2), _sed(3),
                "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached"]
    msgs = [Message(0, Role.USER, "Return NotImplemented from the comparisons")]
    for i, command in enumerate(commands):
        call = ToolCall("bash", {"command": command}, f"c{i}", ToolKind.SHELL, command=command)
        msgs.append(Message(len(msgs), Role.ASSISTANT, "Next step.", [call]))
        last = i == len(commands) - 1
        msgs.append(Message(len(msgs), Role.TOOL, text=_diff() if last else "",
                            tool_results=[] if last else [ToolResult("", call.id, "bash", exit_code=0)],
                            meta={"final_patch_echo": True} if last else {}))
    t = Transcript("s.json", "test", msgs, group_rounds(msgs))
    t.meta["final_patch"] = _diff()
    return t


def _record() -> str:
    t = _session()
    ctx = FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"), cwd=None,
                      n_rounds=len(t.rounds), target_tokens=4000)
    fact = records(ctx)[_PATH]
    return fact.full_text or fact.text


def test_the_final_diff_s_changes_are_said_each_kind_once_with_how_often_and_where() -> None:
    full = _record()
    for op, method in zip(_OPS, _METHODS, strict=True):
        line = (f'~ `raise TypeError("Invalid comparison %s {op} %s" % (self, other))` → `return NotImplemented` '
                f"×{_CLASSES} in `{method}`")
        assert line in full, full
    assert f"~ removed `def __ne__(self, other): return not self.__eq__(other)` ×{_CLASSES}" in full
    assert "more changed lines" not in full  # all 25 changes said, in five lines


def test_edits_a_checkout_reverted_are_counted_and_those_made_again_said_so() -> None:
    head = _record().split("\n", 1)[0]
    assert "(4 edits, 3 earlier edits reverted (then redone))" in head, head
