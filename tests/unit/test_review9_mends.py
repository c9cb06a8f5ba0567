"""What seven blind readers of 10% hand-overs found about the errors and the state at the end (session
45): a missed path read as unresolved though the session found the file elsewhere, a retry at another
path read as "the same call", a harness's output-too-long note read as a fault left, advice to re-run a
reproduction the session had deleted, a reproduction whose output the fix changed read as the bug
still there, nine lines of `cat <<'EOF' > x.py` with no outcome, a commit someone else made read as
work left to commit, and a search that located nothing took the decisions' first place."""

from __future__ import annotations

from compaction.errors.scan import _new_error_lines, scan_transcript
from compaction.events import extract_events
from compaction.history.sources import FactContext
from compaction.history.sources.completed import completed_facts
from compaction.history.sources.exploration import exploration_facts
from compaction.history.sources.open_choices import open_choice_facts
from compaction.history.sources.uncommitted import uncommitted_facts
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds


class _Session:
    """A session built call by call: each `run` or `call` is one round of a call and its output."""

    def __init__(self, request: str = "fix the parser", cwd: str | None = None) -> None:
        self.msgs: list[Message] = [Message(0, Role.USER, request)]
        self.cwd = cwd

    def say(self, role: Role, text: str) -> _Session:
        self.msgs.append(Message(len(self.msgs), role, text))
        return self

    def run(self, command: str, output: str = "", exit_code: int = 0) -> _Session:
        return self.call("bash", {"command": command}, ToolKind.SHELL, output, exit_code != 0, command=command,
                         exit_code=exit_code)

    def call(self, name: str, args: dict, kind: ToolKind, output: str, error: bool = False, path: str | None = None,
             command: str | None = None, exit_code: int | None = None) -> _Session:
        cid = f"c{len(self.msgs)}"
        self.msgs.append(Message(len(self.msgs), Role.ASSISTANT, "",
                                 tool_calls=[ToolCall(name, args, cid, kind, command=command, path=path)]))
        self.msgs.append(Message(len(self.msgs), Role.TOOL, tool_results=[
            ToolResult(output, cid, name, is_error=error, exit_code=exit_code)]))
        return self

    def transcript(self) -> Transcript:
        t = Transcript("t.json", "test", self.msgs, group_rounds(self.msgs))
        t.cwd = self.cwd
        return t

    def ctx(self) -> FactContext:
        t = self.transcript()
        return FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"),
                           cwd=self.cwd, n_rounds=len(t.rounds), target_tokens=4000)


def _record(t: Transcript, err_id: str):
    return next(r for r in scan_transcript(t) if r.id == err_id)


def test_a_missed_path_then_the_file_named_at_another_place_says_where_it_is():
    s = _Session("add the overload", cwd="/home/repo")
    s.call("str_replace_editor", {"command": "view", "path": "/home/repo/src/main/java/com/x/JSON.java"}, ToolKind.READ,
           "ERROR:\nInvalid `path` parameter: /home/repo/src/main/java/com/x/JSON.java. The path "
           "/home/repo/src/main/java/com/x/JSON.java does not exist.", error=True,
           path="/home/repo/src/main/java/com/x/JSON.java")
    s.run("grep -n 'parseObject' /home/repo/core/src/main/java/com/x/JSON.java", "1265:    public static <T> T parseObject(")
    rec = _record(s.transcript(), "ERR_TOOL_FileNotFound")
    assert "it is at `core/src/main/java/com/x/JSON.java` (r2)" in rec.solution
    assert "no fix seen" not in rec.solution


def test_a_missed_file_found_by_a_search_under_another_folder_says_where_it_is():
    s = _Session("compare the sets")
    s.run("ls sympy/core/sets.py", "ls: cannot access 'sympy/core/sets.py': No such file or directory", 2)
    s.run("find . -name sets.py", "./sympy/sets/sets.py\n")
    rec = _record(s.transcript(), "ERR_TOOL_FileNotFound")
    assert "it is at `sympy/sets/sets.py` (r2)" in rec.solution
    # a folder's name is borne by too many places: no guess of where it is
    s = _Session("compare the sets")
    s.run("ls src/main", "ls: cannot access 'src/main': No such file or directory", 2)
    s.run("ls core/src/main", "java\n")
    assert "it is at" not in (_record(s.transcript(), "ERR_TOOL_FileNotFound").solution or "")


def _read_retried(missed: str, then: str, cwd: str) -> str:
    """The solution of a read that missed `missed`, then a read of `then` that worked."""
    s = _Session("read the file", cwd=cwd)
    s.call("read", {"path": missed}, ToolKind.READ, f"ENOENT: no such file or directory, access '{missed}'", error=True,
           path=missed)
    s.call("read", {"path": then}, ToolKind.READ, "<h1>pi</h1>", path=then)
    return _record(s.transcript(), "ERR_TOOL_FileNotFound").solution or ""


def test_a_read_retried_at_another_path_names_the_path_that_worked():
    missed, found = "/Users/me/workspaces/app/website/src/index.html", "/Users/me/workspaces/website/src/index.html"
    # too long to show as a changed argument: the path that worked is said as the place of the same call
    assert f"then the same call on `{found}` succeeded (r2)" in _read_retried(missed, found, "/Users/me/workspaces/app")


def test_an_output_too_long_note_then_narrowed_commands_is_no_fault_left():
    s = _Session()
    s.run("cat src/big.py", "<returncode>0</returncode>\n<warning>\nThe output of your last command was too long.\n"
          "Please try a different command that produces less output.\n</warning>")
    s.run("sed -n '120,140p' src/big.py", "    def parse(self):\n        return 1\n")
    rec = _record(s.transcript(), "ERR_TOOL_OutputTooLong")
    assert rec.solution == "then it printed parts only: `sed -n '120,140p' src/big.py` (r2)"


def _reproduction_advice(*after: str) -> str:
    """The avoidance of a target bug a reproduction showed, fixed, then the commands `after`."""
    s = _Session("Unable to convert: PixelRepresentation is missing for float pixel data")
    s.run("cat > reproduce_bug.py << 'EOF'\nimport x\nEOF", "")
    s.run("python reproduce_bug.py", "Traceback (most recent call last):\n  File \"reproduce_bug.py\", line 1\n"
          "AttributeError: Unable to convert the pixel data: missing PixelRepresentation", 1)
    s.call("edit", {"path": "handler.py", "old_str": "'PixelRepresentation',", "new_str": ""}, ToolKind.EDIT, "ok",
           path="handler.py")
    s.run("python reproduce_bug.py", "True")
    for command in after:
        s.run(command, "")
    return next(r.avoidance for r in scan_transcript(s.transcript()) if "re-run" in (r.avoidance or ""))


def test_advice_to_rerun_a_reproduction_the_session_deleted_says_so():
    assert _reproduction_advice("rm reproduce_bug.py").endswith(
        "(`reproduce_bug.py` was deleted at r5: write it again first)")
    # written again after its removal: the advice stands as it is
    assert "was deleted" not in _reproduction_advice("rm reproduce_bug.py", "cat > reproduce_bug.py << 'EOF'\nimport x\nEOF")


def test_a_reproduction_that_raises_by_design_says_what_its_output_gained():
    before = "E   ValueError: 13\nE   ValueError: 23\n"
    after = ("E   ValueError: 11\nThe above exception was the direct cause of the following exception:\n"
             "E   ValueError: 12\nE   ValueError: 13\n")
    assert _new_error_lines(before, after) == [
        "ValueError: 11", "The above exception was the direct cause of the following exception:", "ValueError: 12"]
    assert _new_error_lines(before, before) == []
    assert _new_error_lines("", after) == []  # nothing to compare with: no claim of a change


def test_scratch_scripts_written_and_removed_are_one_line_with_what_each_printed():
    s = _Session("reject http://.example.com")
    s.run("cat <<'EOF' > check_url.py\nprint('Host: .example.com')\nEOF\npython3 check_url.py", "Scheme: http\n"
          "Host: .example.com\n")
    s.run("cat <<'EOF' > check_idna.py\nimport idna\nEOF", "")
    s.run("python3 check_idna.py", "IDNAError: Empty Label\n", 1)
    s.run("sed -i 's/a/b/' requests/models.py", "")
    s.run("rm check_url.py check_idna.py", "")
    texts = [f.text for f in completed_facts(s.ctx())]
    # each by its command's first line (what was run), then what its script printed (a short output whole)
    # the round that wrote it, then what it printed (run there or by a later line)
    assert "Scratch files written, removed later: `cat <<'EOF' > check_url.py …` (r1) → Scheme: http · Host: " \
           ".example.com; " \
           "`cat <<'EOF' > check_idna.py …` (r2) → IDNAError: Empty Label" in texts, texts
    assert not any(t.startswith("`cat <<'EOF'") for t in texts)  # no line of their own
    assert any(t.startswith("`sed -i 's/a/b/' requests/models.py`") for t in texts)  # the work's own line stays


def test_a_commit_someone_else_made_after_the_sessions_last_is_said_and_closes_the_commit_choice():
    s = _Session("document the hooks")
    s.call("edit", {"path": "docs/hooks.md", "old_str": "a", "new_str": "b"}, ToolKind.EDIT, "ok", path="docs/hooks.md")
    s.run("git commit -am 'Improve hook docs'", "[main 5e5bdad] Improve hook docs\n 1 file changed, 1 insertion(+)")
    s.call("edit", {"path": "README.md", "old_str": "a", "new_str": "b"}, ToolKind.EDIT, "ok", path="README.md")
    s.say(Role.ASSISTANT, "Should we commit what we have, or continue with rpc.md?")
    s.say(Role.USER, "write a little poem instead")
    s.say(Role.ASSISTANT, "Roses are red.")
    s.run("git log --oneline -3", "3424550 Improve documentation: README settings table\n5e5bdad Improve hook docs\n"
          "5cc0126 Include examples/ folder")
    ctx = s.ctx()
    texts = [f.text for f in uncommitted_facts(ctx)]
    assert any(t.startswith("Committed outside the session (`git log`, r5): 3424550 “Improve documentation: README "
                            "settings table”, after the session's last commit 5e5bdad") for t in texts), texts
    choice = open_choice_facts(ctx)
    assert choice and "since then committed outside the session (r5)" in choice[0].text
    # a log that does not list the session's own commit says nothing of which commits are newer
    s.msgs[-1].tool_results[0].content = "3424550 Improve documentation\n1111111 Older work"
    assert not any(f.text.startswith("Committed outside") for f in uncommitted_facts(s.ctx()))


def test_searches_that_located_no_changed_file_are_no_decision_ahead():
    s = _Session("count the tests")
    s.run("rg -c '#\\[test\\]' tests", "")
    s.run("grep -l 'test' tests/*.rs", "tests/a.rs\ntests/b.rs\n")
    s.call("edit", {"path": "Cargo.toml", "old_str": "0.2.0", "new_str": "0.3.0"}, ToolKind.EDIT, "ok", path="Cargo.toml")
    facts = exploration_facts(s.ctx())
    assert facts and facts[0].text.startswith("Searched") and facts[0].priority is None and facts[0].score == 41


def test_each_earlier_miss_of_a_file_says_where_it_was_found_before_the_next_miss():
    s = _Session("update the changelog and the site")
    s.run("head CHANGELOG.md", "head: CHANGELOG.md: No such file or directory", 1)
    s.run("find . -name CHANGELOG.md -not -path '*/node_modules/*'", "./packages/agent/CHANGELOG.md\n")
    s.run("tail /tmp/server.log", "tail: cannot open '/tmp/server.log' for reading: No such file or directory", 1)
    s.run("python serve.py &>/tmp/server.log &", "")  # the same place, a redirection glued to it: not elsewhere
    rec = _record(s.transcript(), "ERR_TOOL_FileNotFound")
    assert rec.earlier == [((1,), "`head: CHANGELOG.md: No such file or directory` — it is at "
                                  "`packages/agent/CHANGELOG.md` (r2)")]
    assert "it is at" not in (rec.solution or "")


def test_an_install_that_swapped_the_checkouts_own_build_says_so():
    s = _Session("chained exceptions are lost under xdist")
    s.run("pip install pytest-xdist", "  Attempting uninstall: pytest\n    Uninstalling pytest-5.1.2.dev12+g955e54221:\n"
          "      Successfully uninstalled pytest-5.1.2.dev12+g955e54221\nSuccessfully installed pytest-8.4.2 "
          "pytest-xdist-3.8.0\n")
    s.run("pip install -e .", "    Uninstalling pytest-8.4.2:\n      Successfully uninstalled pytest-8.4.2\n"
          "Successfully installed pytest-5.1.2.dev12+g955e54221\n")
    s.run("pip install -e .", "    Uninstalling pytest-5.1.2.dev12+g955e54221:\n"
          "Successfully installed pytest-5.1.2.dev12+g955e54221\n")  # put back at once: nothing swapped
    texts = [f.text for f in completed_facts(s.ctx())]
    assert any(t.startswith("`pip install pytest-xdist` → Successfully installed pytest-8.4.2 pytest-xdist-3.8.0 (it "
                            "uninstalled the checkout's own build `pytest-5.1.2.dev12+g955e54221`)") for t in texts), texts
    assert sum("checkout's own build" in t for t in texts) == 1


def test_last_calls_with_no_result_that_lack_the_argument_a_refused_call_needed_say_so():
    from compaction.history.sources.current import current_work

    def shell(s: _Session, command: str, output: str | None, **extra: str) -> None:
        cid = f"c{len(s.msgs)}"
        call = ToolCall("shell_command", {"command": command, **extra}, cid, ToolKind.SHELL, command=command)
        s.msgs.append(Message(len(s.msgs), Role.ASSISTANT, "", tool_calls=[call]))
        if output is not None:
            s.msgs.append(Message(len(s.msgs), Role.TOOL, tool_results=[ToolResult(output, cid, "shell_command",
                                                                                      exit_code=0)]))

    s = _Session("help me apply for the grant")
    cid = "c1"
    s.msgs.append(Message(1, Role.ASSISTANT, "", tool_calls=[
        ToolCall("shell_command", {"command": "Get-ChildItem"}, cid, ToolKind.SHELL, command="Get-ChildItem")]))
    s.msgs.append(Message(2, Role.TOOL, tool_results=[ToolResult(
        'execution error: windows sandbox: runner error: CreateProcessAsUserW failed: 1312', cid, "shell_command",
        is_error=True)]))
    shell(s, "Get-ChildItem", "README.md\npackage.json", sandbox_permissions="require_escalated")
    s.say(Role.USER, "go on")
    shell(s, "Get-Content -Path package.json", None)
    shell(s, "git remote -v", None, sandbox_permissions="require_escalated")
    t = s.transcript()
    ctx = FactContext(transcript=t, events=extract_events(t), records=scan_transcript(t),
                      preset=role_preset("developer"), cwd=None, n_rounds=len(t.rounds), target_tokens=4000)
    last = next(f.text for f in current_work(ctx) if f.text.startswith("Last calls"))
    assert "`Get-Content -Path package.json` (no result seen; no `sandbox_permissions`)" in last
    # said outright, not left to be read from the others' lack (an answerer took "no `sandbox_permissions`" of
    # the later calls as said of the first: a confident wrong answer in exam 37)
    assert "`git remote -v` (no result seen; with `sandbox_permissions: require_escalated`)" in last
    assert last.endswith("run those without it again with `sandbox_permissions: require_escalated`: the refused "
                         "call of r1 needed it")


def test_line_addressed_edits_run_top_down_in_one_command_are_the_cause_of_the_break():
    s = _Session("return NotImplemented")
    s.run("sed -i '1275,1276d' sympy/core/numbers.py && sed -i '2111,2112d' sympy/core/numbers.py", "")
    s.run("python -c 'import sympy'", 'Traceback (most recent call last):\n  File "/testbed/sympy/core/numbers.py", '
          "line 2111\n    except SympifyError:\n    ^\nSyntaxError: invalid syntax", 1)
    rec = _record(s.transcript(), "ERR_PY_SyntaxError")
    assert "cause: its line-addressed edits ran one after another, top-down (`sed -i '1275,1276d' " in rec.solution
    assert rec.avoidance.startswith("edit one file at several line numbers bottom-up (the highest first)")
    # bottom-up, or in one sed run (its addresses are the input's lines), nothing moves
    for command in ("sed -i '2111,2112d' sympy/core/numbers.py && sed -i '1275,1276d' sympy/core/numbers.py",
                    "sed -i -e '1275,1276d' -e '2111,2112d' sympy/core/numbers.py"):
        s = _Session("return NotImplemented")
        s.run(command, "")
        s.run("python -c 'import sympy'", 'Traceback (most recent call last):\n  File "/testbed/sympy/core/numbers.py",'
              " line 2111\n    except SympifyError:\n    ^\nSyntaxError: invalid syntax", 1)
        assert "top-down" not in (_record(s.transcript(), "ERR_PY_SyntaxError").solution or "")


# ---------------------------------------------------------------- the code review's triggering inputs (d7fdc10)

def _miss_then(*calls: tuple[str, str], cwd: str | None = None, missed: str = "config.py") -> str:
    s = _Session("load the settings", cwd=cwd)
    s.run(f"cat {missed}", f"cat: {missed}: No such file or directory", 1)
    for command, output in calls:
        s.run(command, output)
    return _record(s.transcript(), "ERR_TOOL_FileNotFound").solution or ""


def test_only_a_read_or_a_listing_says_where_a_missed_file_is():
    traceback = 'Traceback (most recent call last):\n  File "/usr/lib/python3.11/logging/config.py", line 3\nValueError: x'
    for command, output in (("python run.py", traceback), ("git diff", "diff --git a/src/pkg/config.py b/src/pkg/config.py"),
                            ("ls packages/*/config.py", "ls: nothing"), ("curl https://example.com/docs/config.py", "ok"),
                            ("python serve.py > logs/config.py", "")):
        assert "it is at" not in _miss_then((command, output)), command
    assert "it is at `app/config.py` (r2)" in _miss_then(("find . -name config.py", "./app/config.py"))
    assert "it is at `app/config.py` (r2)" in _miss_then(("cd app && head -3 config.py", "DEBUG = 1"))
    # a Windows path spelled from the drive is the place that was missed, not another one
    assert "it is at" not in _miss_then(("Get-Content C:\\Users\\me\\proj\\src\\config.py", "DEBUG = 1"),
                                        cwd="C:\\Users\\me\\proj", missed="src\\config.py")


def test_the_last_miss_alone_is_answered_by_where_a_file_was_found():
    s = _Session("load the data")
    s.run("cat config.yaml", "cat: config.yaml: No such file or directory", 1)
    s.run("cat data.csv", "cat: data.csv: No such file or directory", 1)
    s.run("ls conf/config.yaml", "conf/config.yaml")
    assert "it is at" not in (_record(s.transcript(), "ERR_TOOL_FileNotFound").solution or "")


def test_a_retry_on_another_file_is_no_place_of_the_missed_one():
    said = _read_retried("/repo/settings/production_overrides.py", "/repo/docs/architecture/overview_of_the_system.md",
                         "/repo")
    assert "same call on" not in said


def test_a_commit_the_session_may_have_made_or_a_log_of_another_ref_is_not_outside():
    def ended(*steps: tuple[str, str]) -> list[str]:
        s = _Session("document the hooks")
        s.run("git commit -am 'Hook docs'", "[main 5e5bdad] Hook docs\n 1 file changed")
        for command, output in steps:
            s.run(command, output)
        return [f.text for f in uncommitted_facts(s.ctx()) if f.text.startswith("Committed outside")]

    assert not ended(("git commit -qam 'Update README'", ""), ("git log --oneline -2", "9abc123 Update README\n5e5bdad x"))
    assert not ended(("git log --oneline origin/main -2", "9abc123 Teammate\n5e5bdad Hook docs"))
    full = ended(("git log -2", "commit 9abc1234\nAuthor: A <a@b>\nDate: today\n\n    Teammate work\n\n"
                                "commit 5e5bdad0\nAuthor: A\n\n    Hook docs\n"))
    assert full and "9abc123 “Teammate work”" in full[0]
    assert ended(("git log --oneline --graph -2", "* 9abc123 (HEAD -> main) Teammate\n* 5e5bdad Hook docs"))


def test_a_commit_choice_is_not_closed_by_an_outside_commit_seen_before_it_was_asked():
    s = _Session("document the hooks")
    s.run("git commit -am 'Hook docs'", "[main 5e5bdad] Hook docs\n 1 file changed")
    s.run("git log --oneline -2", "9abc123 Teammate\n5e5bdad Hook docs")
    s.call("edit", {"path": "README.md", "old_str": "a", "new_str": "b"}, ToolKind.EDIT, "ok", path="README.md")
    s.say(Role.ASSISTANT, "Should I commit the README change?")
    s.say(Role.USER, "later")
    s.run("git log --oneline -2", "9abc123 Teammate\n5e5bdad Hook docs")
    choice = open_choice_facts(s.ctx())
    assert choice and "committed outside" not in choice[0].text


def test_scratch_lines_keep_a_script_that_rewrites_files_and_attribute_output_by_path():
    s = _Session("make it picklable")
    s.run("cat <<'EOF' > apply_fix.py\ns = open('lib/a.py').read()\nopen('lib/a.py', 'w').write(s)\nEOF\n"
          "python3 apply_fix.py", "")
    s.run("cat <<'EOF' > check.py\nprint('ok')\nEOF", "")
    s.run("python tests/check.py", "OTHER FILE OUTPUT")
    s.run("python check.py", "/x.py:3: DeprecationWarning: old\n  return not self.__eq__(other)\nchecked: ok\n"
                             "/x.py:9: DeprecationWarning: again\n  return 1\n")
    s.run("rm apply_fix.py check.py", "")
    texts = [f.text for f in completed_facts(s.ctx())]
    assert any(t.startswith("`cat <<'EOF' > apply_fix.py") for t in texts), texts  # the fix: a line of its own
    scratch = next(t for t in texts if t.startswith("Scratch"))
    assert "apply_fix.py" not in scratch and "`cat <<'EOF' > check.py …` (r2) → checked: ok" in scratch


def test_new_error_lines_ignore_an_objects_address():
    assert _new_error_lines("ValueError: cannot convert <Obj at 0x7f3a2b1c0d90>",
                            "ValueError: cannot convert <Obj at 0x7f99aa11bb20>") == []


def test_a_deleted_reproduction_is_the_advised_one_at_its_own_place_and_still_gone():
    assert "was deleted" in _reproduction_advice("rm reproduce_bug.py")
    assert "was deleted" not in _reproduction_advice("rm -f /tmp/scratch/reproduce_bug.py")
    assert "was deleted" not in _reproduction_advice("rm reproduce_bug.py; git checkout -- reproduce_bug.py")


def test_a_quiet_install_or_a_failed_range_is_no_narrowed_output():
    for command, output in (("pip install -q numpy", ""), ("sed -n '1,20p' missing.py",
                                                           "sed: can't read missing.py: No such file or directory")):
        s = _Session()
        s.run("cat src/big.py", "<warning>\nThe output of your last command was too long.\n</warning>")
        s.run(command, output)
        assert "printed parts only" not in (_record(s.transcript(), "ERR_TOOL_OutputTooLong").solution or ""), command


def test_a_nightly_wheel_replaced_is_no_checkouts_own_build():
    s = _Session("pin torch")
    s.run("pip install torch==2.4.0", "    Uninstalling torch-2.5.0.dev20240801:\nSuccessfully installed torch-2.4.0\n")
    assert not any("checkout's own build" in f.text for f in completed_facts(s.ctx()))


def test_an_argument_a_read_retry_added_is_not_asked_of_later_calls():
    from compaction.errors.records import ErrorRecord, Occurrence
    from compaction.history.sources.current import needed_arguments

    read = ErrorRecord("ERR_TOOL_InvalidArgument", [Occurrence(1)])
    read.solution = "then the same call rerun with `limit: 200` succeeded (r2)"
    sandbox = ErrorRecord("ERR_TOOL_SandboxDenied", [Occurrence(1)])
    sandbox.solution = "then the same command rerun with `sandbox_permissions: require_escalated` succeeded (r2)"
    assert needed_arguments([read]) == {}
    assert needed_arguments([sandbox]) == {"sandbox_permissions": ("require_escalated", 1)}


def test_a_refused_search_block_says_what_the_file_lacks_and_that_the_users_edits_came_first():
    s = _Session("write generator versions")
    refusal = ("## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in src/filter.ts\n"
               "<<<<<<< SEARCH\n  return yes;\n}\n\n/* @__NO_SIDE_EFFECTS__ */\nexport async function f(\n=======\n"
               "  return yes;\n}\n>>>>>>> REPLACE\n\nDid you mean to match some of these actual lines from src/filter.ts?\n\n"
               "```\n  return yes;\n}\n\nexport async function f(\n```\n")
    cid = "c1"
    s.msgs.append(Message(1, Role.TOOL, "> Committing src/filter.ts before applying edits.\n> Commit 4ab3df9 chore: x"))
    s.msgs.append(Message(2, Role.ASSISTANT, "", tool_calls=[ToolCall(
        "search_replace", {"path": "src/filter.ts", "search": "  return yes;\n}\n", "replace": "x"}, cid, ToolKind.EDIT,
        path="src/filter.ts")]))
    s.msgs.append(Message(3, Role.TOOL, tool_results=[ToolResult(refusal, cid, "search_replace", is_error=True)]))
    rec = _record(s.transcript(), "ERR_TOOL_EditNotFound")
    assert "the user's own edits of `filter.ts` were committed just before (r1): the file had changed since the agent " \
           "saw it; its SEARCH held `/* @__NO_SIDE_EFFECTS__ */`, which the file's nearest lines lack (r1)" in rec.solution


def test_a_pr_body_the_shell_emptied_says_whether_a_later_command_mended_it():
    def solution(*after: str) -> str:
        s = _Session("open the PR")
        s.run('gh pr create --title "Rules" --body "Adds `docs/rules.md` for the team"',
              "zsh: no such file or directory: docs/rules.md\nhttps://github.com/o/r/pull/22", 0)
        for command in after:
            s.run(command, "ok")
        return _record(s.transcript(), "ERR_TOOL_BacktickSubstitution").solution or ""

    assert solution().endswith("no later command mended that text (`gh pr edit`, `git commit --amend`): it stands so")
    assert "it stands so" not in solution("gh pr edit 22 --body-file body.md")


def test_an_order_to_stop_what_the_agent_does_is_a_constraint():
    from compaction.events import _CONSTRAINT_RE
    assert _CONSTRAINT_RE.search("stop doing shit! just write a little poem")
    assert _CONSTRAINT_RE.search("Please stop committing.")
    assert not _CONSTRAINT_RE.search("the server does not stop running")


# ---------------------------------------------------------------- the second code review's inputs (c99d0c7, 0696378)

def _syntax_after(*steps: tuple[str, str], line: int = 2111) -> str:
    s = _Session("return NotImplemented")
    for command, output in steps:
        s.run(command, output)
    s.run("python -c 'import pkg.mod'", f'Traceback (most recent call last):\n  File "/repo/pkg/mod.py", line {line}\n'
          "    x = (\n    ^\nSyntaxError: invalid syntax", 1)
    return _record(s.transcript(), "ERR_PY_SyntaxError").solution or ""


def test_a_top_down_sed_is_the_cause_only_when_it_was_the_last_change_and_near_the_failure():
    top_down = "sed -i '10,11d' pkg/mod.py && sed -i '48,49d' pkg/mod.py"
    assert TOP_DOWN_SAID in _syntax_after((top_down, ""), line=48)
    assert TOP_DOWN_SAID not in _syntax_after((top_down, ""), line=400)  # far from what moved
    assert TOP_DOWN_SAID not in _syntax_after((top_down, ""), ("python -c 'import pkg.mod'", "ok"), line=48)  # it worked
    assert TOP_DOWN_SAID not in _syntax_after((top_down, ""), ("sed -i 's/a = 1/x = (/' pkg/mod.py", ""), line=48)
    # `10d` then `10i …` replaces a line where it is: no shift
    assert TOP_DOWN_SAID not in _syntax_after(("sed -i '10d' pkg/mod.py && sed -i '10i x = (' pkg/mod.py", ""), line=10)
    assert TOP_DOWN_SAID in _syntax_after(("sed -i '10i x = 1' pkg/mod.py && sed -i '50s/a/b/' pkg/mod.py", ""), line=50)


TOP_DOWN_SAID = "cause: its line-addressed edits ran one after another, top-down"


def _aider_refusal(*files: tuple[str, str, str | None]) -> str:
    """aider's output for refused blocks: (file, the SEARCH text, the nearest lines or None)."""
    out = []
    for path, search, near in files:
        out.append(f"## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in {path}\n"
                   f"<<<<<<< SEARCH\n{search}\n=======\nnew\n>>>>>>> REPLACE\n")
        if near is not None:
            fence = "````" if "```" in near else "```"
            out.append(f"Did you mean to match some of these actual lines from {path}?\n\n{fence}\n{near}\n{fence}\n")
    return "\n".join(out)


def _refusal_solution(result: str, path: str, before: str = "", earlier: str | None = None) -> str:
    s = _Session("edit the files")
    if earlier is not None:  # an earlier round: the agent's edit, what the harness wrote, then the user's next request
        s.msgs.append(Message(len(s.msgs), Role.ASSISTANT, "src/b/index.ts\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE"))
        s.msgs.append(Message(len(s.msgs), Role.TOOL, earlier))
        s.msgs.append(Message(len(s.msgs), Role.USER, "now the other change"))
    if before:
        s.msgs.append(Message(len(s.msgs), Role.TOOL, before))
    cid = f"c{len(s.msgs)}"
    s.msgs.append(Message(len(s.msgs), Role.ASSISTANT, "", tool_calls=[ToolCall(
        "search_replace", {"path": path, "search": "x", "replace": "y"}, cid, ToolKind.EDIT, path=path)]))
    s.msgs.append(Message(len(s.msgs), Role.TOOL, tool_results=[ToolResult(result, cid, "search_replace", is_error=True)]))
    return next((r.solution or "" for r in scan_transcript(s.transcript()) if r.id == "ERR_TOOL_EditNotFound"), "")


def test_a_refused_block_is_compared_with_its_own_hint_and_a_four_backtick_fence_is_read_whole():
    two = _aider_refusal(("src/a.ts", "alpha();\nshared();", None), ("src/b.ts", "beta();\nshared();", "shared();"))
    assert "its SEARCH held `alpha();`" not in _refusal_solution(two, "src/a.ts")
    readme = _aider_refusal(("README.md", "Intro\nThen stop now.", "Intro\n```python\nprint(1)\n```"))
    said = _refusal_solution(readme, "README.md")
    assert "its SEARCH held `Then stop now.`, which the file's nearest lines lack" in said, said


def test_the_users_edits_are_claimed_only_for_that_file_and_not_when_the_agent_left_its_own_uncommitted():
    refusal = _aider_refusal(("src/b/index.ts", "gone();", "kept();"))
    other = _refusal_solution(refusal, "src/b/index.ts", before="> Committing src/a/index.ts before applying edits.")
    assert "the user's own edits" not in other
    mine = _refusal_solution(refusal, "src/b/index.ts", before="> Committing src/b/index.ts before applying edits.",
                             earlier="Applied edit to src/b/index.ts")  # --no-auto-commits: the agent's own edit
    assert "the user's own edits" not in mine and "its SEARCH held `gone();`" in mine
    theirs = _refusal_solution(refusal, "src/b/index.ts", before="> Committing src/b/index.ts before applying edits.",
                               earlier="Applied edit to src/b/index.ts\n> Commit 1234abc feat: x")
    assert "the user's own edits of `index.ts` were committed just before" in theirs
