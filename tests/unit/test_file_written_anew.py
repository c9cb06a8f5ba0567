"""A file deleted and written anew is told by its new text, its first counted as gone with the deletion;
sed's addressed line commands (`/pattern/i`, `1i`, `$a`, `/pattern/d`) replay on the file's known text, so
a debug line inserted by pattern no longer loses what the file defines."""

from __future__ import annotations

from compaction.edits import sed_hunks
from compaction.events import extract_events
from compaction.history.sources.changes import records
from compaction.history.sources.registry import FactContext
from compaction.history.steering import role_preset
from compaction.model import Message, Role
from tests.unit.synthetic import call_pair, transcript

ROOT = "/testbed"
FIRST = "import numpy as np\n\ndef itrs_to_observed(coo, frame):\n    return coo\n"
SECOND = ("import numpy as np\n\ndef itrs_to_observed_mat(frame):\n    return np.eye(3)\n\n"
          "def itrs_to_observed(coo, frame):\n    dist = coo.distance\n    if np.all(dist < 100000):\n"
          "        return coo\n    return frame\n\ndef observed_to_itrs(coo, frame):\n    return coo\n")


def _ctx(msgs: list[Message]) -> FactContext:
    t = transcript(msgs, cwd=ROOT)
    return FactContext(t, extract_events(t), [], role_preset("developer"), ROOT, len(t.rounds))


def _sh(command: str, i: int, out: str = "") -> list[Message]:
    return call_pair("bash", {"command": command}, f"c{i}", out)


def test_sed_line_commands_keep_the_indentation_a_backslash_protects_and_read_the_last_line_address() -> None:
    (change,) = sed_hunks("sed -i '/if np.all(dist < 100000):/i \\        print(dist)' obs.py")
    assert change.hunks[0].added == ("        print(dist)",)
    assert change.hunks[0].context == "insert at /if np.all(dist < 100000):/"
    (change,) = sed_hunks("sed -i '$a # end' obs.py")
    assert change.hunks[0].context == "append at $" and change.hunks[0].added == ("# end",)
    (change,) = sed_hunks("sed -i '1i import sys' obs.py")
    assert change.hunks[0].added == ("import sys",)


def test_a_file_deleted_and_written_anew_is_told_by_its_new_text_through_addressed_sed_edits() -> None:
    msgs = [Message(0, Role.USER, "add ITRS to observed transforms")]
    msgs += _sh(f"cat <<'EOF' > obs.py\n{FIRST}EOF", 1)
    msgs += _sh("rm obs.py", 2)
    msgs += _sh(f"cat <<'EOF' > obs.py\n{SECOND}EOF", 3)
    msgs += _sh("sed -i '/if np.all(dist < 100000):/i \\    print(f\"DEBUG: {dist}\")' obs.py", 4)
    msgs += _sh("sed -i '1i print(\"DEBUG: import\")' obs.py", 5)
    msgs += _sh("sed -i 's/dist = coo.distance/dist = coo.cartesian.norm()/' obs.py", 6)
    msgs += _sh("sed -i '/DEBUG/d' obs.py", 7)
    (record,) = [f for p, f in records(_ctx(msgs)).items() if p.endswith("obs.py")]
    line = record.text
    assert "(created, deleted and written anew, then 4 edits)" in line, line
    # what the file defines now, read off its text as the edits left it
    assert "defines itrs_to_observed_mat, itrs_to_observed, observed_to_itrs" in line, line
    assert "not kept: its text of r1 — deleted (r2), then written anew (r3)" in line, line
    assert "reverted" not in line


def test_a_project_file_edited_deleted_and_written_again_is_no_file_the_session_created() -> None:
    msgs = [Message(0, Role.USER, "rework core")]
    msgs += call_pair("Edit", {"file_path": f"{ROOT}/pkg/core.py", "old_string": "a = 1", "new_string": "a = 2"}, "e1",
                      "ok")
    msgs += _sh("rm pkg/core.py", 2)
    msgs += _sh(f"cat <<'EOF' > pkg/core.py\n{SECOND}EOF", 3)
    (record,) = [f for p, f in records(_ctx(msgs)).items() if p.endswith("core.py")]
    assert "created" not in record.text and "written anew" not in record.text, record.text


def _replayed(command: str, content: str) -> str | None:
    from compaction.history.sources.changes import _apply
    (change,) = sed_hunks(command)
    return _apply(content, change.hunks, {})


def test_one_sed_script_runs_line_by_line_as_sed_does() -> None:
    text = "l1\nl2\nl3\nl4\n"
    # each command addresses the file as it was: line 3 is still l3 after the insert before line 1
    assert _replayed("sed -i -e '1i A' -e '3i B' f", text) == "A\nl1\nl2\nB\nl3\nl4\n"
    # an inserted line is output, not matched again by the next command
    assert _replayed("sed -i -e '/l2/i l2x' -e '/l2/a Y' f", text) == "l1\nl2x\nl2\nY\nl3\nl4\n"
    assert _replayed("sed -i '$a end' f", text) == "l1\nl2\nl3\nl4\nend\n"
    assert _replayed("sed -i '2i\\\n  a\\\n  b' f", text) == "l1\n  a\n  b\nl2\nl3\nl4\n"  # `i\` text over lines
    # a basic regular expression: `.` any character, `\*` a star; `(` and `+` literal
    assert _replayed("sed -i '/x\\*(y+1)/i # here' f", "a\nv = x*(y+1)\n") == "a\n# here\nv = x*(y+1)\n"
    # `d` by pattern: the pattern as sed reads it (`.` any character, `^` the line's start), not its text
    assert _replayed("sed -i '/l.3/d' f", "l1\nlx3\nl3\n") == "l1\nl3\n"
    assert _replayed("sed -i '/^import os/d' f", "import os\nx = 'import os'\n") == "x = 'import os'\n"
    assert _replayed("sed -i '/a*b/d' f", "ab\n") is None  # a repetition is not run on the replayed text
    # a line the file does not have, a pattern no line holds: the replay loses track, it does not guess
    assert _replayed("sed -i '5i X' f", "l1\nl2\nl3\n") is None
    assert _replayed("sed -i '/nowhere/a X' f", text) is None


def test_a_pattern_that_repeats_or_groups_is_not_run_on_the_replayed_text() -> None:
    from compaction.history.sources.changes import _bre
    # the transcript's pattern: a nested repetition could run for hours on a crafted line; the replay loses track
    assert _bre(r"\(a*\)*b") is None and _bre("a.*b") is None and _bre(r"x\+") is None
    assert _replayed("sed -i '/\\(a*\\)*b/i X' f", "a" * 40 + "c\n") is None
    assert _bre(r"*star") is not None and _bre(r"x\*y") is not None  # a leading or escaped star is literal
