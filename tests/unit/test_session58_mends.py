"""Mends of session 58, from a blind reading of thirteen development documents against their sessions: each
tested on the shape a reader found misleading (the document's line, then what the session showed)."""

from __future__ import annotations

from pathlib import Path

from compaction.errors import scan_transcript
from compaction.errors.advice import advise
from compaction.errors.records import ErrorRecord, Location, Occurrence
from compaction.events import EventKind, extract_events
from compaction.history.lookups import lookup_hits
from compaction.history.sources import FactContext
from compaction.history.sources.checks import _outcome
from compaction.history.sources.evidence import evidence_facts
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds
from compaction.transcripts import load_transcript
from tests.unit.test_errors_scan import build

# --- one failed build, one record -------------------------------------------------------------------------

_CHECKSTYLE_RUN = (
    "[ERROR] src/main/java/app/A.java:[12,1] (regexp) RegexpSingleline: Line has trailing spaces.\n"
    "[INFO] ------------------------------------------------------------------------\n"
    "[INFO] BUILD FAILURE\n"
    "[INFO] ------------------------------------------------------------------------\n"
    "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-checkstyle-plugin:3.1.2:check (validate) on "
    "project app: You have 1 Checkstyle violation. -> [Help 1]\n")


def test_the_builds_own_failure_line_is_the_violation_it_stopped_on() -> None:
    """fastjson2 r10/r11: one failed run told twice, ERR_JAVA_CheckstyleViolation and ERR_JAVA_BuildFailure,
    each with the same solution: the banner is Maven saying it stopped, the violation why."""
    t = build([("user", "add the overload"),
               ("shell", "mvn -q verify", _CHECKSTYLE_RUN, 1),
               ("edit", "/repo/src/main/java/app/A.java"),
               ("shell", "mvn -q verify", "[INFO] BUILD SUCCESS\n", 0)])
    records = scan_transcript(t)
    ids = [r.id for r in records]
    assert "ERR_JAVA_BuildFailure" not in ids, ids
    (style,) = [r for r in records if r.id == "ERR_JAVA_CheckstyleViolation"]
    assert "ERR_JAVA_BuildFailure" in style.merged


def test_a_build_failure_with_no_other_error_in_its_output_stays_its_own_record() -> None:
    out = ("[INFO] BUILD FAILURE\n[ERROR] Failed to execute goal on project app: Could not resolve dependencies "
           "for project com.x:app:jar:1.0 -> [Help 1]\n")
    t = build([("user", "build it"), ("shell", "mvn -q package", out, 1)])
    assert "ERR_JAVA_BuildFailure" in [r.id for r in scan_transcript(t)]


def test_cannot_find_symbol_at_the_uses_of_a_missing_package_is_that_packages_failure() -> None:
    """fastjson2 r15/r16: javac's "package com.alibaba.fastjson2 does not exist" and the "cannot find symbol" at
    each use of its classes were two records with one solution (the classpath), and the second's advice was
    "check imports of JSONFactory"."""
    out = ("/home/Repro.java:1: error: package com.acme does not exist\nimport com.acme.Json;\n                ^\n"
           "/home/Repro.java:5: error: cannot find symbol\n        Json.parse(s);\n        ^\n"
           "  symbol:   variable Json\n  location: class Repro\n2 errors\n")
    t = build([("user", "reproduce it"),
               ("shell", "javac -cp app.jar -d /home /home/Repro.java", out, 1),
               ("shell", "javac -cp target/classes -d /home /home/Repro.java", "", 0)])
    records = scan_transcript(t)
    ids = [r.id for r in records]
    assert "ERR_JAVA_CannotFindSymbol" not in ids, ids
    (missing,) = [r for r in records if r.id == "ERR_JAVA_PackageDoesNotExist"]
    assert missing.merged == ["ERR_JAVA_CannotFindSymbol"]
    assert "))" not in (missing.solution or "") and "(was `app.jar`)" in (missing.solution or "")


# --- a timeout's advice in the words of what timed out ------------------------------------------------------

def _timed_out(command: str, solution: str) -> ErrorRecord:
    rec = ErrorRecord("ERR_TOOL_Timeout", [Occurrence("t", 3, "the command did not finish",
                                                      location=Location(command=command))])
    rec.solution = solution
    return rec


def test_a_run_that_finished_when_read_on_is_told_to_run_in_the_background_not_to_be_cut_short() -> None:
    """fastjson2 r12: the harness stopped waiting after 300 s, the five-minute Maven build then finished; the
    advice was "`timeout 120 …`" (which would kill the build the task needs) and pytest's `-k`."""
    rec = _timed_out("cd /home/fastjson2 && mvn -q test",
                     "not stuck: the agent read on at r13, and the run finished with `BUILD SUCCESS`")
    said = advise(rec)
    assert "background" in said and "-Dtest=" in said and "timeout 120" not in said and "-k" not in said
    hung = advise(_timed_out("python -m pytest tests/test_io.py", "no fix seen after r3"))
    assert "timeout" in hung and "`-k <name>`" in hung and "background" not in hung
    assert "one module or test file" in advise(_timed_out("bash /home/run.sh", "no fix seen after r3"))


# --- what a run printed, not what it warned on the way -------------------------------------------------------

def test_a_checks_outcome_is_not_the_source_line_a_deprecation_warning_echoes() -> None:
    """sympy r76: "Checked with `python3 reproduce_infinity.py`: r76 “from collections import Callable”"."""
    out = ("/testbed/sympy/plotting/plot.py:28: DeprecationWarning: Using or importing the ABCs from "
           "'collections' is deprecated\n  from collections import Callable\n"
           "zoo > f: True\ninf == f: False\nninf == f: False\n"
           "/testbed/sympy/core/basic.py:3: DeprecationWarning: Using or importing the ABCs\n"
           "  from collections import Mapping\n")
    assert _outcome(out) == "zoo > f: True; inf == f: False; ninf == f: False"
    only = "/x.py:3: DeprecationWarning: old\n  import imp\n"
    assert "DeprecationWarning" in _outcome(only)  # nothing else printed: the warning is what there is


def test_codexs_record_of_the_run_is_no_hit_of_a_search() -> None:
    """git-provenance: "found: `rg -n "## Challenge (5|6|7):" …` → Chunk ID: b4115f"."""
    out = ("Chunk ID: b4115f\nWall time: 0.0512 seconds\nProcess exited with code 0\nOriginal token count: 30\n"
           "Output:\n12:## Challenge 5: Attribution\n")
    assert lookup_hits(out, None) == "12:## Challenge 5: Attribution"
    empty = "Chunk ID: b4115f\nWall time: 0.0512 seconds\nProcess exited with code 1\nOriginal token count: 0\n"
    assert lookup_hits(empty, None) == "Process exited with code 1"  # the status stays when nothing else is left


# --- a deletion the export names no file of ------------------------------------------------------------------

_CURSOR_EXPORT = """<!-- Generated by SpecStory -->

# Rules (2025-10-02 19:40Z)

_**User (2025-10-02 19:41Z)**_

Document the rules organization in a .md file.

---

_**Assistant (default)**_

Tool use: **write**

---

Created `docs/rules-organization.md` with the numbering scheme.

---

_**User (2025-10-02 19:54Z)**_

Do we need it? Can keep the readme and get rid of the others please?

---

_**Assistant (default)**_

Tool use: **delete_file**

undefined

---

Tool use: **delete_file**

undefined

---

### Files removed:
- `docs/rules-organization.md` — deleted
- `notes.md` — already removed
- `README.md` stays.
"""


def test_a_path_less_delete_is_named_by_the_agents_account_of_it(tmp_path: Path) -> None:
    """ai-playbook r11: Cursor's export keeps "Tool use: **delete_file**" and no path; the agent's account says
    "`docs/playbook/cursor-rules-organization.md` — deleted". The file (written at r4) read as still there."""
    export = tmp_path / "cursor.md"
    export.write_text(_CURSOR_EXPORT)
    events = extract_events(load_transcript(str(export)))
    deleted = [(e.path, e.round) for e in events if e.kind is EventKind.DELETE]
    assert deleted == [("docs/rules-organization.md", 2)], deleted  # not `notes.md`: "already removed"
    assert not [e for e in events if e.kind is EventKind.EDIT]  # no edit of an unknown file stands for them


# --- where the work is: the search that found the file changed ----------------------------------------------

def test_the_search_that_found_the_file_changed_outranks_one_that_found_a_file_only_read() -> None:
    """ponyc r11/r17: "Found `packages/cli/cli.pony` with `find …`, after 6 searches found nothing" stood for how
    the code was found; cli.pony is the package's docs, `grep -r "class CommandParser"` found the file edited."""
    t = build([("user", "fix the parser"),
               ("shell", "find src -name '*command*.pony'", "", 0),
               ("shell", "find . -name '*cli*.pony'", "./packages/cli/cli.pony\n", 0),
               ("shell", "cat packages/cli/cli.pony", "\"\"\"\nCLI package docs\n\"\"\"\n", 0),
               ("shell", "grep -r 'class CommandParser' .", "./packages/cli/command_parser.pony:class CommandParser\n",
                0),
               ("shell", "cat packages/cli/command_parser.pony", "class CommandParser\n  fun parse() =>\n", 0),
               ("edit", "/repo/packages/cli/command_parser.pony")])
    ctx = FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"),
                      cwd="/repo", n_rounds=len(t.rounds), target_tokens=4000)
    found = {f.text.split("`")[1]: f.score for f in evidence_facts(ctx) if f.text.startswith("Found ")}
    assert found["packages/cli/command_parser.pony"] > found["packages/cli/cli.pony"], found


# --- a scratch script's run: what it printed, and where an error it printed was raised ----------------------

def test_an_error_a_scratch_run_printed_names_the_project_file_that_raised_it() -> None:
    """sympy r78/r79: "`cat <<'EOF' > reproduce_infinity_ne.py …` → IndentationError: expected an indented
    block (r78)" read as the script's own mistake; the traceback's last frame was `sympy/core/numbers.py`, which
    a line-number `sed` had just broken."""
    from compaction.history.sources.completed import _raised_in
    out = ('Traceback (most recent call last):\n  File "/testbed/reproduce.py", line 1, in <module>\n'
           '    from sympy import oo\n  File "/testbed/sympy/core/numbers.py", line 3225\n    return False\n'
           '    ^\nIndentationError: expected an indented block\n')
    assert _raised_in(out, ["reproduce.py"], "/testbed") == " (in `sympy/core/numbers.py:3225`)"
    own = 'Traceback (most recent call last):\n  File "/testbed/reproduce.py", line 4, in <module>\nValueError: x\n'
    assert _raised_in(own, ["reproduce.py"], "/testbed") == ""  # the script's own error: nothing to add
    lib = 'Traceback (most recent call last):\n  File "/usr/lib/python3.11/json/decoder.py", line 3\nValueError\n'
    assert _raised_in(lib, ["reproduce.py"], "/testbed") == ""  # the interpreter's library is no project file


# --- a file's text as the session left it: what its last reads showed ---------------------------------------

def _wrote_then_read(reads: list[tuple[str, str]]) -> Transcript:
    text = "# Summary\n| A | B |\n|---|---|\n| x | y |\nend\n"
    msgs = [Message(0, Role.USER, "Write the summary."),
            Message(1, Role.ASSISTANT, "Writing it.", [ToolCall("Write", {"file_path": "/repo/SUMMARY.md",
                                                                           "content": text}, "w", ToolKind.WRITE,
                                                                  path="/repo/SUMMARY.md")]),
            Message(2, Role.TOOL, tool_results=[ToolResult("File created", "w", "Write")])]
    for i, (command, output) in enumerate(reads):
        call = ToolCall("bash", {"command": command}, f"r{i}", ToolKind.SHELL, command=command)
        msgs.append(Message(len(msgs), Role.ASSISTANT, "Checking.", [call]))
        msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult(output, f"r{i}", "bash", exit_code=0)]))
    return Transcript("s.json", "test", msgs, group_rounds(msgs))


def _written(t: Transcript) -> str:
    from compaction.history.sources.written import written_texts
    ctx = FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"),
                      cwd="/repo", n_rounds=len(t.rounds), target_tokens=20000)
    (fact,) = written_texts(ctx)
    return fact.text


def test_the_text_a_read_showed_after_the_last_write_stands_over_the_replayed_one() -> None:
    """git-provenance: the replayed SYSTEM-SUMMARY.md had unpadded tables; the file as read after the last patch
    had them padded (an editor formatting on save), and a patch made from the replay failed to apply."""
    numbered = _written(_wrote_then_read([("nl -ba SUMMARY.md | sed -n '2,3p'",
                                           "     2\t| A   | B   |\n     3\t|-----|-----|\n")]))
    assert "| A   | B   |" in numbered and "|-----|-----|" in numbered and "| x | y |" in numbered
    assert "lines 2-3 as read at r2" in numbered
    parted = _written(_wrote_then_read([("sed -n '2,2p' SUMMARY.md && echo '---' && sed -n '4,4p' SUMMARY.md",
                                         "| A   | B   |\n---\n| x   | y   |\n")]))
    assert "| A   | B   |" in parted and "| x   | y   |" in parted and "|---|---|" in parted
    same = _written(_wrote_then_read([("sed -n '2,3p' SUMMARY.md", "| A | B |\n|---|---|\n")]))
    assert "as read" not in same  # the read agreed: the replay stands as it was
    whole = _written(_wrote_then_read([("cat SUMMARY.md", "# Summary\n\n| A | B |\n")]))
    assert "as read at r2" in whole and "|---|---|" not in whole


# --- a pasted test run: its counts and what failed ---------------------------------------------------------

_PASTED_RUN = """```
 ❯  browser (chromium)  packages/components/tree/test/tree.spec.ts (39 tests | 1 failed) 30694ms
   ❯ tree browser tests (39)
     ✓ initial state (3)
       ✓ should render tree with default expanded branches 6ms
       ✓ should show correct open folders count 2ms
     ❯ keyboard selection with shift (2)
       × should extend selection down with Shift+ArrowDown 30002ms

 FAIL   browser (chromium)  packages/components/tree/test/tree.spec.ts > tree browser tests > keyboard selection with shift > should extend selection down with Shift+ArrowDown
VitestBrowserElementError: Cannot find element with locator: locator('[data-value="src/components"]')
```"""


def test_a_pasted_test_run_is_told_by_its_counts_and_its_failures_not_its_first_passing_lines() -> None:
    """tree-vanilla r6-r8: "Then asked: ``` ❯ browser (chromium) … (39 tests | 1 failed) … ✓ initial state (3) ✓
    should render…" three times; the failing test's name, what the user asked about, was cut off."""
    from compaction.history.condense import run_gist
    from compaction.history.sources.task import shorten_request
    said = shorten_request(_PASTED_RUN, 200, 200)
    assert "(39 tests | 1 failed)" in said and "should extend selection down" in said and "✓" not in said, said
    assert run_gist("all good\n✓ a\n✓ b\n", 200) is None  # nothing failed: not told as a failure


# --- a way weighed, then turned from at once ------------------------------------------------------------------

def test_a_choice_the_next_sentence_turns_from_is_not_the_decision() -> None:
    """bastion r37: "So the correct fix would be to say "Bastion" for the first occurrence, and keep the "Bastion
    v2 upgrades it"" was kept as a decision; its next line was "Let me just replace "Bastion v2" with "Bastion" in
    both places", and a successor could have put "v2" back."""
    from compaction.history.sources.decisions import _revised_after
    text = ('So the correct fix would be to say "Bastion" for the first occurrence, and keep the "Bastion v2 '
            'upgrades it" as something more natural.\nLet me just replace "Bastion v2" with "Bastion" in both places.')
    first = 'So the correct fix would be to say "Bastion" for the first occurrence, and keep the "Bastion v2 ' \
            'upgrades it" as something more natural.'
    assert _revised_after(text, first) == 'Let me just replace "Bastion v2" with "Bastion" in both places.'
    thought = "Maybe I should fix the tests.\nWait, the instructions say: do not modify tests."
    assert _revised_after(thought, "Maybe I should fix the tests.") == ""  # turned from; what instead is not said
    # a new paragraph after it (a code block between): the agent carried it out, then went on
    assert _revised_after("So I should check it in `disconnect`.\n\n```python\nx\n```\n\nWait, also y.",
                          "So I should check it in `disconnect`.") is None
    assert _revised_after("I will keep X because Y. Actually it works.", "I will keep X because Y.") is None  # no hedge


# --- a short run of long lines folds --------------------------------------------------------------------------

def test_twenty_long_warnings_fold_and_the_lines_around_them_stay() -> None:
    """aider-monochromatic r52: "> Commit e45f791 …" was elided from the verbatim tail for 20 warnings of 330
    characters each (a run of 40 lines was asked before one folded)."""
    from compaction.history.fold import folded
    warning = "> C:\\Users\\u\\Projects\\app\\packages\\theme\\src\\swappy-2024031405{:04d}.png: unable to read: " \
              "[Errno 2] No such file or directory: 'C:\\\\Users\\\\u\\\\Projects\\\\app\\\\packages\\\\theme" \
              "\\\\src\\\\swappy-2024031405{:04d}.png'"
    text = "\n".join(["> Applied edit to src/a.ts", "> Commit e45f791 docs: Add TSDoc",
                      *(warning.format(i, i) for i in range(20)), "> ^C KeyboardInterrupt"])
    out = folded(text)
    assert "more lines like these" in out and len(out) < len(text) / 3
    assert "> Commit e45f791 docs: Add TSDoc" in out and out.endswith("> ^C KeyboardInterrupt")
    short = "\n".join(f"src/file{i}.py:{i}: match" for i in range(20))  # a listing of short lines: read whole
    assert folded(short) == short


# --- the checks after the last edit, not the last alone ---------------------------------------------------------

def test_every_script_run_after_the_last_edit_is_told_with_its_latest_outcome() -> None:
    """scikit-learn r31-r39: "Checked after the last edit (r31) by running `python test_standard_scaler.py` → A
    int16 · 0 -1" stood for four checks; the run that said "SUCCESS: Default behavior maintained" was left out."""
    from compaction.history.sources.current import current_work
    t = build([("user", "keep the dtypes"),
               ("write", "/repo/check_default.py"), ("write", "/repo/check_columns.py"), ("write", "/repo/check_scaler.py"),
               ("edit", "/repo/sklearn/utils/_set_output.py"),
               ("shell", "python check_default.py", "SUCCESS: Default behavior maintained\n", 0),
               ("shell", "python check_columns.py", "select__A int16\npass__B category\n", 0),
               ("shell", "python check_scaler.py", "A int16\n0 -1\n", 0)])
    ctx = FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"),
                      cwd="/repo", n_rounds=len(t.rounds), target_tokens=4000)
    (line,) = [f for f in current_work(ctx) if f.text.startswith("Checked after")]
    assert "`python check_default.py` → SUCCESS: Default behavior maintained (r5)" in line.text, line.text
    assert "check_columns.py" in line.text and "`python check_scaler.py` → A int16 · 0 -1 (r7)" in line.text
    assert line.short is not None and "check_default" not in line.short  # a tight budget: the last run alone


def test_a_pasted_run_after_the_users_words_keeps_its_counts_and_says_how_many_more_failed() -> None:
    """tree-vanilla r5 (the pairwise check of this session's first mend): "有这些问题 · FAIL … > should deselect …"
    named one of six failures and left out "(39 tests | 6 failed)"."""
    from compaction.history.condense import run_gist
    failures = "\n".join(f"       × should do thing {i} 2999{i}ms" for i in range(6))
    text = (f"有这些问题\n\n```\n ❯ browser (chromium) tree.spec.ts (39 tests | 6 failed) 180508ms\n"
            f"       ✓ renders 13ms\n{failures}\n FAIL browser (chromium) tree.spec.ts > tree > should do thing 0\n"
            f"TimeoutError: locator.click: Timeout 29873ms exceeded.\n × Tests failed. Watching for file changes...\n```")
    said = run_gist(text, 400) or ""
    assert said.startswith("有这些问题 · ❯ browser (chromium) tree.spec.ts (39 tests | 6 failed) · × should do thing 0")
    assert said.count("should do thing 0") == 1 and "+3 more" in said and "Tests failed" not in said, said
    assert said.endswith("TimeoutError: locator.click: Timeout 29873ms exceeded.")


def test_a_read_the_harness_cut_short_puts_in_none_of_its_cut_lines() -> None:
    """git-provenance r57: "| AIttributor | … | Mul" then "... (truncated)" were put in as lines 66 and 67 of the
    file; the header claimed lines 24-110 when 24-40, 52-70 and 74-110 were read."""
    from compaction.history.sources.written import _ranges, _untruncated
    assert _untruncated("a\nb\n| AIttributor | Mul\n... (truncated)") == "a\nb"
    assert _untruncated("a\nthe word truncated in a line\n") == "a\nthe word truncated in a line\n"
    assert _ranges([(24, 40, 57), (52, 65, 57), (74, 110, 58), (100, 111, 58)]) == "24-40, 52-65, 74-111"


def test_a_short_run_of_distinct_errors_stays_whole() -> None:
    """The code review's: nine TS2322 errors of one file, each about another property (4,161 characters; fourteen here), folded to
    the first two and the last once eight lines were enough; only lines alike but for their numbers fold so."""
    from compaction.history.fold import folded
    props = ["email", "phone", "age", "name", "avatar", "zip", "city", "role", "team", "bio", "url", "tz", "lang", "org"]
    text = "\n".join(f"src/components/UserForm.tsx({10 + 7 * i},5): error TS2322: Type '{{ id: string; {p}: number; "
                     f"meta: {{ source: string; tags: string[]; flags: Record<string, boolean>; history: Array<{{ at: Date; "
                     f"by: string; change: string }}> }}; }}' is not assignable "
                     f"to type 'User'. Types of property '{p}' are incompatible: number is not string." for i, p in
                     enumerate(props))
    assert len(text) > 4000 and folded(text) == text


# --- code review 23 -------------------------------------------------------------------------------------------

def test_only_a_read_of_the_file_itself_stands_over_its_replayed_text() -> None:
    """Review 23 H1/H2/M2: `cat README.md` beside `cat docs/README.md`, a read of `docs/README.md.orig`, a ranged
    read tool, `nl` without `-ba` (blank lines unnumbered) and a cut `cat` each replaced the written text."""
    base = "# Summary\n| A | B |\n|---|---|\n| x | y |\nend\n"
    for command, output in [("cat README.md", "# Project\nInstall.\n"),
                            ("cat -n SUMMARY.md.orig", "     1\t# Old\n     2\told\n"),
                            ("nl SUMMARY.md", "     1\t# Summary\n     2\t| A | B |\n"),
                            ("cat SUMMARY.md", "# Summary\n| A | B |\n[... output truncated ...]\n")]:
        said = _written(_wrote_then_read([(command, output)]))
        assert "as read" not in said and base.splitlines()[3] in said, (command, said)
    ranged = _wrote_then_read([])
    call = ToolCall("read_file", {"target_file": "SUMMARY.md", "start_line_one_indexed": 2,
                                  "end_line_one_indexed_inclusive": 3}, "rf", ToolKind.READ, path="SUMMARY.md")
    msgs = [*ranged.messages, Message(3, Role.ASSISTANT, "Reading.", [call]),
            Message(4, Role.TOOL, tool_results=[ToolResult("| A   | B   |\n|-----|-----|\n", "rf", "read_file")])]
    assert "as read" not in _written(Transcript("s.json", "test", msgs, group_rounds(msgs)))


def test_a_build_banner_beside_only_an_exception_stays_and_a_symbol_of_another_file_stays() -> None:
    """Review 23 M4/M6: the banner of a spotless failure folded into an exception a passing test logged; a
    "cannot find symbol" of another file folded into "package does not exist"."""
    logged = ("java.lang.IllegalArgumentException: bad input\n\tat app.Parser.parse(Parser.java:40)\n"
              "[INFO] Tests run: 12, Failures: 0, Errors: 0, Skipped: 0\n[INFO] BUILD FAILURE\n"
              "[ERROR] Failed to execute goal com.diffplug.spotless:spotless-maven-plugin:2.43.0:check (default) on "
              "project app: The following files had format violations:\n")
    t = build([("user", "fix it"), ("shell", "mvn -q verify", logged, 1),
               ("shell", "mvn -q verify", "[INFO] BUILD SUCCESS\n", 0)])
    assert "ERR_JAVA_BuildFailure" in [r.id for r in scan_transcript(t)]
    two = ("/repo/src/test/java/app/FooTest.java:3: error: package org.junit does not exist\nimport org.junit.Test;\n"
           "/repo/src/main/java/app/Foo.java:12: error: cannot find symbol\n        this.compute(x);\n"
           "  symbol:   method compute(int)\n  location: class Foo\n2 errors\n")
    t = build([("user", "fix it"), ("shell", "javac -d out src/main/java/app/Foo.java", two, 1),
               ("shell", "javac -cp junit.jar -d out src/main/java/app/Foo.java", "", 0)])
    assert "ERR_JAVA_CannotFindSymbol" in [r.id for r in scan_transcript(t)]


def test_the_account_of_an_edit_or_of_a_removal_from_a_list_names_no_deleted_file(tmp_path: Path) -> None:
    """Review 23 H3/L1/L2: "- `README.md`: removed the stale link" named README.md the deleted file; a bare name
    made a second path; `delete_lines` counted as a file delete."""
    from compaction.events import _DELETES_RE
    export = tmp_path / "cursor.md"
    export.write_text(_CURSOR_EXPORT.replace("- `docs/rules-organization.md` — deleted",
                                             "- `README.md`: removed the stale link\n- `rules-organization.md` — deleted"))
    deleted = [e.path for e in extract_events(load_transcript(str(export))) if e.kind is EventKind.DELETE]
    assert deleted == ["docs/rules-organization.md"], deleted  # the file the session wrote, by its path
    assert [n for n in ("delete_file", "deleteFile", "delete_lines", "removeComment", "undelete") if
            _DELETES_RE.search(n)] == ["delete_file", "deleteFile"]


def test_review23_small_ones() -> None:
    from compaction.history.condense import run_gist
    from compaction.history.sources.changes import _bre
    from compaction.history.sources.completed import _raised_in
    from compaction.history.sources.decisions import _revised_after
    # the interpreter's library, wherever installed, is no project file
    lib = 'Traceback (most recent call last):\n  File "/home/u/.pyenv/versions/3.11.4/lib/python3.11/json/decoder.py", ' \
          'line 355\nValueError: x\n'
    assert _raised_in(lib, ["repro.py"], None) == ""
    # the runner is the program a part of the line runs, not a word of a path
    said = advise(_timed_out("cd ~/src/pytest-mock-demo && cargo test", "no fix seen after r3"))
    assert "cargo test <name>" in said and "-k" not in said
    # "No," and "Rather," turn from a choice; "Actually, let me just …" says what it did instead
    assert _revised_after("We could use a regex. No, a parser is safer.", "We could use a regex.") == ""
    assert _revised_after("We could use a regex. Actually, let me just split it.", "We could use a regex.") == \
        "Actually, let me just split it."
    # `python -c` warns with no source line: the program's indented output is its output
    assert _outcome("<string>:1: DeprecationWarning: x\n  result 1\n  result 2\n") == "result 1; result 2"
    assert _bre(r"\w+") is None and _bre("a.c") is not None  # GNU's escapes are not read as letters
    pytest_run = ("============ test session starts ============\ncollected 40 items\n\n"
                  "FAILED tests/test_a.py::test_parse - AssertionError: assert 1 == 2\n"
                  "============ 1 failed, 39 passed in 2.10s ============\n")
    assert run_gist(pytest_run, 200) == ("test session starts · 1 failed, 39 passed · × tests/test_a.py::test_parse - "
                                         "AssertionError: assert 1 == 2")


def test_the_engine_says_where_the_work_stopped_beside_a_tail_and_points_to_a_pasted_run_by_its_failures() -> None:
    """Review 23 L9: `_told_beside_tail`, `_pointer`'s gist and the folding of a tool's report given as text."""
    from compaction.history.engine import _pointer, _told_beside_tail
    from compaction.history.facts import Fact
    from compaction.history.sections import Section
    from compaction.history.steering import Steering
    from compaction.history.tail import round_pieces
    assert _told_beside_tail(Fact(Section.CURRENT, "Last calls: finish (no result seen)", [20]))
    assert not _told_beside_tail(Fact(Section.CURRENT, "Last said: " + "x " * 80, [20]))
    assert not _told_beside_tail(Fact(Section.FINDINGS, "The cause is the cache", [20]))
    pointed = _pointer("Current request: " + _PASTED_RUN, "(r8)")
    assert "(39 tests | 1 failed)" in pointed and "should extend selection" in pointed and "✓" not in pointed
    assert pointed.endswith("(r8) [whole in the recent rounds below]")
    report = "\n".join(["> Applied edit to src/a.ts", "> Commit e45f791 docs: Add TSDoc",
                        *(f"> C:\\Users\\u\\app\\swappy-2024031405{i:04d}.png: unable to read: [Errno 2] No such file "
                          f"or directory: 'C:\\\\Users\\\\u\\\\app\\\\swappy-2024031405{i:04d}.png' and more words here"
                          for i in range(30))])
    msgs = [Message(0, Role.USER, "Add the TSDoc"), Message(1, Role.ASSISTANT, "Here it is."),
            Message(2, Role.TOOL, report, harness=True)]
    text = "".join(p.render(None) for p in round_pieces(group_rounds(msgs)[0], True, Steering()))
    assert "more lines like these" in text and "Commit e45f791" in text


def test_a_list_of_commits_tags_and_pushes_is_no_account_of_changes() -> None:
    """Exam 53, bastion q03: "The agent's own account (r32): Everything has been pushed successfully: Commit: …;
    Commit: …; Tag: v0.3.0 pushed to remote" took the room of the `.gitignore` record's content; the completed
    actions tell commits and pushes."""
    from tests.unit.test_recaps import _edit, _facts
    msgs = [Message(0, Role.USER, "commit and tag it")]
    _edit(msgs, "a", "/repo/src/lib.rs")
    msgs.append(Message(len(msgs), Role.ASSISTANT, "Done! Everything has been pushed successfully:\n- Commit: feat: "
                        "Add policy rules\n- Commit: chore: Bump version to 0.3.0\n- Tag: v0.3.0 pushed to remote"))
    assert _facts(msgs) == []
    msgs.append(Message(len(msgs), Role.ASSISTANT, "Done. Here's what happened:\n- Committed 71 files with the policy "
                        "rules\n- Tagged v0.3.0 and pushed everything\n- All 66 tests pass, build is clean"))
    assert len(_facts(msgs)) == 1  # an account that says more than the git steps is one


def test_an_older_requests_shortest_form_keeps_the_polite_ask_after_an_opening_question() -> None:
    """ai-playbook r11 (reader review 58): "Then asked: Do we really need all three of these files?" hid what the
    user asked for: "Can keep the readme and get rid of the others please?"."""
    from compaction.history.sources.task import _brief
    said = _brief("Do we really need all three of these files? @README.md , @cursor-rules-organization.md , and "
                  "@.cursorrules ? Can keep the readme and get rid of the others please?")
    assert said.startswith("Do we really need") and said.endswith("get rid of the others please?"), said
    assert _brief("Fix the login bug. Please add a test too.") == "Fix the login bug. Please add a test too."
    assert _brief("Why does it fail? It used to work.") == "Why does it fail? It used to work."  # no ask: as before


def test_a_read_whose_export_kept_only_its_label_leaves_the_replayed_text_alone() -> None:
    """tree-vanilla: Copilot Chat's export keeps a read's label ("读取 [](file:///…/Tree.ts)"), never the file;
    the document then showed the 327-line `Tree.ts` as "(0 lines, … as read at r4)" and an empty block."""
    t = _wrote_then_read([])
    call = ToolCall("copilot_readFile", {"path": "/repo/SUMMARY.md"}, "rd", ToolKind.READ, path="/repo/SUMMARY.md")
    msgs = [*t.messages, Message(len(t.messages), Role.ASSISTANT, "Reading it.", [call]),
            Message(len(t.messages) + 1, Role.TOOL,
                    tool_results=[ToolResult("读取 [](file:///repo/SUMMARY.md)\n", "rd", "copilot_readFile")])]
    said = _written(Transcript("s.json", "test", msgs, group_rounds(msgs)))
    assert "| x | y |" in said and "as read" not in said and "0 lines" not in said, said
