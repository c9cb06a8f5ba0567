"""Mends of session 49: where a tight document (a short session at 10%: under 3,000 tokens, no verbatim
tail) spent its room on what another of its lines already said; each tested on the shape it fixes."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.sections import Section
from compaction.history.sources import FactContext, gather
from compaction.history.sources.completed import _told_by_file_list
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds


def _ctx(t: Transcript, cwd: str | None = None, target: int = 4000) -> FactContext:
    return FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"), cwd=cwd,
                       n_rounds=len(t.rounds), target_tokens=target)


def _sh(command: str, i: int) -> ToolCall:
    return ToolCall("bash", {"command": command}, f"c{i}", ToolKind.SHELL, command=command)


def _write(path: str, content: str, i: int) -> ToolCall:
    return ToolCall("Write", {"file_path": path, "content": content}, f"w{i}", ToolKind.WRITE, path=path)


def _session(request: str, calls: list[ToolCall]) -> Transcript:
    msgs = [Message(0, Role.USER, request)]
    for call in calls:
        msgs.append(Message(len(msgs), Role.ASSISTANT, "Next step.", [call]))
        msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult("", call.id, call.name, exit_code=0)]))
    return Transcript("s.json", "test", msgs, group_rounds(msgs))


# --- completed actions the modified-files list already tells ---------------------------------------------------

def test_making_the_folder_and_touching_the_files_the_list_names_is_no_line_of_its_own() -> None:
    """afi-core r42/r43: `mkdir -p dist/dags`; `touch dist/dags/index.js …` and `touch dist/index.d.ts` took two
    of a 1,988-token document's lines, beside "`dist/dags/index.js`: created" in the modified-files list."""
    t = _session("Scaffold the DAGs.", [
        _sh("mkdir -p dist/dags && touch dist/dags/index.js", 1),
        _write("/repo/dist/dags/index.js", "export const dags = [];\n", 2),
        _sh("rm old.js && rm -rf node_modules", 3),
        _sh("chmod +x run.sh", 4),
    ])
    facts = gather(_ctx(t, "/repo", target=2000))
    listed = [f.text for f in facts if f.section is Section.COMPLETED]
    assert not any("mkdir" in line or "touch" in line for line in listed)
    assert any("rm -rf node_modules" in line for line in listed)  # a folder the list does not name: kept
    assert any(f.text.startswith("`old.js`: deleted") for f in facts if f.section is Section.MODIFIED)
    roomy = [f.text for f in gather(_ctx(t, "/repo", target=8000)) if f.section is Section.COMPLETED]
    assert not any("mkdir" in line for line in roomy)  # said once at any budget
    assert any("chmod +x run.sh" in line for line in listed)  # not a file made or removed


def test_what_the_list_does_not_say_keeps_its_command() -> None:
    listed = {"dist/dags/index.js": False, "validators/PoIValidator.ts": True}
    folders = {"dist", "dist/dags"}
    assert _told_by_file_list("rm validators/PoIValidator.ts", listed, folders, "/repo")
    assert _told_by_file_list("mkdir -p /repo/dist/dags", listed, folders, "/repo")  # the list's spelling, relative
    assert _told_by_file_list("touch ./dist/dags/index.js", listed, folders, "/repo")
    assert not _told_by_file_list("rm dist/dags/index.js", listed, folders, "/repo")  # the list says it is there
    assert not _told_by_file_list("touch validators/PoIValidator.ts", listed, folders, "/repo")  # … and it is not
    assert not _told_by_file_list("mkdir dags", listed, folders, "/repo")  # the code review's: whole paths only
    assert not _told_by_file_list("rm validators/*.ts", listed, folders, "/repo")  # a glob may remove more
    assert not _told_by_file_list("cd sub && touch dist/dags/index.js", listed, folders, "/repo")
    assert not _told_by_file_list("touch dist/dags/index.js && npm run build", listed, folders, "/repo")
    assert not _told_by_file_list("rm -rf", listed, folders, "/repo")
    assert not _told_by_file_list("touch dist/dags/index.js", {}, set(), "/repo")


def test_a_file_removed_then_made_again_keeps_its_removal() -> None:
    """The code review's: `rm src/legacy.py`, then a write of it: the list says "edited", not that the first
    file was removed (cline-image-describer2's `rm image_describer.py`)."""
    t = _session("Start the module over.", [_sh("rm src/legacy.py", 1), _write("/repo/src/legacy.py", "x = 1\n", 2)])
    assert any("rm src/legacy.py" in f.text for f in gather(_ctx(t, "/repo", target=2000))
               if f.section is Section.COMPLETED)


# --- where the session ended ------------------------------------------------------------------------------------

def test_the_last_words_leave_out_the_command_block_the_harness_ran_as_the_call() -> None:
    """requests r50: mini-swe-agent's reply ends in the ```bash block its harness runs; "Last said" spent its
    closing sentence on `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A …`, already a call, and lost
    "I preserved the existing behavior … for IPv6 literals and Punycode"."""
    from compaction.history.sources.current import without_own_calls

    command = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached"
    text = f"THOUGHT: Ready. I kept the IPv6 path.\n\n```bash\n{command}\n```"
    msg = Message(3, Role.ASSISTANT, text, [_sh(command, 9)])
    assert without_own_calls(msg) == "THOUGHT: Ready. I kept the IPv6 path."
    sample = Message(4, Role.ASSISTANT, "Run this yourself:\n\n```bash\nmake deploy\n```", [_sh("make test", 8)])
    assert without_own_calls(sample) == sample.text  # a block that is not its call is what it said
    alone = Message(5, Role.ASSISTANT, "```bash\nmake test\n```", [_sh("make test", 7)])
    assert without_own_calls(alone) == alone.text  # the code review's: "Last said: " with nothing after it


# --- completed actions ------------------------------------------------------------------------------------------

def _run_session(request: str, steps: list[tuple[str, str]]) -> Transcript:
    """(command, its output) per step."""
    msgs = [Message(0, Role.USER, request)]
    for i, (command, output) in enumerate(steps):
        call = _sh(command, i)
        msgs.append(Message(len(msgs), Role.ASSISTANT, "Next.", [call]))
        msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult(output, call.id, call.name, exit_code=0)]))
    return Transcript("s.json", "test", msgs, group_rounds(msgs))


def test_a_reproduction_run_again_says_what_it_printed_after_the_fix() -> None:
    """astropy r7/r30: reproduce_issue.py printed "13234.903 arcsec" before the fix and "4.76e-09 arcsec" after;
    the scratch line said only the first, and the answerer could not tell the fix's result. A run of several
    scripts in one line prints the last one's output: not taken for this one's."""
    t = _run_session("Fix the overhead altitude.", [
        ("cat <<'EOF' > reproduce.py\nprint('off by 13234.9 arcsec')\nEOF", ""),
        ("python reproduce.py", "off by 13234.9 arcsec"),
        ("sed -i 's/a/b/' astropy/coords.py", ""),
        ("python reproduce.py", "off by 4.76e-09 arcsec"),
        ("python reproduce.py && python other.py", "other says hello"),
        ("rm reproduce.py", ""),
    ])
    line = next(f.text for f in gather(_ctx(t, "/repo")) if f.text.startswith("Scratch files written"))
    assert "(r1) → off by 13234.9 arcsec … r4: off by 4.76e-09 arcsec" in line
    assert "hello" not in line


def test_the_last_run_is_of_the_same_script_in_the_same_folder_before_it_is_rewritten() -> None:
    """The code review's: a second heredoc rewrote the script, a same-named script ran after `cd tests`, a run
    came after `rm`: none is the first version's last run."""
    t = _run_session("Fix it.", [
        ("cat <<'EOF' > check.py\nprint('A')\nEOF", ""),
        ("python check.py", "first A"),
        ("python check.py", "second A"),
        ("cd tests && python check.py", "tests check: FAIL"),
        ("cat > check.py <<'EOF'\nprint('B')\nEOF", ""),
        ("python check.py", "rewritten B"),
        ("rm check.py", ""),
        ("python check.py", "python: can't open file 'check.py': No such file"),
    ])
    line = next(f.text for f in gather(_ctx(t, "/repo")) if f.text.startswith("Scratch files written"))
    assert "(r1) → first A … r3: second A" in line, line
    assert "FAIL" not in line and "can't open" not in line and "… r6" not in line


# --- code the session pointed at --------------------------------------------------------------------------------

def test_a_statement_split_over_two_lines_is_not_cut_in_two_by_the_joins() -> None:
    """ponyc L100-102: `return CommandParser._sub(cs, this).` / `_parse_command(tokens, …)` read as
    "`…this).; _parse_command(…)`": a "; " where the statement goes on, exactly at the line break every failed
    replacement of the session tripped on."""
    from compaction.history.sources.blocks import digest

    lines = {100: "          return CommandParser._sub(cs, this).",
             101: "            _parse_command(tokens, options, args, envsmap, opt_stop)",
             102: "        else",
             103: "          return SyntaxError(token, \"unknown command\")",
             104: "        // the limit is applied here.",
             105: "        y = limit(b) /* note */",
             106: "        x = compute(a)"}
    text = digest(lines, 100, 106)
    assert "return CommandParser._sub(cs, this). _parse_command(tokens, options, args, envsmap, opt_stop)" in text
    assert "; else; return SyntaxError" in text  # separate statements stay apart
    assert "// the limit is applied here.; y = limit(b) /* note */; x = compute(a)" in text
    # the code review's: a comment after the code ends in a dot, a stub in `...`, a decrement in `--`
    more = {1: "total = compute(rows)  # rows are already filtered.", 2: "return normalise(total)",
            3: "def area(self) -> float: ...", 4: "def perimeter(self) -> float: ...", 5: "i = j--", 6: "total = step(n)"}
    assert digest(more, 1, 6) == ("total = compute(rows) # rows are already filtered.; return normalise(total); "
                                  "def area(self) -> float: ...; def perimeter(self) -> float: ...; i = j--; total = step(n)")


def test_removing_a_scratch_file_stays_a_completed_action() -> None:
    """pydicom r11: `rm reproduce_bug.py` went with the rule above, but a scratch file's line is optional: at 10%
    nothing else said the script the last check ran was gone."""
    t = _session("Fix it.", [
        _write("/repo/reproduce_bug.py", "print('ok')\n", 1),
        _sh("python reproduce_bug.py", 2),
        _sh("rm reproduce_bug.py", 3),
    ])
    assert any("rm reproduce_bug.py" in f.text for f in gather(_ctx(t, "/repo", target=2000))
               if f.section is Section.COMPLETED)


def test_test_runs_made_under_a_change_later_reverted_say_so_once() -> None:
    """requests r27/r31: "8 failed (r27) → 9 failed (r31) → 1 failed (r48)" read as one line of progress, but the
    first two ran with the r18 rewrite `git checkout` took back at r34: their failures are of code the work no
    longer holds."""
    t = _run_session("Raise InvalidURL.", [
        ("sed -i 's/encode(host)/encode_all(host)/' requests/models.py", ""),
        ("pytest tests", "==== 8 failed, 121 passed in 3.01s ===="),
        ("pytest tests", "==== 9 failed, 276 passed in 3.02s ===="),
        ("git checkout requests/models.py", ""),
        ("sed -i 's/startswith(u.\\*.)/startswith(u\".\")/' requests/models.py", ""),
        ("pytest tests", "==== 1 failed, 284 passed in 3.03s ===="),
    ])
    line = next(f.text for f in gather(_ctx(t, "/repo")) if f.text.startswith("`pytest tests`"))
    assert "→ 8 failed, 121 passed (r2) → 9 failed, 276 passed (r3) (r2, r3: with the r1 change to " \
           "`requests/models.py`, reverted r4) → 1 failed, 284 passed (r6)" in line, line


def test_a_prose_change_or_a_committed_one_is_no_note_on_the_test_runs() -> None:
    """The code review's: a README edit `git checkout README.md` took back put "(with the r1 change …)" on every
    run, the final passing one included; so did a change a commit had kept before a later revert."""
    t = _run_session("Fix the parser.", [
        ("sed -i 's/Old/New/' README.md", ""),
        ("pytest tests", "==== 2 failed, 11 passed in 3.01s ===="),
        ("git checkout README.md", ""),
        ("sed -i 's/a/b/' src/parse.py", ""),
        ("git commit -am 'parse'", "[main abc1234] parse"),
        ("pytest tests", "==== 13 passed in 3.02s ===="),
        ("git checkout src/parse.py", ""),
        ("pytest tests", "==== 13 passed in 3.03s ===="),
    ])
    line = next(f.text for f in gather(_ctx(t, "/repo")) if f.text.startswith("`pytest tests`"))
    assert "reverted" not in line, line


# --- the modified files -----------------------------------------------------------------------------------------

def test_an_edit_exported_without_its_text_says_the_agents_words_on_its_own_line() -> None:
    """bastion r37/r52: Claude Code's export kept `edit {'file_path': 'README.md'}` and nothing else; the line
    "`README.md`: edited (r37, r52)" was all a 1,800-token document had room for, and "what two fixes were made
    to README.md?" got "exact edits not detailed". The agent's words said them: the line itself says them
    briefly (the list is kept whatever the budget), whole when there is room."""
    msgs = [Message(0, Role.USER, "Why does it still say Bastion V2 in the readme?")]
    for i, said in enumerate(['Let me just replace "Bastion v2" with "Bastion" in both places on that line.',
                              "Now let me also fix the outdated program ID in README.md. The README still says "
                              "BaStion1111 but the actual program ID is BaSZuLcwjfh75T3TjbVYpTH4qpJt1tNoZ3S6PTkvNhCb."]):
        call = ToolCall("edit", {"file_path": "README.md"}, f"e{i}", ToolKind.EDIT, path="README.md")
        msgs.append(Message(len(msgs), Role.ASSISTANT, said, [call]))
        msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult("ok", call.id, call.name)]))
    t = Transcript("s.json", "test", msgs, group_rounds(msgs))
    fact = next(f for f in gather(_ctx(t, "/repo", target=1500)) if f.section is Section.MODIFIED)
    assert fact.text.startswith('`README.md`: edited — r1: “Let me just replace "Bastion v2" with "Bastion" in both')
    assert len(fact.text) < len(fact.full_text) and "BaSZuLcwjfh75T3TjbVYpTH4qpJt1tNoZ3S6PTkvNhCb" in fact.full_text
    assert fact.short == "`README.md`: edited (r1, r2)"  # the code review's: the words give way, "edited" stays


# --- the change records -----------------------------------------------------------------------------------------

def test_definitions_the_final_diff_shows_gone_are_said_with_their_count() -> None:
    """sympy: eight classes' `__ne__` were removed by `sed -i '692,694d'` and the like, calls that hold no text;
    the record said "return False → return NotImplemented" twice and nothing of the removals, and "which `__ne__`
    methods were removed" got "the document doesn't list all". The final diff shows each `- def __ne__`."""
    from compaction.edits import Hunk
    from compaction.history.sources.changes import _net_drops

    net = tuple(Hunk(removed=("    def __ne__(self, other):", "        return not self == other"), added=(),
                     context="def __eq__(self, other):") for _ in range(8))
    net += (Hunk(removed=("    def old_name(self):",), added=("    def old_name(self, x):",)),)  # changed, kept
    assert _net_drops(net) == "drops `__ne__` ×8"
    assert _net_drops((Hunk(removed=("x = 1",), added=("x = 2",)),)) == ""
    # the code review's: what the record's own drops or renames say is not said again
    assert _net_drops(net, "A: drops __ne__; renames getName → get_name") == ""


def test_two_edits_said_alike_are_said_once_on_the_records_line() -> None:
    """sympy r13: four `sed -i 'Ns/raise TypeError.*/return NotImplemented/'` read "raise TypeError.* → return
    NotImplemented; raise TypeError.* → return NotImplemented" on a line with room for little else."""
    sed = " && \\\n".join(f"sed -i '{n}s/raise TypeError.*/return NotImplemented/' expr.py" for n in (251, 273, 295))
    t = _run_session("Return NotImplemented from the comparisons.", [(sed, "")])
    record = next(f.text for f in gather(_ctx(t, "/repo")) if f.section is Section.CHANGES and "expr.py" in f.text)
    assert record.count("raise TypeError.* → return NotImplemented") == 1, record


def test_a_sed_script_of_several_substitutions_is_read_as_several() -> None:
    """`sed -i '250s/a/b/;272s/c/d/' f` read as one substitution of `a` by "b/;272s/c/d": a replacement never
    holds its delimiter unescaped; one that holds a `;` (`s/a/b;c/`) stays one."""
    from compaction.edits import sed_hunks

    def said(command: str) -> list[tuple[tuple[str, ...], tuple[str, ...], str | None]]:
        return [(h.removed, h.added, h.context) for change in sed_hunks(command) for h in change.hunks]

    assert said("sed -i '250s/raise TypeError.*/return NotImplemented/;272s/x/y/g' expr.py") == [
        (("raise TypeError.*",), ("return NotImplemented",), "line 250"), (("x",), ("y",), "line 272")]
    assert said("sed -i 's/a/b;c/g' f.py") == [(("a",), ("b;c",), None)]
    assert said(r"sed -i 's/a\/b/c/' f.py") == [(("a/b",), ("c",), None)]  # an escaped delimiter is text
    # the code review's: each `s` command read by its delimiters, a `;` inside one kept
    assert said("sed -i 's/return x;/return y;/; s/int a;/long a;/' calc.c") == [
        (("return x;",), ("return y;",), None), (("int a;",), ("long a;",), None)]


# --- what is a test run -------------------------------------------------------------------------------------------

def test_a_look_up_naming_a_runner_or_a_runners_file_read_runs_no_test() -> None:
    """requests r29: `pip list | grep pytest-httpbin` was a test run (and drew the test-run notes); `cat tox.ini`
    and `cat pytest.ini` were too, by the runner's name in the file's."""
    from compaction.events import is_test_command

    for command in ("pip list | grep pytest-httpbin", "grep -rn pytest setup.cfg", "cat tox.ini", "cat pytest.ini",
                    "less jest.config.js"):
        assert not is_test_command(command), command
    for command in ("pytest tests/ 2>&1 | grep -E 'passed|failed'", "which pytest && pytest -q", "tox -e py39",
                    "pip install pytest-xdist && pytest", "python -m pytest -x", "py.test -q"):
        assert is_test_command(command), command
