"""What shell command lines write, edit, delete and read — without running them."""

import pytest

from compaction.events import (
    EventKind,
    is_state_changing,
    is_test_command,
    parse_test_summary,
    shell_reads,
    shell_writes,
)
from compaction.shell import code_lines, discarded, made_dirs, options, split_commands, unredirected


def _paths(cmd: str, kind: EventKind) -> list[str]:
    return [p for k, p in shell_writes(cmd) if k is kind]


def test_sed_in_place_is_an_edit():
    assert _paths("sed -i '316s/return False/return NotImplemented/' sympy/core/basic.py", EventKind.EDIT) == [
        "sympy/core/basic.py"
    ]
    cmd = "sed -i '251s/a/b/' sympy/core/expr.py && \\\nsed -i '273s/a/b/' sympy/core/numbers.py"
    assert set(_paths(cmd, EventKind.EDIT)) == {"sympy/core/expr.py", "sympy/core/numbers.py"}


def test_heredoc_cat_is_a_write_and_its_body_is_not_parsed():
    cmd = "cat <<'EOF' > reproduce.py\nimport os\nprint('a > b')\nos.remove('x.py')\nEOF"
    assert shell_writes(cmd) == [(EventKind.WRITE, "reproduce.py")]


def test_cat_redirect_before_heredoc_marker():
    assert _paths("cat > src/app.py <<EOF\nx = 1\nEOF", EventKind.WRITE) == ["src/app.py"]


def test_lines_before_a_heredoc_are_commands_and_its_target_is_not_a_read():
    cmd = "# Create the agent\ncat > ~/Library/LaunchAgents/a.plist << 'EOF'\n<plist>\ncat b.txt > c.txt\nEOF"
    assert shell_writes(cmd) == [(EventKind.WRITE, "~/Library/LaunchAgents/a.plist")]  # the body's line is data
    assert shell_reads(cmd) == []
    assert shell_reads("cat notes.md 2> err.log") == ["notes.md"]


def test_redirections_tee_mv_rm_touch():
    assert _paths("echo hi > notes.txt", EventKind.WRITE) == ["notes.txt"]
    assert _paths("python run.py 2>&1 | tee log.txt", EventKind.WRITE) == ["log.txt"]
    assert _paths("mv a.py b.py", EventKind.WRITE) == ["b.py"]
    assert _paths("mv a.py b.py", EventKind.DELETE) == ["a.py"]
    assert _paths("rm -f reproduce.py", EventKind.DELETE) == ["reproduce.py"]
    assert _paths("touch pkg/__init__.py", EventKind.WRITE) == ["pkg/__init__.py"]


def test_stderr_redirects_to_descriptors_are_not_files():
    assert shell_writes("pytest -x 2>&1") == []
    assert shell_writes("ls missing 2>/dev/null") == []


def test_git_apply_with_inline_patch():
    cmd = "git apply <<'EOF'\n--- a/lib/x.py\n+++ b/lib/x.py\n@@ -1 +1 @@\n-a\n+b\nEOF"
    assert _paths(cmd, EventKind.EDIT) == ["lib/x.py"]


def test_python_heredoc_writing_a_file():
    cmd = "python - <<'EOF'\nwith open('setup.cfg', 'w') as f:\n    f.write('x')\nEOF"
    assert _paths(cmd, EventKind.WRITE) == ["setup.cfg"]


def test_reads_and_state():
    assert shell_reads("nl -ba sympy/core/basic.py | sed -n '840,870p'") == ["sympy/core/basic.py"]
    assert shell_reads("sed -n '10,20p' src/_pytest/reports.py") == ["src/_pytest/reports.py"]
    assert is_state_changing("pip install -e .")
    assert is_state_changing("cd /testbed && git apply fix.patch")
    assert not is_state_changing("grep -rn foo src/")


def test_parse_test_summaries():
    assert parse_test_summary("...\n======= 1 failed, 13 passed in 2.31s =======\n") == "1 failed, 13 passed"
    assert parse_test_summary("Ran 12 tests in 0.5s\n\nOK\n") == "Ran 12 tests: OK"
    assert parse_test_summary("[INFO] Tests run: 5, Failures: 1, Errors: 0, Skipped: 0") == (
        "Tests run: 5, Failures: 1, Errors: 0, Skipped: 0"
    )
    assert parse_test_summary("nothing here") is None


def test_sympy_runner_summary():
    out = "============ tests finished: 99 passed, 2 expected to fail, 9 exceptions, in 2.71 seconds ============"
    assert parse_test_summary(out) == "99 passed, 2 expected to fail, 9 exceptions"


def test_decision_sentences_are_cut_whole_and_skip_code():
    from compaction.events import _DECISION_RE, _Prose, _sentences_matching

    text = ("I looked around. Instead of patching xdist, I will fix pytest. The root cause is in reports.py: "
            "it drops the chain.\n```bash\nthe fix is to\n```\nNext.")
    assert _sentences_matching(_Prose(text, 6000), _DECISION_RE) == [
        "Instead of patching xdist, I will fix pytest.",
        "The root cause is in reports.py: it drops the chain.",
    ]


def test_a_prefixed_program_reads_its_own_arguments() -> None:
    """`sudo`, `time` and `env` run the program after them: its arguments, not the prefix's, name the files."""
    assert shell_writes("sudo rm -rf build") == [(EventKind.DELETE, "build")]
    assert shell_writes("time mv a.py b.py") == [(EventKind.WRITE, "b.py"), (EventKind.DELETE, "a.py")]
    assert shell_writes("sudo git checkout src/a.py") == [(EventKind.REVERT, "src/a.py")]


def test_an_edit_refusal_is_the_tools_own_words_not_the_files_text() -> None:
    from compaction.edits import refused

    assert refused("```diff\n@@\n+x\n```\n\n```\napply_patch verification failed: Failed to find expected lines in a.md\n```")
    assert not refused('saved to tools/edit.py.\n\n<final_file_content path="tools/edit.py">\n'
                       'MSG = "String to replace not found in file"\n</final_file_content>')
    assert not refused('Wrote tools/edit.py:\n```python\nNo replacement was performed = 1\n```')


def test_a_move_into_a_directory_lands_under_the_sources_own_name():
    assert _paths("mv f.py pkg/", EventKind.WRITE) == ["pkg/f.py"]
    assert _paths("mv a.py b.py c.py pkg", EventKind.WRITE) == ["pkg/a.py", "pkg/b.py", "pkg/c.py"]
    assert _paths("mv a.py b.py c.py pkg", EventKind.DELETE) == ["a.py", "b.py", "c.py"]
    assert _paths("mv -t pkg -f a.py", EventKind.WRITE) == ["pkg/a.py"]
    assert _paths("cp /tmp/x.py .", EventKind.WRITE) == ["x.py"]
    assert _paths("mv -T old.py new.py", EventKind.WRITE) == ["new.py"]  # -T: a rename, never into


def test_git_mv_is_a_move():
    assert _paths("git mv -f a.py lib/b.py", EventKind.WRITE) == ["lib/b.py"]
    assert _paths("git mv -f a.py lib/b.py", EventKind.DELETE) == ["a.py"]
    assert _paths("git mv a.py b.py lib", EventKind.WRITE) == ["lib/a.py", "lib/b.py"]


def test_options_are_read_with_their_values_as_getopt_does():
    said = ["-vt", "dir", "-Sbak", "--target-directory=lib", "--suffix", "~", "a", "--", "-b"]
    assert list(options(said, {"-t", "-S", "--target-directory", "--suffix"})) == [
        ("-v", ""), ("-t", "dir"), ("-S", "bak"), ("--target-directory", "lib"), ("--suffix", "~"), ("", "a"),
        ("", "-b")]
    assert made_dirs("mkdir -m 755 -p src/pkg && mkdir /opt/x") == {"src", "src/pkg", "/opt", "/opt/x"}


def test_the_program_a_line_runs_is_read_past_a_package_runner():
    """`npx tsc` and `npx jest` run two programs: a retry of the one is no retry of the other."""
    from compaction.shell import program_run

    assert program_run(["npx", "tsc", "--noEmit"]) == "tsc"
    assert program_run(["npx", "--yes", "prettier", "."]) == "prettier"
    assert program_run(["pnpm", "exec", "eslint", "."]) == "eslint"
    assert program_run(["uv", "run", "pytest"]) == "pytest"
    assert program_run(["python3", "-m", "pytest", "-q"]) == "pytest"
    assert program_run(["pnpm", "build"]) == "pnpm"  # a package script: pnpm runs it
    assert program_run(["/usr/bin/node", "a.js"]) == "node"
    assert program_run(["npx", "-p", "typescript", "tsc"]) == "tsc"  # an option's value is no program
    assert program_run(["uv", "run", "python", "-m", "pytest"]) == "pytest"
    assert program_run(["poetry", "run", "mypy", "."]) == "mypy"
    assert program_run(["C:\\tools\\node.exe", "a.js"]) == "node.exe"
    assert program_run([]) == ""


@pytest.mark.parametrize("command, is_test", [
    ("pip install pytest-xdist", False),
    ("pip install -e . && pip install pytest-xdist==1.34.0", False),
    ("npm i -D vitest @vitest/coverage-v8", False),
    ("uv add --dev pytest", False),
    ("pip install pytest && pytest -q", True),
    ("npx vitest run", True),
    ("uv run pytest tests/unit", True),
    ("go get ./... && go test ./...", True),
])
def test_installing_a_test_runner_runs_no_test(command: str, is_test: bool) -> None:
    assert is_test_command(command) is is_test


def test_redirections_are_set_apart_with_their_targets():
    """One reading of where output goes, for runs, chores, checks and searches: a bare `>` takes the next
    word as its target; `2>&1` and `>/dev/null` write no file."""
    said, redirections = unredirected(["pytest", "-q", ">", "out.txt", "2>&1", "<in.sql", "tests/"])
    assert said == ["pytest", "-q", "tests/"]
    assert redirections == [">out.txt", "2>&1", "<in.sql"]
    assert [discarded(r) for r in redirections] == [False, True, False]
    assert unredirected(["grep", "-r", "x", "src", "2>/dev/null"]) == (["grep", "-r", "x", "src"], ["2>/dev/null"])


def test_clearing_up_before_the_work_is_skipped_but_a_file_written_is_work():
    assert code_lines("pkill -f server > /dev/null 2>&1\npython train.py") == ("python train.py",)
    assert code_lines("echo started > notes.txt\npython train.py")[0] == "echo started > notes.txt"


def test_a_file_read_in_by_sed_adds_the_lines_the_session_wrote_it_with():
    """mini-swe-agent's one-command turns write a snippet, then insert it by line number (`sed -i '351r
    snippet.py' python.py`): the edit adds the snippet's lines, in the same line or a later call."""
    from compaction.events import extract_events
    from compaction.model import Message, Role
    from tests.unit.synthetic import call_pair, transcript

    snippet = "cat <<'EOF' > snippet.py\n    def make_xrefs(self, rolename):\n        if not rolename:\n            return []\nEOF"
    msgs = [Message(0, Role.USER, "fix the xrefs"),
            *call_pair("bash", {"command": snippet}, "c1", ""),
            *call_pair("bash", {"command": "sed -i '351r snippet.py' sphinx/domains/python.py"}, "c2", ""),
            *call_pair("bash", {"command": "cat > s2.py <<'EOF'\nimport os\nEOF\nsed -i '1r s2.py' c.py"}, "c3", ""),
            *call_pair("bash", {"command": "sed -i '5r never_written.py' b.py"}, "c4", "")]
    edits = {e.path: e for e in extract_events(transcript(msgs)) if e.kind is EventKind.EDIT}
    [hunk] = edits["sphinx/domains/python.py"].hunks
    assert hunk.added == ("    def make_xrefs(self, rolename):", "        if not rolename:", "            return []")
    assert hunk.context == "append at 351" and hunk.reads_in is None
    assert edits["c.py"].hunks[0].added == ("import os",)  # written by the same line
    [unknown] = edits["b.py"].hunks  # a file the session never wrote: where, not what
    assert unknown.added == () and unknown.reads_in == "never_written.py"


def test_the_lines_after_a_heredoc_are_commands_again():
    """A script written and run in one call: the body is data, the line after its closing word runs."""
    cmd = "cat <<'EOF' > check.py\nprint(1 << 2)\nEOF\npython3 check.py < cases.txt > out.txt && cat out.txt"
    assert shell_writes(cmd) == [(EventKind.WRITE, "check.py"), (EventKind.WRITE, "out.txt")]
    assert shell_reads(cmd) == ["out.txt"]
    assert split_commands("cat > t.sh <<-END\n\techo hi\n\tEND\nbash t.sh") == ["cat > t.sh <<-END", "bash t.sh"]
    assert shell_writes("cat > a.txt <<EOF\nnever closed\nrm important.py") == [(EventKind.WRITE, "a.txt")]


def test_a_temporary_file_moved_over_a_file_replaces_it():
    """`python3 fix.py < basic.py > basic.py.tmp && mv basic.py.tmp basic.py` (mini-swe-agent's sympy):
    the temporary file is written, then moved away; the file keeps its own history first, one more edit."""
    from compaction.events import extract_events
    from compaction.history.sources.changes import records
    from compaction.history.sources.registry import FactContext
    from compaction.history.steering import role_preset
    from compaction.model import Message, Role
    from tests.unit.synthetic import call_pair, transcript

    cmd = "python3 fix.py < sympy/core/basic.py > sympy/core/basic.py.tmp && mv sympy/core/basic.py.tmp sympy/core/basic.py"
    assert shell_writes(cmd) == [(EventKind.WRITE, "sympy/core/basic.py.tmp"), (EventKind.WRITE, "sympy/core/basic.py"),
                                 (EventKind.DELETE, "sympy/core/basic.py.tmp")]
    msgs = [Message(0, Role.USER, "make __ne__ return NotImplemented"),
            *call_pair("bash", {"command": "sed -i 's/return False/return NotImplemented/' sympy/core/basic.py"}, "c1", ""),
            *call_pair("bash", {"command": cmd}, "c2", "")]
    t = transcript(msgs)
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), t.cwd, len(t.rounds))
    text = records(ctx)["sympy/core/basic.py"].text
    assert "(2 edits)" in text and "created" not in text  # rewritten through a copy beside it: no rename (session 50)
    assert "renamed from" not in text
    assert "return False` → `return NotImplemented" in text or "return False → return NotImplemented" in text


def test_heredoc_bodies_are_skipped_one_by_one_to_their_own_closing_line():
    """Several heredocs on one line, a tab-indented `<<-` inside a script written with `<<`, a here-string:
    no line of a body is ever read as a command."""
    two = "cat <<A > a.txt; cat <<B > b.txt\nalpha\nA\nrm -rf important.py\nB\nls"
    assert split_commands(two) == ["cat <<A > a.txt", "cat <<B > b.txt", "ls"]
    assert (EventKind.DELETE, "important.py") not in shell_writes(two)
    nested = "cat > deploy.sh <<'EOF'\nsetup() {\n\tcat > app.conf <<-EOF\n\tport=80\n\tEOF\n\trm -rf build\n}\nEOF\nbash deploy.sh"
    assert split_commands(nested) == ["cat > deploy.sh <<'EOF'", "bash deploy.sh"]
    assert split_commands('grep x <<< "$v"\nrm c.py') == ['grep x <<< "$v"', "rm c.py"]
    assert split_commands("cat > .gitignore << 'IGNORE'\n*.log\nIGNORE\ngit add .gitignore")[-1] == "git add .gitignore"
    assert unredirected(["cat", ">", ".gitignore", "<<", "'IGNORE'"]) == (["cat"], [">.gitignore", "<<'IGNORE'"])


def test_a_snippet_is_read_in_only_with_lines_the_session_still_knows():
    """Two files of one name: the name alone picks neither; a snippet edited in part since it was written
    is no longer known whole."""
    from compaction.events import extract_events
    from compaction.model import Message, Role
    from tests.unit.synthetic import call_pair, transcript

    msgs = [Message(0, Role.USER, "splice the snippets"),
            *call_pair("bash", {"command": "cat > snippet.py <<'EOF'\nA = 1\nEOF"}, "c1", ""),
            *call_pair("bash", {"command": "cat > lib/snippet.py <<'EOF'\nB = 2\nEOF"}, "c2", ""),
            *call_pair("bash", {"command": "sed -i '3r snippet.py' main.py"}, "c3", ""),
            *call_pair("bash", {"command": "sed -i '3r other/snippet.py' two.py"}, "c4", ""),
            *call_pair("bash", {"command": "sed -i 's/A = 1/A = 9/' snippet.py"}, "c5", ""),
            *call_pair("bash", {"command": "sed -i '4r snippet.py' three.py"}, "c6", "")]
    edits = {e.path: e for e in extract_events(transcript(msgs)) if e.kind is EventKind.EDIT}
    assert edits["main.py"].hunks[0].added == ("A = 1",)  # its own path
    assert edits["two.py"].hunks[0].added == ()  # by name: two files are called so
    assert edits["three.py"].hunks[0].added == () and edits["three.py"].hunks[0].reads_in == "snippet.py"


def test_where_output_goes_is_no_file_read():
    """cc-bastion's `cat .gitignore .git/info/exclude 2>/dev/null` listed `2>/dev/null` among the files read."""
    assert "2>/dev/null" not in shell_reads("cat .git/info/exclude 2>/dev/null")
    assert shell_reads("head -5 src/a.py > out.txt") == ["src/a.py"]


def test_running_the_sessions_own_script_that_rewrites_a_project_file_edits_it():
    """matplotlib-25311 changed `offsetbox.py` by running `python update_offsetbox.py`, a script it wrote
    that opens the module for writing: an edit of the module, by running the script. A file the script
    writes that the session never named (its output) is no change of the project."""
    from compaction.events import extract_events
    from compaction.model import Message, Role
    from tests.unit.synthetic import call_pair, transcript

    script = ("cat <<'EOF' > update_box.py\nwith open('lib/box.py') as f:\n    text = f.read()\n"
              "with open('lib/box.py', 'w') as f:\n    f.write(text.replace('a', 'b'))\n"
              "open('out.txt', 'w').write('done')\nEOF")
    msgs = [Message(0, Role.USER, "fix the box"),
            *call_pair("bash", {"command": "cat lib/box.py"}, "c1", "a = 1"),
            *call_pair("bash", {"command": script}, "c2", ""),
            *call_pair("bash", {"command": "python update_box.py"}, "c3", "")]
    edits = [(e.path, e.command) for e in extract_events(transcript(msgs)) if e.kind is EventKind.EDIT]
    assert edits == [("lib/box.py", "python update_box.py")]


def test_go_tests_every_package_counts_a_cached_result_too_and_failures_come_first():
    out = ("ok  \tgithub.com/x/cli\t0.256s\n?   \tgithub.com/x/cli/pkg/a\t[no test files]\n"
           "ok  \tgithub.com/x/cli/pkg/cloud\t(cached)\nFAIL\tgithub.com/x/cli/pkg/spi\t0.753s\n"
           "ok  \tgithub.com/x/cli/pkg/utils\t0.876s  coverage: 81.2% of statements\n")
    assert parse_test_summary(out) == "FAIL pkg/spi; ok 3 packages: ., pkg/cloud, pkg/utils"
    many = "".join(f"ok  \texample.com/m/p{i}\t(cached)\n" for i in range(6))
    assert parse_test_summary(many) == "ok 6 packages: p0, p1, p2, p3, …"


def test_cargo_tests_binaries_are_added_up_not_the_last_ones_alone():
    one = "test result: ok. 15 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s\n"
    assert parse_test_summary(one) == "ok 15 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s"
    many = ("test result: ok. 21 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.2s\n"
            "test result: FAILED. 7 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.1s\n" + one)
    assert parse_test_summary(many) == "FAILED 43 passed; 1 failed; 1 ignored in 3 test binaries"
