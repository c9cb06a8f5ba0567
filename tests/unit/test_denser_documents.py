"""What a 10% document spends its room on: no path prefix repeated line after line, no file listed one by
one when git named a dozen alike, a Markdown file told by its sections whatever its extension, a copy told
by what it changed from the file it was made from, and the room left filled past 90% when facts still fit."""

from __future__ import annotations

from compaction import tokens
from compaction.edits import Hunk
from compaction.events import Event, EventKind, extract_events
from compaction.history import compact
from compaction.history.facts import LEFTOVER_PRIORITY, Section, display_path
from compaction.history.project_root import infer_root
from compaction.history.sources.changes import reads_as_markdown, records
from compaction.history.sources.modified import modified_file_facts
from compaction.history.sources.registry import FactContext
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolResult
from compaction.transcripts.specstory import _path
from tests.unit.synthetic import call_pair, transcript

ROOT = "/Users/dev/Library/CloudStorage/My Drive/github/shop"


def _ctx(msgs: list[Message], cwd: str | None = None) -> FactContext:
    t = transcript(msgs, cwd=cwd)
    return FactContext(t, extract_events(t), [], role_preset("developer"), cwd, len(t.rounds))


def _edit(path: str, added: tuple[str, ...], removed: tuple[str, ...] = ()) -> Event:
    return Event(EventKind.EDIT, 1, 0, path=path, hunks=(Hunk(removed=removed, added=added),))


def test_a_file_no_language_claims_reads_as_markdown_by_its_headings() -> None:
    rules = _edit(".cursor/rules/101-intent.mdc", ("", "## Human Roles in This Phase", "**Primary Roles:**",
                                                   "- **Product Manager**: problem definition"))
    assert reads_as_markdown(".cursor/rules/101-intent.mdc", [rules])
    assert reads_as_markdown("docs/guide.md", [])  # by its name alone
    # A `##` comment in code is no heading; nor is a file of statements under an unknown extension.
    assert not reads_as_markdown("tools/build.py", [_edit("tools/build.py", ("## Section", "x = 1"))])
    code = _edit("app.vue2", ("## Setup", "const a = 1;", "let b = a + 1;", "function f() {", "return b;", "}"))
    assert not reads_as_markdown("app.vue2", [code])
    script = _edit("analysis.rx", ("## Load the data", "df <- read.csv('data.csv')", "## Fit", "fit <- lm(y ~ x, df)"))
    assert not reads_as_markdown("analysis.rx", [script])  # comments over R statements, no Markdown mark
    assert not reads_as_markdown("cmake/deps.cmake", [_edit("cmake/deps.cmake", ("## Deps", "- find_package(X)"))])


def test_an_mdc_rule_file_is_told_by_the_sections_its_edit_added() -> None:
    path = f"{ROOT}/.cursor/rules/101-intent.mdc"
    old = "## 🎯 Phase Objective\nClearly define the project vision"
    new = old + "\n\n## 👥 Human Roles in This Phase\n**Primary Roles:**\n- **Product Manager**: problem definition"
    msgs = [Message(0, Role.USER, "add the human roles to each phase rule"),
            *call_pair("Edit", {"file_path": path, "old_string": old, "new_string": new}, "e1", "ok")]
    (record,) = records(_ctx(msgs, ROOT)).values()
    assert "sections + '👥 Human Roles in This Phase'" in record.text


def test_file_tool_lines_of_the_verbatim_tail_print_paths_relative_to_the_root() -> None:
    msgs = [Message(0, Role.USER, "look at the parser")]
    for i in range(30):
        msgs += call_pair("read_file", {"path": f"{ROOT}/src/parser_{i}.py"}, f"r{i}", "x = 1\n" * 40)
    msgs.append(Message(0, Role.ASSISTANT, "The parser is fine."))
    t = transcript(msgs, cwd=ROOT)
    md = compact(t, target_tokens=tokens.count_messages(t.messages) // 2).markdown
    assert "→ read_file src/parser_29.py" in md
    assert f"→ read_file {ROOT}" not in md


def test_a_file_url_names_its_file_not_its_line_range() -> None:
    note = " • 正在读取 [](file:///Users/dev/shop/src/tree%20view/Tree.ts#200-200)，行 200 到 328"
    assert _path(note, "") == "/Users/dev/shop/src/tree view/Tree.ts"


def test_root_from_a_pasted_log_that_names_files_relative_to_it() -> None:
    events = [Event(EventKind.READ, 1, 0, path=f"{ROOT}/packages/tree/test/tree.spec.ts"),
              Event(EventKind.READ, 1, 0, path=f"{ROOT}/packages/tree/src/machine.ts"),
              # an export that dropped the leading `/` spells the path whole: no root of its own
              Event(EventKind.READ, 1, 0, path=f"{ROOT[1:]}/packages/tree/src/machine.ts")]
    log = "❯ browser (chromium)  packages/tree/test/tree.spec.ts (39 tests | 6 failed)\n" \
          "FAIL packages/tree/src/machine.ts > selection"
    assert infer_root(events, lambda: ([], [log])) == ROOT
    assert display_path(f"{ROOT[1:]}/packages/tree/src/machine.ts", ROOT) == "packages/tree/src/machine.ts"


def test_files_git_reported_alike_are_one_line_by_folder() -> None:
    created = "".join(f" create mode 100644 .cursor/rules/{i:03d}-rule.mdc\n" for i in range(1, 6))
    created += " create mode 100644 docs/templates/intent-template.md\n create mode 100644 src/only.py\n"
    out = "[feature/playbook 5dcb696] feat: rules\n 7 files changed, 300 insertions(+)\n" + created
    msgs = [Message(0, Role.USER, "commit the rules"),
            Message(0, Role.ASSISTANT, "", tool_calls=[ToolCall("write", {}, "w1", kind="write")]),
            *call_pair("run_terminal_cmd", {"command": 'git commit -m "feat: rules"'}, "s1", out)]
    lines = [f.text for f in modified_file_facts(_ctx(msgs))]
    (grouped,) = [line for line in lines if line.startswith("Created (from git output): 7 files")]
    assert "`.cursor/rules/` `001-rule.mdc`, `002-rule.mdc`" in grouped and "`docs/templates/` `intent-template.md`" in grouped
    assert not any(line.startswith("`.cursor/rules/001-rule.mdc`") for line in lines)


def test_a_small_group_keeps_a_line_per_file() -> None:
    out = "[main 1a2b3c4] two\n 2 files changed\n create mode 100644 a/x.py\n create mode 100644 a/y.py\n"
    msgs = [Message(0, Role.USER, "commit"),
            Message(0, Role.ASSISTANT, "", tool_calls=[ToolCall("write", {}, "w1", kind="write")]),
            *call_pair("run_terminal_cmd", {"command": "git commit -am two"}, "s1", out)]
    lines = [f.text for f in modified_file_facts(_ctx(msgs))]
    assert "`a/x.py`: created (from git output) (r1)" in lines and "`a/y.py`: created (from git output) (r1)" in lines


ORIGINAL = """import subprocess
import sys
import pathlib
WORDCOUNT=1000
def describe_mixed_situtations(files):
    proc=subprocess.Popen(['ollama','run',MODEL],stdin=subprocess.PIPE)
    return proc.communicate(files)
def safe_name(path):
    return ''.join(c if c.isalnum() else '_' for c in path)
def is_valid_type(path):
    return path.endswith(('.jpg','.png','.md'))
def main():
    args=sys.argv[1:]
    print(describe_mixed_situtations(args))"""


def test_a_file_made_from_one_the_session_read_says_so_and_what_the_copy_changed() -> None:
    copy = (ORIGINAL.replace("=", " = ").replace("import pathlib\n", "")
            .replace("describe_mixed_situtations", "describe_mixed_situations").replace("Popen", "run"))
    msgs = [Message(0, Role.USER, "make this a pip package with core.py as its module"),
            *call_pair("read_file", {"path": "simple_reverse_diffusion.py"}, "r1", ORIGINAL),
            Message(0, Role.ASSISTANT, "", tool_calls=[ToolCall(
                "write_to_file", {"path": "pkg/core.py", "content": copy}, "w1", kind="write", path="pkg/core.py")]),
            Message(0, Role.TOOL, "", tool_results=[ToolResult("saved", "w1")])]
    (record,) = records(_ctx(msgs)).values()
    assert "from `simple_reverse_diffusion.py` (" in record.text
    assert "describe_mixed_situations" in record.text and "describe_mixed_situtations" in record.text


def test_a_new_file_unlike_anything_read_names_no_source() -> None:
    fresh = "\n".join(f"def handler_{i}(request):\n    return render(request, 'page_{i}.html')" for i in range(8))
    msgs = [Message(0, Role.USER, "add the handlers"),
            *call_pair("read_file", {"path": "simple_reverse_diffusion.py"}, "r1", ORIGINAL),
            Message(0, Role.ASSISTANT, "", tool_calls=[ToolCall(
                "write_to_file", {"path": "views.py", "content": fresh}, "w1", kind="write", path="views.py")])]
    (record,) = records(_ctx(msgs)).values()
    assert " from `" not in record.text


def _pathless_patch(code: str, cid: str, said: str) -> list[Message]:
    """Copilot Chat's `applyPatch` as SpecStory exports it: no path, the new text in a fenced block; the
    agent's words of the same turn beside it."""
    return [Message(0, Role.ASSISTANT, said, tool_calls=[ToolCall("copilot_applyPatch", {}, cid, kind="edit")]),
            Message(0, Role.TOOL, "", tool_results=[ToolResult(f"```javascript\n{code}\n```", cid)])]


def test_a_pathless_patch_goes_to_the_one_file_read_in_its_language_the_agent_names() -> None:
    code = "function sanitizeSvelteInternal(code) {\n  return code.replace(/\\$\\./g, 'svelteInternal.')\n}"
    msgs = [Message(0, Role.USER, "fix the docs build"),
            *call_pair("copilot_readFile", {"filePath": "/repo/scripts/compile-runes.mjs"}, "r1", ""),
            *call_pair("copilot_readFile", {"filePath": "/repo/dist/index.js"}, "r2", ""),
            *_pathless_patch(code, "p1", "`compile-runes.mjs` now rewrites the import to `svelteInternal`.")]
    edits = [e for e in extract_events(transcript(msgs)) if e.kind is EventKind.EDIT]
    assert [e.path for e in edits] == ["/repo/scripts/compile-runes.mjs"] and edits[0].inferred
    # Without the agent naming one of them, two files of the language read: no guess.
    msgs[-2:] = _pathless_patch(code, "p1", "Fixed the import.")
    assert not [e for e in extract_events(transcript(msgs)) if e.kind is EventKind.EDIT and e.path]


def test_a_file_edited_then_deleted_keeps_what_the_edit_did_marked_not_kept() -> None:
    old, new = "export const a = 1", "export const a = 1\nexport function sanitize(code) { return code }"
    msgs = [Message(0, Role.USER, "fix the build"),
            *call_pair("Edit", {"file_path": "scripts/compile.mjs", "old_string": old, "new_string": new}, "e1", "ok"),
            *call_pair("Bash", {"command": "rm scripts/compile.mjs"}, "b1", "")]
    (record,) = records(_ctx(msgs)).values()
    assert record.text.startswith("`scripts/compile.mjs`: 1 edit, then deleted (not kept) — ")
    assert "sanitize" in record.text
    # a project file the session deleted: its record competes in the changes' share (a scratch script's
    # does not: the test below)
    assert record.rank() != LEFTOVER_PRIORITY and record.section is Section.CHANGES


def test_a_file_edited_then_deleted_says_on_its_list_line_what_the_edit_made_of_it() -> None:
    """The file list's line of a project file the session deleted carries what its edit did, as a
    file's gist does ("how was it first fixed" asks for the edit a later approach replaced)."""
    old, new = "export const a = 1", "export const a = 1\nexport function sanitizeInternal(code) { return code }"
    msgs = [Message(0, Role.USER, "fix the build"),
            *call_pair("Edit", {"file_path": "scripts/compile.mjs", "old_string": old, "new_string": new}, "e1", "ok"),
            *call_pair("Bash", {"command": "rm scripts/compile.mjs"}, "b1", "")]
    (line,) = [f for f in modified_file_facts(_ctx(msgs)) if f.path == "scripts/compile.mjs"]
    assert line.text.startswith("`scripts/compile.mjs`: deleted")
    assert line.full_text and line.full_text.startswith("`scripts/compile.mjs`: deleted — edited first: ")
    assert "sanitizeInternal" in line.full_text


def test_a_deleted_files_gist_is_cut_to_the_gists_room() -> None:
    """Its edit said in parts joined by "; " (no list to cut at a comma): still cut at GIST_CHARS."""
    from compaction.history.sources.changes import GIST_CHARS, gists
    old = "export const compileTarget = 'server'"
    new = ("export const compileTarget = 'client'\n"
           "export function sanitizeSvelteInternalImportsForTheBrowserBuildOutputOfEveryRunesComponentModule(code) "
           "{ return code.replaceAllSvelteInternalSpecifiersWithClientOnes('svelte/internal', 'svelte/internal/client') }")
    msgs = [Message(0, Role.USER, "fix the build"),
            *call_pair("Edit", {"file_path": "scripts/compile.mjs", "old_string": old, "new_string": new}, "e1", "ok"),
            *call_pair("Bash", {"command": "rm scripts/compile.mjs"}, "b1", "")]
    gist = gists(_ctx(msgs))["scripts/compile.mjs"]
    assert gist.startswith("edited first: ") and len(gist) <= GIST_CHARS


def test_a_scratch_script_record_gets_only_the_room_every_section_leaves() -> None:
    script = "import pickle\nfrom pkg import Widget\n\ndef check():\n    pickle.dumps(Widget())\n\ncheck()\n"
    msgs = [Message(0, Role.USER, "fix the pickling"),
            *call_pair("Write", {"file_path": "repro.py", "content": script}, "w1", "ok"),
            *call_pair("Bash", {"command": "python repro.py && rm repro.py"}, "b1", "")]
    (record,) = records(_ctx(msgs)).values()
    assert "(created, later removed)" in record.text and "pickle.dumps" in record.text
    assert record.rank() == LEFTOVER_PRIORITY


def test_an_edit_that_renames_a_definition_says_so() -> None:
    old = "def describe_mixed_situtations(files):\n    return run(files)"
    new = "def describe_mixed_situations(files):\n    return run(files)"
    msgs = [Message(0, Role.USER, "fix the typo in the name"),
            *call_pair("Edit", {"file_path": "core.py", "old_string": old, "new_string": new}, "e1", "ok")]
    (record,) = records(_ctx(msgs)).values()
    assert "renames describe_mixed_situtations → describe_mixed_situations" in record.text
    # Two unlike names are an added and a dropped definition, not a rename.
    new = "def score_signal(files):\n    return run(files)"
    msgs[-2:] = call_pair("Edit", {"file_path": "core.py", "old_string": old, "new_string": new}, "e1", "ok")
    (record,) = records(_ctx(msgs)).values()
    assert "renames" not in record.text and "score_signal" in record.text


def test_the_same_tool_on_the_same_file_twice_in_a_row_is_one_tail_line() -> None:
    msgs = [Message(0, Role.USER, "add the roles to the phase rules")]
    calls = [ToolCall("search_replace", {"file_path": f"{ROOT}/rules/101.mdc", "old_string": f"a{i}",
                                         "new_string": f"b{i}"}, f"e{i}", kind="edit", path=f"{ROOT}/rules/101.mdc")
             for i in range(2)]
    msgs.append(Message(0, Role.ASSISTANT, "Updated the rule.", tool_calls=calls))
    msgs.append(Message(0, Role.TOOL, "", tool_results=[ToolResult("ok", c.id) for c in calls]))
    msgs += [Message(0, Role.USER, "thanks"), Message(0, Role.ASSISTANT, "Done.")]
    md = compact(transcript(msgs, cwd=ROOT), target_tokens=10_000, keep_recent=2).markdown
    assert "→ search_replace rules/101.mdc (×2)" in md


def test_a_command_opened_by_comments_is_told_by_its_first_command() -> None:
    from compaction.history.facts import first_line
    from compaction.shell import code_line, first_line_commands

    script = "# Kill any existing vLLM processes\n# then start over\npkill -f vllm 2>/dev/null || true\nsleep 2"
    assert code_line(script) == "pkill -f vllm 2>/dev/null || true"
    assert first_line(script) == "pkill -f vllm 2>/dev/null || true …"
    assert first_line_commands(script) == ["pkill -f vllm 2>/dev/null", "true"]
    assert code_line("# only a comment") == "# only a comment"  # nothing runs: the line itself
    assert code_line("ls -la\n# then this") == "ls -la"
    assert first_line("# Kill old\r\npkill -f vllm") == "pkill -f vllm"  # nothing runs after it: no "…"
    assert code_line("#!/bin/bash\nset -euo pipefail\npython train.py") == "python train.py"


def test_older_rounds_the_filler_adds_keep_each_message_on_its_own_lines() -> None:
    msgs: list[Message] = []
    for i in range(20):  # over the tight budget's 3,000 tokens at 90%: a verbatim tail, then older rounds
        msgs += [Message(0, Role.USER, f"step {i}: rename the helper in module_{i}.py"),
                 Message(0, Role.ASSISTANT, f"Renamed it in module_{i}.py and ran the tests: all pass. "
                                            + f"Checked caller_{i}_a, caller_{i}_b and their imports. " * 12)]
    t = transcript(msgs)
    md = compact(t, target_tokens=tokens.count_messages(t.messages) * 9 // 10, keep_recent=2).markdown
    assert md.count("### r") > 2  # older rounds joined the kept ones
    assert "**user**:" in md and all(line.startswith("**") for line in md.splitlines() if "**user**:" in line
                                     or "**assistant**:" in line)


def test_a_harness_notice_in_the_users_turn_shows_its_opening_only() -> None:
    notice = ("[ERROR] You did not use a tool in your previous response! Please retry with a tool use.\n\n"
              + "Reminder: tool uses are formatted using XML-style tags. " * 40)
    msgs = [Message(0, Role.USER, "package the project"), Message(0, Role.ASSISTANT, "Done."),
            Message(0, Role.USER, notice, harness=True, meta={"environment_details": ["<environment_details>…"]}),
            Message(0, Role.ASSISTANT, "Completed.")]
    md = compact(transcript(msgs), target_tokens=100_000, keep_recent=2).markdown
    assert "[ERROR] You did not use a tool in your previous response!" in md
    assert md.count("XML-style tags") < 5 and "tokens elided" in md


def _copy_record(reads: list[tuple[str, str]], path: str, content: str) -> str:
    msgs = [Message(0, Role.USER, "split the module")]
    for i, (src, out) in enumerate(reads):
        msgs += call_pair("Read", {"file_path": src}, f"r{i}", out)
    msgs += [Message(0, Role.ASSISTANT, "", tool_calls=[ToolCall(
        "Write", {"file_path": path, "content": content}, "w1", kind="write", path=path)]),
        Message(0, Role.TOOL, "", tool_results=[ToolResult("ok", "w1")])]
    (record,) = records(_ctx(msgs)).values()
    return record.text


HANDLERS = [f"def handler_{i}(request):\n    payload = request.payload_{i}\n    return render_page_{i}(compute_{i}(payload))"
            for i in range(12)]


def test_a_module_split_out_of_a_file_drops_nothing_the_file_keeps() -> None:
    text = _copy_record([("views.py", "\n".join(HANDLERS))], "views_a.py", "\n".join(HANDLERS[:4]))
    assert "from `views.py`" in text and "drops" not in text and "handler_5" not in text


def test_claude_codes_numbered_read_is_compared_without_its_gutter() -> None:
    numbered = "\n".join(f"{i + 1:>6}→{ln}" for i, ln in enumerate("\n".join(HANDLERS[:4]).splitlines()))
    assert "from `views.py`" in _copy_record([("views.py", numbered)], "views_a.py", "\n".join(HANDLERS[:4]))


def test_a_shared_licence_header_or_shared_imports_make_no_copy() -> None:
    header = "\n".join(f"// Copyright 2024 The Authors. Licensed under the Apache License, line {i}." for i in range(12))
    imports = "\n".join(f"import module_number_{i}" for i in range(10))
    source = f"{header}\n{imports}\nfunc Schedule(pod string) error {{\n    return schedulePod(pod, defaultQueue)\n}}"
    other = f"{imports}\nfunc Other() {{}}"
    fresh = f"{header}\n{imports}\nfunc TestQueue(t *testing.T) {{\n    q := newQueue()\n    q.Push(1)\n}}"
    text = _copy_record([("schedule.go", source), ("other.go", other)], "queue_test.go", fresh)
    assert " from `" not in text


def test_a_one_folder_roots_own_relative_path_is_no_dropped_slash() -> None:
    assert display_path("app/main.py", "/app") == "app/main.py"
    assert display_path("/app/app/main.py", "/app") == "app/main.py"


def test_what_a_harness_passes_through_or_marks_is_shown_whole() -> None:
    stdout = "<bash-stdout>" + "result line of the user's own command\n" * 60 + "</bash-stdout>"
    summary = Message(0, Role.USER, "Summary of the earlier conversation. " * 60, harness=True,
                      meta={"compact_summary": True})
    msgs = [Message(0, Role.USER, "check the build"), Message(0, Role.ASSISTANT, "Done."),
            Message(0, Role.USER, stdout, harness=True), summary, Message(0, Role.ASSISTANT, "Noted.")]
    md = compact(transcript(msgs), target_tokens=100_000, keep_recent=2).markdown
    assert md.count("result line of the user's own command") == 60
    assert md.count("Summary of the earlier conversation.") >= 60


def test_a_big_commit_names_some_of_its_files_and_counts_the_rest() -> None:
    created = "".join(f" create mode 100644 src/gen/file_{i:03d}.py\n" for i in range(40))
    out = "[main 1a2b3c4] generate\n 40 files changed\n" + created
    msgs = [Message(0, Role.USER, "generate the files"),
            Message(0, Role.ASSISTANT, "", tool_calls=[ToolCall("write", {}, "w1", kind="write")]),
            *call_pair("run_terminal_cmd", {"command": "git commit -am generate"}, "s1", out)]
    (line,) = [f.text for f in modified_file_facts(_ctx(msgs)) if "from git output" in f.text]
    assert line.startswith("Created (from git output): 40 files: `src/gen/` `file_000.py`")
    assert "and 24 more" in line and "file_016.py" not in line


def test_a_file_url_is_decoded_after_its_line_range_and_a_windows_drive_keeps_no_slash() -> None:
    from compaction.transcripts.path_spelling import file_url_path

    assert file_url_path("file:///c%3A/Users/dev/app/Tree.ts#L10-L20") == "c:/Users/dev/app/Tree.ts"
    assert file_url_path("file:///Users/d/a%20b/x%23y.ts#200-200") == "/Users/d/a b/x#y.ts"
