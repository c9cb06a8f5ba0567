"""Mends of session 50: an edit refused for its spacing says so, read off the file's own lines printed next; a
document's outline said in part keeps its upper levels and never counts a fenced sample's `# comment`."""

from __future__ import annotations

from compaction.command_diff import command_change
from compaction.edits import digest, outline_first
from compaction.errors import scan_transcript
from compaction.events import extract_events
from compaction.history.sections import Section
from compaction.history.sources import FactContext, gather
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds

_PADDED = ("    46\t### Challenge 1: Capturing Agent Activity\n    47\t\n"
           "    48\t| System          | Capture mechanism               |\n"
           "    49\t|-----------------|---------------------------------|\n"
           "    50\t| Agent Blame     | Hooks + prompt/tool capture     |\n")


def _call(msgs: list[Message], call: ToolCall, output: str, error: bool = False) -> None:
    msgs.append(Message(len(msgs), Role.ASSISTANT, "Next.", [call]))
    msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult(output, call.id, call.name, is_error=error,
                                                                       exit_code=1 if error else 0)]))


def _edit(path: str, old: str, new: str, cid: str) -> ToolCall:
    return ToolCall("Edit", {"file_path": path, "old_string": old, "new_string": new}, cid, ToolKind.EDIT, path=path)


def _sh(command: str, cid: str) -> ToolCall:
    return ToolCall("bash", {"command": command}, cid, ToolKind.SHELL, command=command)


def _refused(msgs: list[Message]) -> str:
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    rec = next(r for r in scan_transcript(t) if r.id == "ERR_TOOL_EditNotFound")
    return rec.solution or ""


def test_a_patch_refused_for_a_padded_table_says_the_file_pads_its_columns() -> None:
    """git-provenance r40: apply_patch failed ("Failed to find expected lines") on `| Agent Blame | Hooks … |`, the
    file having been reformatted with aligned columns; the record said only that it re-read the file."""
    msgs = [Message(0, Role.USER, "Add prose to each challenge.")]
    patch = ToolCall("apply_patch", {"input": "*** Begin Patch\n*** Update File: docs/S.md\n@@\n"
                                              " | Agent Blame | Hooks + prompt/tool capture |\n+More.\n*** End Patch"},
                     "p1", ToolKind.EDIT, path="docs/S.md")
    _call(msgs, patch, "apply_patch verification failed: Failed to find expected lines in /repo/docs/S.md:\n"
                       "| System | Capture mechanism |\n|---|---|\n| Agent Blame | Hooks + prompt/tool capture |", True)
    _call(msgs, _sh("nl -ba docs/S.md | sed -n '46,50p'", "c1"), _PADDED)
    _call(msgs, ToolCall("apply_patch", {"input": "*** Begin Patch\n*** Update File: docs/S.md\n*** End Patch"},
                         "p2", ToolKind.EDIT, path="docs/S.md"), "Success. Updated the following files:\nM docs/S.md")
    assert "its old text had other spacing than the file, whose table pads its columns to one width (r2)" \
        in _refused(msgs)


def test_an_edit_refused_for_its_indent_says_both_indents_but_not_of_its_first_line() -> None:
    """mapstruct's shape: the old text's second line indented 2 spaces where the file has 12. Its first line may start
    mid-line (`return …` inside an indented block matches as it is): its indent is no cause."""
    old = "return build.isEmpty() &&\n  build.getModifiers().contains(PUBLIC);"
    msgs = [Message(0, Role.USER, "Fix the builder check.")]
    _call(msgs, _edit("/repo/P.java", old, "return true;", "e1"),
          "Error: String to replace not found in file.", True)
    _call(msgs, _sh("cat -n P.java", "c1"), "    10\t        return build.isEmpty() &&\n"
                                            "    11\t            build.getModifiers().contains(PUBLIC);\n")
    _call(msgs, _edit("/repo/P.java", "return build.isEmpty() &&", "return true; //", "e2"), "ok")
    said = _refused(msgs)
    assert "its old text had other indents than the file: `build.getModifiers().co…` 2 spaces, the file's 12 spaces " \
           "(r2)" in said
    msgs2 = msgs[:3] + [Message(3, Role.ASSISTANT, "Next.", [_sh("cat -n P.java", "c1")]),
                        Message(4, Role.TOOL, tool_results=[ToolResult("    10\t        return build.isEmpty() &&\n"
                                                                       "    11\t  build.getModifiers().contains(PUBLIC);"
                                                                       "\n", "c1", "bash", exit_code=0)])]
    assert "other indents" not in _refused(msgs2)  # the lines match, the first one mid-line: no spacing cause


def test_an_edit_refused_for_another_reason_names_no_spacing() -> None:
    msgs = [Message(0, Role.USER, "Rename the helper.")]
    _call(msgs, _edit("/repo/a.py", "def helper_one(x):\n    return x + 1", "def helper(x):", "e1"),
          "Error: String to replace not found in file.", True)
    _call(msgs, _sh("cat -n a.py", "c1"), "     1\tdef helper_two(x):\n     2\t    return x + 2\n")
    assert "spacing" not in _refused(msgs) and "indents" not in _refused(msgs)


def test_a_partial_outline_keeps_the_upper_levels_in_the_documents_order() -> None:
    """git-provenance: "sections + 'Summary', + 'Quick Comparison', + 'Core Trade-offs', + '1) Fidelity vs Friction',
    + '2) Where You Pay …', + '4) Rewrite …' (+12)": three `###` items of one section said, the top-level
    'When To Use What' not."""
    items = ["Summary", "Quick", "Trade-offs", "1) Fidelity", "2) Complexity", "When To Use What"]
    assert outline_first(items, [1, 2, 2, 3, 3, 2], 4) == ["Summary", "Quick", "Trade-offs", "When To Use What",
                                                            "1) Fidelity", "2) Complexity"]
    assert outline_first(items, [1, 2], 4) == items  # levels not one per item: as they are
    assert outline_first(items[:3], [1, 2, 2], 4) == items[:3]


def test_a_documents_digest_skips_a_fenced_samples_comment_and_says_upper_levels_first() -> None:
    """pi-mono's skills.md: a fenced SKILL.md sample's `# My Skill` was read as one of its sections."""
    text = ("# Skills\n\n## Structure\n\n```markdown\n# My Skill\n## Setup\n```\n\n### Fields\n\n### Paths\n\n"
            "#### Naming\n\n## Locations\n\n## Repositories\n")
    d = digest(text.splitlines(), document=True)
    assert "My Skill" not in d.names and "Setup" not in d.names
    assert d.names == ("Skills", "Structure", "Fields", "Paths", "Naming", "Locations", "Repositories")
    assert outline_first(d.names, d.levels, 4) [:4] == ["Skills", "Structure", "Locations", "Repositories"]


def test_a_created_documents_line_names_its_upper_sections() -> None:
    text = "# Guide\n\n## Intro\n\n### a\n\n### b\n\n### c\n\n### d\n\n## Usage\n\n## FAQ\n"
    msgs = [Message(0, Role.USER, "Write the guide.")]
    _call(msgs, ToolCall("Write", {"file_path": "/repo/GUIDE.md", "content": text}, "w1", ToolKind.WRITE,
                         path="/repo/GUIDE.md"), "File created")
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    ctx = FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"),
                      cwd="/repo", n_rounds=len(t.rounds), target_tokens=2000)
    fact = next(f for f in gather(ctx) if f.section is Section.MODIFIED and "GUIDE.md" in f.text)
    assert "sections Guide, Intro, Usage, FAQ (+4)" in (fact.full_text or ""), fact


# --- a command rerun with other words: the words that changed ----------------------------------------------------

def test_a_rerun_says_the_words_it_changed_paired_with_the_like_command() -> None:
    """fastjson2 r16 → r17: `ls …; jar tf …; javac -version && javac -cp X.jar … && java -cp /home:X.jar …` failed,
    `javac -cp …/classes … && java -cp /home:…/classes …` worked; the record showed only the second command."""
    jar = "/home/fj/core/target/fastjson2-2.0.52-SNAPSHOT.jar"
    failed = (f"ls -la /home/fj/core/target && jar tf {jar} | sed -n '1,50p' && javac -version && "
              f"javac -cp {jar} -d /home /home/Repro.java && java -cp /home:{jar} Repro")
    retry = "javac -cp /home/fj/core/target/classes -d /home /home/Repro.java && java -cp /home:/home/fj/core/target/classes Repro"
    assert command_change(failed, retry) == "`…target/classes` (was `…target/fastjson2-2.0.52-SNAPSHOT.jar`)"
    assert command_change("pytest -x tests/a.py", "pytest -x tests/a.py --no-cov") == ""  # shown in the retry
    assert command_change("pytest -x -q --cov tests/a.py", "pytest -x -q tests/a.py") == ""  # dropped: often moved
    # (the code review's triggers) a moved flag is no change; a second retry does not pair with a used command
    assert command_change("pytest -x tests/a.py -q", "pytest tests/a.py -q -x") == ""
    assert command_change("python -m pytest -x tests/test_a.py", "python -m pytest tests/test_a.py -x -k foo") == ""
    assert command_change("python run.py --mode fast --v", "python other.py --mode fast --v && python run.py --mode slow --v") \
        == "`other.py` (was `run.py`)"
    assert command_change("javac -cp C:\\lib\\a.jar -d out A.java", "javac -cp C:\\build -d out A.java") == ""
    assert command_change("python gen.py --n 1 <<EOF\nx\nEOF", "python gen.py --n 2 <<EOF\ny\nEOF") == ""
    many = " && ".join(f"sed -i 's/a{i}/b/' f.py" for i in range(30))
    assert command_change(many, many.replace("b/", "c/")) == ""  # a script of commands, not one rerun
    assert command_change("ls test_domain.py", "ls tests") == ""  # a short look-up is read whole
    assert command_change("python -c 'import a; print(a)'", "python -c 'import b, c; print(b)'") == ""  # a script
    assert command_change("make build", "npm run build") == ""  # another program: nothing pairs


def test_the_record_of_a_failed_command_says_how_its_rerun_differed() -> None:
    msgs = [Message(0, Role.USER, "Compile the repro.")]
    _call(msgs, _sh("javac -cp lib/app.jar -d out src/Repro.java", "c1"),
          "src/Repro.java:1: error: package com.app does not exist\n1 error", True)
    _call(msgs, _sh("javac -cp build/classes -d out src/Repro.java", "c2"), "")
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    rec = next(r for r in scan_transcript(t) if r.id == "ERR_JAVA_PackageDoesNotExist")
    assert "`build/classes` (was `lib/app.jar`)" in (rec.solution or ""), rec.solution


# --- a file rewritten through a copy beside it is no rename ----------------------------------------------------

def test_a_file_rewritten_through_a_temporary_copy_is_not_renamed_from_it() -> None:
    """sympy r33: `sed … basic.py > basic.py.tmp && mv basic.py.tmp basic.py` read "renamed from `basic.py.tmp`"."""
    msgs = [Message(0, Role.USER, "Fix __ne__.")]
    _call(msgs, _edit("/repo/core/basic.py", "return False", "return NotImplemented", "e1"), "ok")
    _call(msgs, _sh("sed 's/a == b/a is b/' core/basic.py > core/basic.py.tmp && mv core/basic.py.tmp core/basic.py",
                    "c1"), "")
    _call(msgs, _sh("mv core/old_name.py core/new_name.py", "c2"), "")
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    ctx = FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"),
                      cwd="/repo", n_rounds=len(t.rounds), target_tokens=3000)
    lines = [f.full_text or f.text for f in gather(ctx) if f.section is Section.MODIFIED]
    basic = next(line for line in lines if "core/basic.py" in line)
    assert "renamed from" not in basic, basic


# --- a check's output: a short table whole, not its last row ---------------------------------------------------

def test_the_check_after_the_last_edit_says_a_short_table_whole() -> None:
    """scikit-learn r39: `python test_standard_scaler.py` printed a dtype and a four-row frame; the end state said
    "→ 3  1", the frame's last row."""
    msgs = [Message(0, Role.USER, "Preserve dtypes.")]
    _call(msgs, _edit("/repo/sk/out.py", "return X", "return X.astype(dtypes)", "e1"), "ok")
    _call(msgs, ToolCall("Write", {"file_path": "/repo/check_scaler.py", "content": "print(df.dtypes)\nprint(df)\n"},
                         "w1", ToolKind.WRITE, path="/repo/check_scaler.py"), "File created")
    _call(msgs, _sh("python check_scaler.py", "c1"), "A    int16\ndtype: object\n   A\n0 -1\n1  0\n2  0\n3  1\n")
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    ctx = FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"),
                      cwd="/repo", n_rounds=len(t.rounds), target_tokens=3000)
    line = next(f.text for f in gather(ctx) if f.text.startswith("Checked after"))
    assert "`python check_scaler.py` → A int16 · 0 -1 · 1 0 · 2 0 · 3 1" in line, line


# --- an edit and the one that put its text back; a fix put back by git, then made again ---------------------------

def test_an_edit_put_back_later_is_said_as_that_edit_not_as_the_restoring_one() -> None:
    """pi-mono's skills.md read "not kept: r138 — restores the text before r133": r138 itself seemed lost."""
    msgs = [Message(0, Role.USER, "Edit the docs.")]
    _call(msgs, _edit("/repo/docs.md", "Skills load on demand.", "Skills load when the agent decides.", "e1"), "ok")
    _call(msgs, _edit("/repo/docs.md", "## Usage", "## Using skills", "e2"), "ok")
    _call(msgs, _edit("/repo/docs.md", "Skills load when the agent decides.", "Skills load on demand.", "e3"), "ok")
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    ctx = FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"),
                      cwd="/repo", n_rounds=len(t.rounds), target_tokens=3000)
    line = next(f.full_text or f.text for f in gather(ctx) if f.section is Section.MODIFIED and "docs.md" in f.text)
    assert "restores the text before" not in line, line
    assert "put back by the edit of r3" in line, line


def test_a_fix_put_back_by_git_then_made_again_says_so() -> None:
    """sympy: the record credited `deleted lines 692-694` (r92), which `git checkout` put back at r103; the
    deletion that stands came at r107."""
    boom = ('Traceback (most recent call last):\n  File "/repo/calc.py", line 3, in <module>\n'
            '    value = ratio(1, 0)\nZeroDivisionError: division by zero')
    msgs = [Message(0, Role.USER, "Make calc.py run.")]
    _call(msgs, _sh("python calc.py", "c1"), boom, True)
    _call(msgs, _edit("/repo/calc.py", "value = ratio(1, 0)", "value = ratio(1, 1)", "e1"), "ok")
    _call(msgs, _sh("git checkout calc.py", "c2"), "Updated 1 path from the index")
    _call(msgs, _edit("/repo/calc.py", "value = ratio(1, 0)", "value = ratio(2, 1)", "e2"), "ok")
    _call(msgs, _sh("python calc.py", "c3"), "2.0")
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    rec = next(r for r in scan_transcript(t) if r.id == "ERR_PY_ZeroDivisionError")
    assert "(put back by `git checkout calc.py` at r3, edited again r4)" in (rec.solution or ""), rec.solution


# --- a tool's notice of a file nobody named is no miss of the agent's --------------------------------------------

def test_a_notice_of_a_missing_file_nobody_named_makes_no_record() -> None:
    """aider-monochromatic r52: the repo map's "swappy-….png: unable to read: [Errno 2] No such file or directory"
    (screenshots deleted outside the session) joined the CONVENTIONS.md misses and left the record "unresolved"."""
    notice = ("Applied edit to src/a.ts\n"
              "shots/swappy-1.png: unable to read: [Errno 2] No such file or directory: 'shots/swappy-1.png'")
    msgs = [Message(0, Role.USER, "Add docs to a.ts.")]
    _call(msgs, _sh("aider --message 'add docs' src/a.ts", "c1"), notice)
    _call(msgs, ToolCall("Read", {"file_path": "/repo/CONVENTIONS.md"}, "r1", ToolKind.READ, path="/repo/CONVENTIONS.md"),
          "Error: File does not exist: /repo/CONVENTIONS.md", True)
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    misses = [r for r in scan_transcript(t) if r.id == "ERR_TOOL_FileNotFound"]
    assert [o.round for r in misses for o in r.occurrences] == [2], [(r.id, r.occurrences) for r in misses]


def test_a_failed_commands_miss_stays_though_only_its_makefile_named_the_file() -> None:
    """The code review's trigger: `make dist` failing on "cp: cannot stat 'build/app.bundle.js'" left no record."""
    msgs = [Message(0, Role.USER, "Package the app.")]
    _call(msgs, _sh("make dist", "c1"), "cp build/app.bundle.js dist/\ncp: cannot stat 'build/app.bundle.js': No such file "
                                        "or directory\nmake: *** [Makefile:4: dist] Error 1", True)
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    assert any(r.id == "ERR_TOOL_FileNotFound" for r in scan_transcript(t))


def test_a_failure_a_command_ended_advises_that_command_not_the_kinds_habit() -> None:
    """pi-mono r101-r125: TS2322 ended when the stale dependency was rebuilt; the advice said "annotate the target
    type …, do not cast", which points at the code, not at the step that ended it."""
    from compaction.errors.advice import advise
    from compaction.errors.records import ErrorRecord, Location, Occurrence
    rec = ErrorRecord("ERR_TS_TypeNotAssignable", [Occurrence(101, location=Location(path="src/a.ts",
                                                                                     command="npm run check"))])
    rec.solution = ("then `npm run check` passed (r125) after `cd packages/agent && npm run build` (r124) — "
                    "“The dist files are stale.”")
    assert advise(rec) == ("when it shows again, run `cd packages/agent && npm run build` first: that ended it here, "
                           "no code change did")
    rec.solution = "then `npm run check` passed (r125) after an edit of `a.ts` (r124)"
    assert "do not cast" in advise(rec)
    for step in ("git apply /tmp/fix.patch", "git stash pop", "git checkout feature/x", "git pull origin main"):
        rec.solution = f"then `npm run check` passed (r125) after `{step}` (r124)"
        assert "do not cast" in advise(rec), step  # a step that changed the code: no habit to repeat


def test_a_failed_maven_runs_decisive_line_is_its_error_at_a_file_not_a_modules_success() -> None:
    """fastjson2 r11: checkstyle failed the build; the finding read "→ exit 1: [INFO] fastjson2-parent …… SUCCESS"."""
    from compaction.history.sources.findings import decisive_line
    log = ("[INFO] --- checkstyle:3.4.0:check (checkstyle) @ fastjson2 ---\n"
           "[ERROR] src/main/java/com/x/JSON.java:[1299] (regexp) RegexpMultiline: Line has trailing whitespace\n"
           "[INFO] Reactor Summary for fastjson2-parent 2.0.52-SNAPSHOT:\n"
           "[INFO] fastjson2-parent ................................... SUCCESS [  1.919 s]\n"
           "[INFO] fastjson2 .......................................... FAILURE [ 19.487 s]\n"
           "[INFO] BUILD FAILURE\n"
           "[ERROR] After correcting the problems, you can resume the build with the command\n")
    assert decisive_line(log, True) == \
        "[ERROR] src/main/java/com/x/JSON.java:[1299] (regexp) RegexpMultiline: Line has trailing whitespace"
    quiet = "[INFO] fastjson2-parent ........ SUCCESS [  1.9 s]\n[INFO] fastjson2 ........ FAILURE\n"
    assert "SUCCESS" not in decisive_line(quiet, True)
    assert decisive_line("12 passed, 1 failed in 3.1s\n", True) == "12 passed, 1 failed in 3.1s"


# --- an edit the export kept as its result's snippet: diffed against the lines shown before ------------------------

def test_an_edit_kept_only_as_its_snippet_is_told_by_the_lines_it_added() -> None:
    """cloud-sync (SpecStory's Claude Code export keeps an Edit's result, not its old/new strings): "r31 edited
    lines 39-54 (around `regexp.MustCompile`, `noCloudSync`, …)" named the place; the read of r29 (`./main.go`,
    lines 30-55) shows the edit added `var lastRunSessionID string`."""
    read = "".join(f"{n:>6}→{text}\n" for n, text in enumerate(
        ['var version = "dev"', "", "// Flags", "var noCloudSync bool // flag to disable cloud sync",
         "var cloudURL string  // custom cloud API URL", "var silent bool  // flag to enable silent output", "",
         "// UUID regex pattern", "var uuidRegex = regexp.MustCompile(`^[0-9a-f]{8}$`)", "}"], start=36))
    snippet = ("The file /repo/main.go has been updated. Here's the result of running `cat -n` on a snippet of the "
               "edited file:\n" + "".join(f"{n:>6}→{text}\n" for n, text in enumerate(
                   ["var noCloudSync bool // flag to disable cloud sync", "var cloudURL string  // custom cloud API URL",
                    "var silent bool  // flag to enable silent output", "", "// Run Mode State",
                    "var lastRunSessionID string // for deep linking", "", "// UUID regex pattern",
                    "var uuidRegex = regexp.MustCompile(`^[0-9a-f]{8}$`)"], start=39)))
    msgs = [Message(0, Role.USER, "Add a deep link.")]
    _call(msgs, ToolCall("Read", {"path": "./main.go"}, "r1", ToolKind.READ, path="./main.go"), read)
    _call(msgs, ToolCall("Edit", {"path": "/repo/main.go"}, "e1", ToolKind.EDIT, path="/repo/main.go"), snippet)
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    [edit] = [e for e in extract_events(t) if e.path == "/repo/main.go"]
    assert edit.hunks[0].removed == ()
    assert edit.hunks[0].added == ("// Run Mode State", "var lastRunSessionID string // for deep linking", "")
    # with no earlier view of those lines, the place alone, as before
    t2 = Transcript("t.json", "test", [msgs[0], *msgs[3:]], group_rounds([msgs[0], *msgs[3:]]))
    [alone] = [e for e in extract_events(t2) if e.path == "/repo/main.go"]
    assert alone.hunks[0].added == () and alone.hunks[0].shown


# --- the code review's triggers (session 50) ---------------------------------------------------------------------

def test_no_spacing_cause_from_another_files_lines_an_edits_result_or_a_line_printed_as_the_old_text_has_it() -> None:
    old = "if ready:\n        start(job, retries=3)\n        log(job)"
    refused = "Error: String to replace not found in file."

    def solution(read_call: ToolCall, output: str) -> str:
        msgs = [Message(0, Role.USER, "Start the job.")]
        _call(msgs, _edit("/repo/run.py", old, "start(job)", "e1"), refused, True)
        _call(msgs, read_call, output)
        return _refused(msgs)

    other = "     1\tif ready:\n     2\t    start(job, retries=3)\n"
    assert "its old text had other" not in solution(_sh("cat -n other.py", "c1"), other)  # (b) another file's lines
    both = "    10\t    start(job, retries=3)\n    20\t        start(job, retries=3)\n"  # (a) both indents
    assert "indents" not in solution(_sh("cat -n run.py", "c1"), both)
    assert "indents" in solution(_sh("cat -n run.py", "c1"), "    10\t    start(job, retries=3)\n")  # the one it has
    retry = _edit("/repo/run.py", "start(job, retries=3)", "try:\n    start(job, retries=3)", "e2")  # (c) its result
    assert "indents" not in solution(retry, "Here's the result of running `cat -n` on a snippet:\n"
                                            "    10\t    start(job, retries=3)\n")


def test_a_failed_git_checkout_put_nothing_back() -> None:
    boom = ('Traceback (most recent call last):\n  File "/repo/calc.py", line 3, in <module>\n'
            '    value = ratio(1, 0)\nZeroDivisionError: division by zero')
    msgs = [Message(0, Role.USER, "Make calc.py run.")]
    _call(msgs, _sh("python calc.py", "c1"), boom, True)
    _call(msgs, _edit("/repo/calc.py", "value = ratio(1, 0)", "value = ratio(1, 1)", "e1"), "ok")
    _call(msgs, _sh("git checkout calc.py", "c2"), "error: pathspec 'calc.py' did not match any file(s) known to git",
          True)
    _call(msgs, _edit("/repo/calc.py", "value = ratio(1, 1)", "value = ratio(2, 1)", "e2"), "ok")
    _call(msgs, _sh("python calc.py", "c3"), "2.0")
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    rec = next(r for r in scan_transcript(t) if r.id == "ERR_PY_ZeroDivisionError")
    assert "put back" not in (rec.solution or ""), rec.solution


def test_a_backup_moved_back_keeps_its_trace_and_a_json_files_own_flags_are_read() -> None:
    from compaction.history.sources.filelog import _in_place
    assert _in_place("core/parse.py.tmp", "core/parse.py") and _in_place("a.py.new", "a.py")
    assert not _in_place("core/parse.py.bak", "core/parse.py") and not _in_place("a.py~", "a.py")
    from compaction.history.sources.evidence import _JSON_FILES, _JSON_FLAG_RE
    assert _JSON_FLAG_RE.match('  "noImplicitAny": false,') and "tsconfig.json".endswith(_JSON_FILES)


def test_a_snippet_is_not_diffed_against_another_folders_file_nor_a_view_a_shell_edit_made_stale() -> None:
    snippet = ("Here's the result of running `cat -n` on a snippet of the edited file:\n"
               "     1\tfrom .auth import TokenStore\n     2\tDEBUG = False\n     3\tfrom .net import Client\n")
    read = "     1→from .auth import TokenStore\n     2→DEBUG = True\n     3→from .net import Client\n"
    for between in ([], [_sh("sed -i 's/DEBUG = True/DEBUG = None/' client/__init__.py", "c9")]):
        for read_path in ("server/__init__.py", "client/__init__.py"):
            msgs = [Message(0, Role.USER, "Turn debugging off.")]
            _call(msgs, ToolCall("Read", {"path": read_path}, "r1", ToolKind.READ, path=read_path), read)
            for call in between:
                _call(msgs, call, "")
            _call(msgs, ToolCall("Edit", {"path": "client/__init__.py"}, "e1", ToolKind.EDIT, path="client/__init__.py"),
                  snippet)
            t = Transcript("t.json", "test", msgs, group_rounds(msgs))
            edit = [e for e in extract_events(t) if e.path == "client/__init__.py" and not e.via_shell][-1]
            diffed = read_path.startswith("client") and not between
            assert bool(edit.hunks[0].added) is diffed, (read_path, between, edit.hunks)


def test_a_long_outputs_check_line_is_its_last_line_not_a_slice_joined() -> None:
    from compaction.history.sources.current import _printed
    out = "".join(f"    row {i}: value {i * 3}\n" for i in range(150)) + "Total: 150 rows\n"
    assert _printed(out) == "Total: 150 rows"


def test_a_code_span_of_backticks_opening_a_line_is_no_fence() -> None:
    d = digest("# Guide\n\n```js``` is the fence's info.\n\n## Setup\n\n## Use\n".splitlines(), document=True)
    assert d.names == ("Guide", "Setup", "Use")


def test_a_json_files_own_flag_is_a_line_read_an_envelopes_is_not() -> None:
    """The code review's trigger: `cat tsconfig.json` lost `"noImplicitAny": false,` to the envelope rule."""
    ts = '{\n  "compilerOptions": {\n    "strictNullChecks": false,\n    "noImplicitAny": false\n  }\n}\n'
    msgs = [Message(0, Role.USER, "Why does the build not catch null errors?")]
    _call(msgs, _sh("cat tsconfig.json", "c1"), ts)
    msgs.append(Message(len(msgs), Role.ASSISTANT, "Found it: `strictNullChecks` is off in tsconfig.json, so "
                                                   "`noImplicitAny` and null checks never fire. I'll turn it on."))
    _call(msgs, _edit("/repo/tsconfig.json", '"strictNullChecks": false', '"strictNullChecks": true', "e1"), "ok")
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    ctx = FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"),
                      cwd="/repo", n_rounds=len(t.rounds), target_tokens=3000)
    read = [f.text for f in gather(ctx) if f.section is Section.EVIDENCE]
    assert any('"noImplicitAny": false' in line for line in read), read
