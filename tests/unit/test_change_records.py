"""Change records (issue 14 item 1): what changed in each modified file, from every edit payload shape."""

from __future__ import annotations

import pytest

from compaction.edits import call_changes, parse_search_replace, parse_unified, sed_hunks
from compaction.events import EventKind, extract_events
from compaction.history.sections import Section
from compaction.history.sources import FactContext
from compaction.history.sources.changes import MAX_LINES, change_facts, file_record, final_diff, records
from compaction.history.sources.filelog import file_logs
from compaction.history.steering import role_preset
from compaction.model import ToolCall, ToolResult, Transcript
from compaction.transcripts import load_transcript
from compaction.transcripts._agent_tools import make_call
from tests.conftest import TRANSCRIPTS
from tests.unit.synthetic import steps_transcript


def _transcript(*turns: tuple[ToolCall, ToolResult | None]) -> Transcript:
    return steps_transcript("fix the parser", *turns)


def _facts(t: Transcript) -> list:
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds))
    return list(records(ctx).values())


def _changes(t: Transcript) -> list[str]:
    """The full records (what the filler upgrades to); each fact's own text is their first line."""
    facts = _facts(t)
    for f in facts:
        assert "\n" not in f.text and (f.full_text is None or f.full_text.startswith(f.text))
    return [f.full_text or f.text for f in facts]


def test_edit_old_new_strings_become_removed_and_added_lines_with_the_function():
    call = make_call("Edit", {"file_path": "src/p.py", "old_string": "def parse(x):\n    return x\n",
                              "new_string": "def parse(x):\n    return x.strip()\n"}, "c1")
    (change,) = call_changes(call)
    assert change.path == "src/p.py"
    (hunk,) = change.hunks
    assert hunk.removed == ("    return x",) and hunk.added == ("    return x.strip()",)
    assert hunk.context == "parse"  # the enclosing definition from the shared leading lines


def test_multiedit_apply_patch_unified_diff_search_replace_and_sed_all_give_hunks():
    multi = make_call("MultiEdit", {"file_path": "a.py", "edits": [{"old_string": "A = 1", "new_string": "A = 2"},
                                                                  {"old_string": "B = 1", "new_string": "B = 3"}]})
    assert [h.added for h in call_changes(multi)[0].hunks] == [("A = 2",), ("B = 3",)]
    patch = "*** Begin Patch\n*** Update File: src/m.rs\n@@ fn main() {\n-    old();\n+    new();\n*** End Patch"
    (c,) = call_changes(make_call("apply_patch", {"input": patch}))
    assert c.path == "src/m.rs" and c.hunks[0].removed == ("    old();",) and c.hunks[0].context == "main"
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@ class Parser:\n ctx\n-    a = 1\n+    a = 2\n"
    (d,) = parse_unified(diff)
    assert d.path == "x.py" and d.hunks[0].context == "Parser" and d.hunks[0].added == ("    a = 2",)
    blocks = "<<<<<<< SEARCH\nkeep\nold line\n=======\nkeep\nnew line\n>>>>>>> REPLACE\n"
    (h,) = parse_search_replace(blocks)
    assert h.removed == ("old line",) and h.added == ("new line",)
    (s,) = sed_hunks("sed -i 's/timeout=10/timeout=30/g' conf.py")
    assert s.path == "conf.py" and s.hunks[0].removed == ("timeout=10",) and s.hunks[0].fragment


def test_a_file_edited_many_times_shows_its_final_state_and_counts_failed_attempts():
    t = _transcript(
        (make_call("Edit", {"file_path": "app.py", "old_string": "x = 1", "new_string": "x = 1\nprint('DEBUG', x)"},
                   "a"), ToolResult("ok", "a")),
        (make_call("Edit", {"file_path": "app.py", "old_string": "y = 2", "new_string": "y = 3"}, "b"),
         ToolResult("String to replace not found", "b", is_error=True)),
        (make_call("Edit", {"file_path": "app.py", "old_string": "print('DEBUG', x)\n", "new_string": ""}, "c"),
         ToolResult("ok", "c")),
        (make_call("Edit", {"file_path": "app.py", "old_string": "def run():\n    go(1)",
                            "new_string": "def run():\n    go(2)"}, "d"), ToolResult("ok", "d")),
    )
    (text,) = _changes(t)
    assert "3 edits, 1 failed attempt" in text
    assert "touched `run`" in text
    assert "+ go(2)" in text and "- go(1)" in text
    assert "DEBUG" not in text  # added, then removed: not part of the final state
    assert "y = 3" not in text  # the failed attempt is counted, not shown


def test_diff_lines_are_never_cut_mid_line_and_overflow_is_counted():
    long_line = "value = " + "x" * 400
    new = "\n".join([f"line_{i} = {i}" for i in range(30)] + [long_line])
    t = _transcript((make_call("Edit", {"file_path": "big.py", "old_string": "pass", "new_string": new}, "a"),
                     ToolResult("ok", "a")))
    (text,) = _changes(t)
    body = text.splitlines()[1:]
    assert all(ln.startswith("  ") for ln in body)
    assert not any("x" * 50 in ln for ln in body)  # the overlong line is left out whole
    assert "more changed lines" in body[-1]
    shown = [ln.strip()[2:] for ln in body if ln.lstrip().startswith(("+", "-"))]
    # ten diff lines at most; those the one line already quotes (its `sets …`) are not shown again
    assert 0 < len(shown) <= 10 and not any(ln in text.splitlines()[0] for ln in shown)


def test_a_written_file_shows_its_definitions_not_its_body():
    body = "import os\n\nclass Store:\n    pass\n\ndef load(path):\n    return open(path).read()\n"
    t = _transcript((make_call("Write", {"file_path": "store.py", "content": body}, "a"), ToolResult("ok", "a")))
    (text,) = _changes(t)
    first = text.splitlines()[0]  # the digest, in the one-line form
    assert "defines Store, load;" in first and "imports os" in first and "7 lines" in first
    assert "import os" not in text and "return open" not in text


def test_a_reverted_file_is_counted_not_shown():
    t = _transcript(
        (make_call("Edit", {"file_path": "m.py", "old_string": "a", "new_string": "b"}, "a"), ToolResult("ok", "a")),
        (make_call("Bash", {"command": "git checkout -- m.py"}, "b"), ToolResult("", "b", exit_code=0)),
    )
    (text,) = _changes(t)
    assert "then reverted (not kept)" in text and "+ b" not in text


@pytest.mark.parametrize("name, path, expected", [
    # mini-swe-agent: `sed -i` inserts, a substitution, debug prints removed by `sed '/DEBUG:/d'`.
    ("mini-django-13297.traj.json", "django/db/models/sql/query.py", "+ while isinstance(value, SimpleLazyObject):"),
    # OpenHands str_replace_editor on a Java file: the method touched.
    ("oh-fastjson2-2775.json", "core/src/main/java/com/alibaba/fastjson2/JSON.java", "adds parseObject"),
    # aider SEARCH/REPLACE blocks.
    ("aider-afi-core-ts.md", "schemas/validator_metadata_schema.ts", "export const ValidatorMetadataSchema"),
])
def test_change_records_on_real_transcripts(name, path, expected):
    t = load_transcript(TRANSCRIPTS / name)
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), t.cwd, len(t.rounds))
    facts = records(ctx)
    assert {f.path for f in change_facts(ctx)} <= set(facts)
    assert path in facts, sorted(facts)
    fact = facts[path]
    full = fact.full_text or fact.text
    # a diff line the one line already quotes (an old → new swap) is not shown again below it
    said = expected in full or (expected[:2] in ("+ ", "- ") and expected[2:] in fact.text)
    assert fact.section is Section.CHANGES and said
    assert "DEBUG" not in full
    assert "\n" not in fact.text and full.startswith(fact.text)  # one line, upgraded by the filler


def test_edit_events_carry_their_hunks():
    t = _transcript((make_call("Edit", {"file_path": "a.py", "old_string": "x = 1", "new_string": "x = 2"}, "a"),
                     ToolResult("ok", "a")))
    (edit,) = [e for e in extract_events(t) if e.kind is EventKind.EDIT]
    assert edit.hunks and edit.hunks[0].added == ("x = 2",)


def test_a_sed_session_shows_the_final_state_of_inserted_and_substituted_lines():
    def sh(cid: str, command: str) -> tuple[ToolCall, ToolResult]:
        return make_call("bash", {"command": command}, cid), ToolResult("", cid, exit_code=0)

    t = _transcript(
        sh("a", "sed -i '10i\\        x = compute(a)' m.py"),
        sh("b", "git checkout m.py"),  # the edits so far are thrown away
        sh("c", "sed -i '12i\\        y = load(b)' m.py"),
        sh("d", "sed -i '20i\\        print(f\"DEBUG: value {b}\")' m.py"),
        sh("e", "sed -i '20s/{b}/{type(b)}/' m.py"),  # edits the debug line inserted at line 20
        sh("f", "sed -i 's/load(b)/load(b, strict=True)/' m.py"),
        sh("g", "sed -i '/DEBUG:/d' m.py"),
    )
    (text,) = _changes(t)
    assert "1 earlier edit reverted (not kept)" in text
    assert "+ y = load(b, strict=True)" in text
    assert "compute" not in text and "DEBUG" not in text and "type(b)" not in text


def test_a_file_edited_once_does_not_retell_its_one_line_in_the_full_record():
    """The one edit's summary (`rN …`) and its key diff line repeat what the one line quotes: the full
    record adds only what the line does not say, else there is no fuller form to spend room on."""
    call = make_call("Edit", {"file_path": "src/p.py", "old_string": "x = 1\n",
                              "new_string": "# keep the parent's defaults\nx = 1\n"}, "c1")
    (fact,) = _facts(_transcript((call, ToolResult("ok", "c1"))))
    assert "keep the parent's defaults" in fact.text
    assert fact.full_text is None or "keep the parent's defaults" not in fact.full_text[len(fact.text):]


def _inferred(kind: str, path: str, args: dict) -> ToolCall:
    """A call as the generic reader makes it: kind and path inferred from the argument names."""
    return ToolCall(name="unknown_tool", arguments=args, id=None, kind=kind, path=path)


def test_argument_names_are_matched_by_shape_whatever_their_case():
    """pi's `oldText`/`newText`, Antigravity's `CodeContent` and `ReplacementChunks`: the same change records as
    Claude Code's `old_string`/`content`."""
    (pi,) = call_changes(make_call("edit", {"path": "a.py", "oldText": "A = 1", "newText": "A = 2"}))
    assert pi.hunks[0].removed == ("A = 1",) and pi.hunks[0].added == ("A = 2",)
    (write,) = call_changes(_inferred("write", "b.py", {"TargetFile": "b.py", "CodeContent": "def go():\n    pass\n"}))
    assert write.whole and write.hunks[0].added == ("def go():", "    pass")
    chunks = {"TargetFile": "c.py", "ReplacementChunks": [{"TargetContent": "x = 1", "ReplacementContent": "x = 2"}]}
    (c,) = call_changes(_inferred("edit", "c.py", chunks))
    assert c.hunks[0].removed == ("x = 1",) and c.hunks[0].added == ("x = 2",)


def test_a_file_text_sent_as_a_json_string_literal_is_decoded_once():
    """Antigravity's write_to_file: `"import re\\ndef go():…"` quoted, escaped, and an exporter's truncation note
    on a real line after it."""
    literal = '"import re\\n\\ndef parse(text: str) -> int:\\n    return len(re.findall(r\'\\\\d\', text))\\n'
    (write,) = call_changes(_inferred("write", "m.py", {"TargetFile": "m.py",
                                                        "CodeContent": literal + "\n<truncated 120 bytes>"}))
    added = write.hunks[0].added
    assert added[:4] == ("import re", "", "def parse(text: str) -> int:", "    return len(re.findall(r'\\d', text))")
    assert added[-1] == "<truncated 120 bytes>"
    (whole,) = call_changes(_inferred("write", "n.py", {"TargetFile": "n.py", "CodeContent": '"a = 1\\nb = 2\\n"'}))
    assert whole.hunks[0].added == ("a = 1", "b = 2")
    # a file whose text merely starts with a quote keeps its lines as they are
    (plain,) = call_changes(make_call("Write", {"file_path": "s.txt", "content": '"quoted" first line\nsecond\n'}))
    assert plain.hunks[0].added == ('"quoted" first line', "second")


def test_a_long_substitution_keeps_the_codes_quotes():
    """`sed -i "s/…u'\\*'):/…u'*') or '..' in host:/"`: its record read `.. in host` (quotes made ticks, ticks
    dropped); the code is shown as written."""
    old = "        elif host.startswith(u'*'):"
    new = "        elif host.startswith(u'*') or host.startswith(u'.') or '..' in host:"
    t = _transcript((make_call("bash", {"command": f'sed -i "s/{old.strip()}/{new.strip()}/" requests/models.py'},
                               "a"), ToolResult("", "a", exit_code=0)))
    (fact,) = _facts(t)
    assert "'..' in host" in fact.text and "u'.'" in fact.text


def test_only_a_whole_json_string_literal_is_decoded():
    """An edit's text that merely starts with a quote and holds `\\n` escapes is code, kept as written."""
    fmt = '"Usage: %s [opts]\\n\\n", argv[0]);'
    (c,) = call_changes(make_call("Edit", {"file_path": "m.c", "old_string": fmt, "new_string": fmt + " exit(1);"}))
    assert c.hunks[0].removed == (fmt,)
    csv = '"a\\nb","c\\nd"\nrow 2'
    (w,) = call_changes(make_call("Write", {"file_path": "t.csv", "content": csv}))
    assert w.hunks[0].added == ('"a\\nb","c\\nd"', "row 2")
    cut = '"x = 1\\ny = 2\\nz = \\' + "\n<truncated 40 bytes>"  # cut after a backslash, the exporter's note after
    (t,) = call_changes(_inferred("write", "m.py", {"TargetFile": "m.py", "CodeContent": cut}))
    assert t.hunks[0].added == ("x = 1", "y = 2", "z = ", "<truncated 40 bytes>")


def test_a_file_written_with_a_stand_in_for_its_rest_is_said_incomplete():
    body = "#!/bin/bash\nDEV_MODE=0\nrun() {\n  echo run\n}\n\n--- (truncated for brevity) ---\n"
    t = _transcript((make_call("Write", {"file_path": "bin/tool", "content": body}, "a"), ToolResult("ok", "a")))
    (text,) = _changes(t)
    assert "left incomplete: “--- (truncated for brevity) ---” (line 7 of 7)" in text.splitlines()[0]
    whole = ("def a():\n    return 1  # the rest of the code is tested below\n"  # words, not a stand-in line
             '    print("(output truncated for brevity)")\n')  # a string the program prints
    t = _transcript((make_call("Write", {"file_path": "a.py", "content": whole}, "a"), ToolResult("ok", "a")))
    assert "incomplete" not in _changes(t)[0]


def test_a_snippet_spliced_in_by_sed_says_what_each_attempt_added():
    """mini-sweagent's sphinx session splices `snippet.py` (written by a heredoc) into the module with
    `sed '351r snippet.py'`: each edit adds the snippet's lines, the reverted attempts included, and the
    submission's diff still gives the file's net lines, a definition of each hunk first (the
    `make_xrefs` hunk is not hidden behind a longer one)."""
    t = load_transcript(TRANSCRIPTS / "mini-sphinx-9258.traj.json")
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), t.cwd, len(t.rounds))
    fact = records(ctx)["sphinx/domains/python.py"]
    full = fact.full_text or ""
    assert "+ elif isinstance(node, ast.Call):" in full and "+ if not rolename:" in full
    assert "+ def make_xrefs(self, rolename: str, domain: str, target: str," in full
    assert "adds make_xrefs" in fact.text  # the last splice, read from the snippet the session wrote
    assert "NOT KEPT (r54, r64) adds `make_xrefs`" in full  # attempts a `git checkout` threw away
    assert "NOT KEPT (r71)" not in full  # thrown away too, but its splice was made again after it: kept (session 43)
    # the final diff's lines are said as such, before what was thrown away: read under it, they would not be
    lines = full.splitlines()
    final = next(i for i, ln in enumerate(lines) if ln.strip().startswith("final diff: + "))
    assert final < next(i for i, ln in enumerate(lines) if "NOT KEPT" in ln)


def test_a_final_diff_is_shared_fairly_between_its_hunks_and_says_a_line_once():
    hunks = "".join(f"@@ -{i},4 +{i},4 @@ class C{i}:\n-    x = {i}\n+    return NotImplemented\n+    y = 0\n"
                    for i in range(12))
    net = final_diff("diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n" + hunks)["m.py"]
    t = _transcript((make_call("Edit", {"file_path": "m.py", "old_string": "a", "new_string": "b"}, "a"),
                     ToolResult("ok", "a")))
    (log,) = file_logs(extract_events(t), None).values()
    full = file_record("m.py", log, net=net).full_text or ""
    shown = [s for ln in full.splitlines()[1:] if (s := ln.strip().removeprefix("final diff: "))[:2] in ("+ ", "- ")]
    assert shown.count("+ return NotImplemented") <= 1 and "return NotImplemented" in full  # said once
    # the hunks share the room: not the first hunk's only (each said in its class: another definition's lines)
    assert "- x = 1  (in `C1`)" in shown and "- x = 9  (in `C9`)" in shown
    assert len(shown) <= MAX_LINES and "more changed lines" in full
    # a line replaced by one line in each: each change one line, all of them within MAX_NET_LINES
    hunks = "".join(f"@@ -{i},3 +{i},3 @@ class C{i}:\n-    x = {i}\n+    return NotImplemented\n" for i in range(12))
    net = final_diff("diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n" + hunks)["m.py"]
    full = file_record("m.py", log, net=net).full_text or ""
    assert all(f"~ `x = {i}` → `return NotImplemented` in `C{i}`" in full for i in range(1, 12))  # C0: the one line
    assert "more changed lines" not in full


def test_a_definition_the_hunks_context_opens_encloses_the_change_not_the_one_gits_header_names():
    from compaction.edits import parse_unified
    diff = ("--- a/A.java\n+++ b/A.java\n"
            "@@ -272,8 +272,8 @@ protected Collection<ExecutableElement> findBuildMethods(TypeElement e\n"
            "      */\n     protected boolean isBuildMethod(ExecutableElement m, TypeElement t) {\n"
            "         return m.getParameters().isEmpty() &&\n"
            "-            m.getModifiers().contains( Modifier.PUBLIC )\n"
            "+            (m.getModifiers().contains( Modifier.PUBLIC ) || m.getModifiers().isEmpty())\n"
            "     }\n"
            "@@ -300,3 +300,4 @@ protected Collection<ExecutableElement> findBuildMethods(TypeElement e\n"
            "     int a;\n+    int b;\n"
            "@@ -400,6 +401,6 @@ class FunctionTransformer:\n"
            "     def _more_tags(self):\n         return {}\n \n"
            "     def set_output(self, transform=None):\n         if x:\n"
            "-            super().set_output(transform=transform)\n+            super().set_output(transform=transform, **kw)\n"
            "@@ -500,6 +501,6 @@ class FunctionTransformer:\n"
            "     def _more_tags(self):\n         return {}\n \n"
            "-    x = 1\n+    x = 2\n")
    [change] = parse_unified(diff)
    # a definition closed before the change (back at its indentation) encloses nothing
    assert [h.context for h in change.hunks] == ["isBuildMethod", "findBuildMethods", "set_output",
                                                 "FunctionTransformer"]


def test_an_insert_says_the_line_its_code_went_after():
    """fastjson2 r6: `insert` at line 1283 carries no old text: the record names the line, else nothing
    in it says where the new method is."""
    t = _transcript((make_call("str_replace_editor", {
        "command": "insert", "path": "/repo/src/JSON.java", "insert_line": 1283,
        "new_str": "    static <T> T parseObject(String text, Type type, Context context) {\n        return null;\n    }"},
        "c1"), None))
    [record] = _changes(t)
    assert "inserted after line 1283" in record.split("\n", 1)[0]
