"""Issue 13 loaders: pi, SpecStory, Cursor's export, Roo/Kilo histories, and the aider / mini-swe-agent drops.

Fixtures are hand-written (tests/data/formats/README.md names the sources studied); real sessions are
checked where one is available to read.
"""

from __future__ import annotations

import json

import pytest

from compaction.edits import call_changes
from compaction.events import EventKind, extract_events
from compaction.model import Role, ToolKind
from compaction.transcripts import load_transcript
from tests.conftest import REPO, TRANSCRIPTS

FORMATS = REPO / "tests" / "data" / "formats"
MORE = TRANSCRIPTS / "more-agents"


def _calls(t):
    return [c for m in t.messages for c in m.tool_calls]


# --- pi -----------------------------------------------------------------------------------------------


def test_pi_v3_session_tree_entries_and_two_records_on_one_line():
    t = load_transcript(FORMATS / "pi_session_v3.jsonl")
    assert t.format == "pi" and t.cwd == "/home/dev/inventory" and t.meta["pi_version"] == 3
    calls = _calls(t)
    assert [(c.name, c.kind, c.path or c.command) for c in calls] == [
        ("read", ToolKind.READ, "src/report.py"),
        ("edit", ToolKind.EDIT, "src/report.py"),
        ("write", ToolKind.WRITE, "tests/test_report.py"),  # from the second record of line 8
        ("bash", ToolKind.SHELL, "python -m pytest -q tests/test_report.py"),
        ("edit", ToolKind.EDIT, "tests/test_report.py"),  # v3 `edits: [{oldText, newText}]`
        ("bash", ToolKind.SHELL, "python -m pytest -q"),  # a `!cmd` the user ran (bashExecution)
    ]
    results = {r.call_id: r for m in t.messages for r in m.tool_results}
    failing = results["toolu_pi_04"]
    assert failing.is_error and failing.exit_code == 1
    assert results[calls[-1].id].exit_code == 0 and results[calls[-1].id].content == "3 passed in 0.05s\n"
    harness = [m.text for m in t.messages if m.harness]
    assert any(x.startswith("[compaction summary]\n## Goal") for x in harness)
    assert "[branch summary]\nTried float rounding first; abandoned." in harness
    assert "Remember the changelog." in harness and "ruff: 0 problems" in harness
    assert t.skipped_kinds == {"model_change": 1, "thinking_level_change": 1, "label": 1}
    assert t.messages[1].meta["thinking"] == ["Look at report.py first."]


def test_pi_v1_linear_session_error_message_and_hook_message():
    t = load_transcript(FORMATS / "pi_session_v1.jsonl")
    assert t.format == "pi" and t.meta["pi_version"] == 1 and t.cwd == "/Users/dev/blog"
    assert [c.kind for c in _calls(t)] == [ToolKind.SHELL, ToolKind.EDIT]
    assert any("[error: overloaded_error: retrying]" in m.text for m in t.messages if m.role is Role.ASSISTANT)
    assert any(m.text == "Session saved." and m.harness for m in t.messages)
    assert len(t.rounds) == 3


@pytest.mark.parametrize("name", ["pi-mono-compaction-session.jsonl", "pi-trl-grpo-smoke.jsonl"])
def test_pi_real_sessions(name):
    t = load_transcript(MORE / name)
    assert t.format == "pi" and len(t.rounds) > 50
    edits = {c.path for c in _calls(t) if c.kind in (ToolKind.EDIT, ToolKind.WRITE)}
    assert edits and all(p for p in edits)
    # every toolResult pairs with a call by id
    ids = {c.id for c in _calls(t)}
    assert all(r.call_id in ids for m in t.messages for r in m.tool_results)


def test_pi_real_session_with_two_records_on_one_line_keeps_both():
    path = MORE / "pi-mono-compaction-session.jsonl"
    records = sum(len(_json_values(line)) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    t = load_transcript(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert records > len([x for x in lines if x.strip()])  # the file does hold a line with two records
    assert len(t.messages) + t.skipped_records + 1 >= records - 1  # header aside, every record is read


def _json_values(line: str) -> list:
    dec, out, i = json.JSONDecoder(), [], 0
    while i < len(line):
        value, i = dec.raw_decode(line, i)
        out.append(value)
        while i < len(line) and line[i] in " \t":
            i += 1
    return out


# --- SpecStory ----------------------------------------------------------------------------------------


def test_specstory_claude_code_rendering():
    t = load_transcript(FORMATS / "specstory_claude_code.md")
    assert t.format == "specstory"
    by_name = {c.name: c for c in _calls(t)}
    assert by_name["Read"].kind == ToolKind.READ and by_name["Read"].path == "./hooks/webhook.go"
    assert by_name["Edit"].kind == ToolKind.EDIT and by_name["Edit"].path == "/work/svc/hooks/webhook.go"
    assert by_name["Bash"].command == "go test ./hooks/..."
    assert [x["status"] for x in by_name["TodoWrite"].arguments["todos"]] == ["completed", "in_progress", "pending"]
    sidechain = next(m for m in t.messages if m.meta.get("sidechain"))
    assert sidechain.role is Role.TOOL and sidechain.tool_calls[0].name == "Grep"  # never opens a round
    users = [m.text for m in t.messages if m.role is Role.USER]
    assert users[0].endswith("@important 5xx must still retry") and users[1] == "Thanks, that's enough for now."
    thinking = next(m for m in t.messages if m.meta.get("thinking"))
    assert thinking.meta["thinking"] == ["Find the retry loop first."]
    result = next(r for m in t.messages for r in m.tool_results if r.name == "Bash")
    assert "--- FAIL: TestDeliverStopsOn4xx" in result.content


def test_specstory_copilot_codex_and_cursor_renderings():
    t = load_transcript(FORMATS / "specstory_codex_copilot.md")
    got = [(c.name, c.kind, c.path or c.command) for c in _calls(t)]
    assert got[:5] == [
        ("copilot_readFile", ToolKind.READ, "/home/dev/lib/package.json"),  # file:// link in the summary
        ("run_in_terminal", ToolKind.SHELL, "cd /home/dev/lib && npm view mylib versions"),  # Parameters JSON
        ("copilot_createFile", ToolKind.WRITE, "/home/dev/lib/.changeset/bump.md"),
        ("apply_patch", ToolKind.EDIT, "package.json"),  # **Update: `package.json`**
        ("exec_command", ToolKind.SHELL, "pnpm publish --dry-run"),  # command in the summary
    ]
    assert got[-1] == ("edit_file", ToolKind.EDIT, "src/index.ts")  # bare <details> (older Cursor exports)
    pasted = next(m for m in t.messages if m.role is Role.USER and "not a tool" in m.text)
    assert not pasted.tool_calls  # a user's paste is never a call


@pytest.mark.parametrize("name,edited", [
    ("specstory-claude-code-cloud-sync.md", "/Users/sean/Source/SpecStory/getspecstory/specstory-cli/main.go"),
    ("specstory-codex-cli-git-provenance.md", "docs/git-provenance/SYSTEM-SUMMARY.md"),
    ("specstory-cursor-chefchopsky-ai-playbook.md",
     "/Users/daviswhitehead/Library/CloudStorage/GoogleDrive-whitehead.davis@gmail.com/My Drive/github/chef-chopsky/"
     "docs/playbook/implementation-guide.md"),
])
def test_specstory_real_sessions_name_their_edits(name, edited):
    t = load_transcript(MORE / name)
    assert t.format == "specstory"
    assert edited in {c.path for c in _calls(t) if c.kind in (ToolKind.EDIT, ToolKind.WRITE)}
    assert any(c.kind == ToolKind.SHELL and c.command for c in _calls(t))


# --- Cursor's own export ------------------------------------------------------------------------------


def test_cursor_export_splits_on_speaker_lines_only():
    t = load_transcript(FORMATS / "cursor_export.md")
    assert t.format == "cursor-export"
    roles = [m.role for m in t.messages if not m.harness]
    assert roles == [Role.USER, Role.ASSISTANT, Role.USER, Role.ASSISTANT]
    answer = t.messages[2].text
    assert "Use a timedelta instead:" in answer and "@decision compute dates with timedelta" in answer  # `---` inside
    assert t.messages[3].text.startswith("**Cursor** said that before")  # inline bold is text, not a speaker
    cite = t.messages[2].tool_calls[0]
    assert (cite.kind, cite.path, cite.arguments["lines"]) == (ToolKind.READ, "tests/test_dates.py", "12-16")


# --- Cline / Roo / Kilo ---------------------------------------------------------------------------------


def test_roo_history_xml_and_native_calls_with_text_results():
    t = load_transcript(FORMATS / "roo_api_conversation_history.json")
    assert t.format == "anthropic" and t.meta["dialect"] == "cline" and t.cwd == "/home/dev/ledger"
    calls = _calls(t)
    read = calls[0]
    assert read.kind == ToolKind.READ and read.arguments["paths"] == ["src/import.ts", "test/import.test.ts"]
    assert (calls[1].name, calls[1].kind, calls[1].path) == ("apply_diff", ToolKind.EDIT, "src/import.ts")
    todos = calls[2].arguments["todos"]
    assert [x["status"] for x in todos] == ["completed", "in_progress", "pending"]
    native = {c.name: c for c in calls[3:]}
    assert native["write_to_file"].path == "test/quoted.test.ts" and native["write_to_file"].id == "toolu_roo_01"
    assert native["execute_command"].command == "npx vitest run test/quoted.test.ts"
    # `[tool for '…'] Result:` text blocks answer native calls too, in order
    results = [r for m in t.messages for r in m.tool_results]
    assert [r.call_id for r in results][-2:] == ["toolu_roo_01", "toolu_roo_02"]
    assert results[0].content.startswith("<files>") and results[0].name == "read_file"


# --- aider: `> Applied edit to X` ----------------------------------------------------------------------


AIDER_WHOLE_FILE = r"""# aider chat started at 2026-01-05 10:00:00

#### make the banner say hello

The banner lives in `web\banner.txt`; here is the whole new file:

web\banner.txt
```
hello
```

> Tokens: 2.1k sent, 40 received.
> Applied edit to web\banner.txt
> Commit 1a2b3c4 feat: Greet in the banner
"""

AIDER_UNCLOSED_FENCE = """# aider chat started at 2026-01-05 11:00:00

#### write the setup script

@important run it once per machine
setup.sh
```bash
cat <<'EOF' > .env
KEY=1
EOF
> Tokens: 3k sent, 90 received.
> Applied edit to setup.sh
"""


def test_aider_applied_edit_without_parsed_block_is_an_edit(tmp_path):
    p = tmp_path / ".aider.chat.history.md"
    p.write_text(AIDER_WHOLE_FILE, encoding="utf-8")
    t = load_transcript(p)
    edits = [c for c in _calls(t) if c.kind == ToolKind.EDIT]
    assert [(c.name, c.path) for c in edits] == [("applied_edit", "web\\banner.txt")]
    result = next(r for m in t.messages for r in m.tool_results if r.content.startswith("Applied edit"))
    assert result.call_id == edits[0].id
    assert edits[0].arguments["content"] == "hello\n"  # the whole format's fence: what was written


AIDER_OTHER_FORMATS = """# aider chat started at 2026-01-06 09:00:00

#### add the node and fix the flag

backend/nodes.py\r
<source>\r
class GetSchema(Node):\r
    pass\r
</source>\r

```diff
--- a/backend/settings.py
+++ b/backend/settings.py
@@ -1,2 +1,2 @@
-DEBUG = True
+DEBUG = False
```

> Tokens: 1k sent, 90 received.
> Applied edit to backend/nodes.py
> Applied edit to backend/settings.py
"""


def test_aider_whole_file_in_a_tag_fence_and_a_udiff_say_what_they_wrote(tmp_path):
    """aider-pocketflow's 68 edits were written as `path` + `<source>` blocks (a model that writes Markdown
    in code), aider-supplychaintracker's as whole files and unified diffs: all were path-only edits."""
    p = tmp_path / "h.md"
    p.write_text(AIDER_OTHER_FORMATS, encoding="utf-8")
    t = load_transcript(p)
    edits = {c.path: c.arguments for c in _calls(t) if c.kind == ToolKind.EDIT}
    assert edits["backend/nodes.py"]["content"] == "class GetSchema(Node):\n    pass\n"
    assert edits["backend/settings.py"]["diff"].startswith("--- a/backend/settings.py\n+++ b/backend/settings.py\n@@")
    changes = {c.path: c for call in _calls(t) for c in call_changes(call)}
    assert changes["backend/settings.py"].hunks[0].added == ("DEBUG = False",)


def test_aider_unclosed_fence_does_not_swallow_aider_reports(tmp_path):
    p = tmp_path / "h.md"
    p.write_text(AIDER_UNCLOSED_FENCE, encoding="utf-8")
    t = load_transcript(p)
    reply = next(m for m in t.messages if m.role is Role.ASSISTANT)
    assert "@important run it once per machine" in reply.text and "Applied edit" not in reply.text
    assert "setup.sh" in {e.path for e in extract_events(t) if e.kind == EventKind.EDIT}


def test_aider_windows_report_pairs_with_the_block_that_named_the_file():
    t = load_transcript(MORE / "aider-monochromatic.md")
    calls = {c.id: c for c in _calls(t)}
    report = next(r for m in t.messages for r in m.tool_results
                  if r.content == "Applied edit to packages\\module\\es\\src\\iterable.filter.ts")
    assert calls[report.call_id].path == "packages/module/es/src/iterable.filter.ts"
    assert not any("\\" in (c.path or "") for c in calls.values() if c.kind == ToolKind.EDIT)  # not doubled


# --- mini-swe-agent: text after </output> -----------------------------------------------------------------


def test_mini_swe_agent_keeps_what_follows_the_output_block(tmp_path):
    msgs = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "<pr_description>Fix it</pr_description>"},
        {"role": "assistant", "content": "THOUGHT: look\n\n```bash\ncat <<'EOF' > notes.md\n```\nx\n```\nEOF\nls\n```\n"
                                         "@important after the heredoc"},
        {"role": "user", "content": "<returncode>0</returncode>\n<output>\na.py\n</output>\n@warning the tree is dirty"},
        {"role": "assistant", "content": "THOUGHT: long\n\n```bash\ncat big.log\n```"},
        {"role": "user", "content": "<returncode>0</returncode>\n<warning>too long</warning><output_head>\nA\n"
                                    "</output_head>\n<elided_chars>9</elided_chars>\n<output_tail>\nZ\n</output_tail>\n"
                                    "@todo read the middle"},
    ]
    p = tmp_path / "x.traj.json"
    p.write_text(json.dumps({"info": {"mini_version": "1"}, "messages": msgs,
                             "trajectory_format": "mini-swe-agent-1"}), encoding="utf-8")
    t = load_transcript(p)
    results = [r.content for m in t.messages for r in m.tool_results]
    assert results[0] == "a.py\n\n@warning the tree is dirty"
    assert results[1].endswith("@todo read the middle")
    markers = {e.text for e in extract_events(t) if e.kind == EventKind.MARKER}
    assert markers == {"@warning the tree is dirty", "@todo read the middle", "@important after the heredoc"}


def test_every_new_fixture_is_read_by_its_loader():
    expected = {
        "pi_session_v1.jsonl": "pi", "pi_session_v3.jsonl": "pi", "specstory_claude_code.md": "specstory",
        "specstory_codex_copilot.md": "specstory", "cursor_export.md": "cursor-export",
        "roo_api_conversation_history.json": "anthropic",
    }
    for name, fmt in expected.items():
        assert load_transcript(FORMATS / name).format == fmt, name


def test_gemini_checkpoint_keeps_thought_parts_and_pairs_by_id(tmp_path):
    contents = [
        {"role": "user", "parts": [{"text": "Why is the build slow?"}]},
        {"role": "model", "parts": [{"text": "Profile the bundler first. @decision measure before changing", "thought": True},
                                    {"functionCall": {"id": "f1", "name": "run_shell_command",
                                                      "args": {"command": "npm run build -- --profile"}}}],
         },
        {"role": "user", "parts": [{"functionResponse": {"id": "f1", "name": "run_shell_command",
                                                         "response": {"output": "done in 41s"}}}]},
    ]
    p = tmp_path / "checkpoint-slow.json"
    p.write_text(json.dumps(contents), encoding="utf-8")
    t = load_transcript(p, redact=False)
    assert t.format == "gemini-cli"
    assert t.messages[1].meta["thinking"] == ["Profile the bundler first. @decision measure before changing"]
    assert t.messages[2].tool_results[0].call_id == t.messages[1].tool_calls[0].id == "f1"
    from compaction.transcripts.coverage import measure

    assert measure(p, t).coverage == 1.0


GEMINI_SPECSTORY = """<!-- Generated by SpecStory, Markdown v2.1.0 -->

<!-- gemini Session 1234 (2025-12-04 21:38:15Z) -->

_**User (2025-12-04 21:38:15Z)**_

double the event text size

---

_**Agent (gemini-2.5-flash 2025-12-04 21:38:40Z)**_

<tool-use data-tool-type="write" data-tool-name="replace"><details><summary>Tool use: **Edit**</summary>

Path: `/w/app/src/Provider.kt`

```diff
                textSize = 48f * settings.textSizeScale // Scaled
```

Result: Successfully modified file: /w/app/src/Provider.kt (1 replacements).
</details></tool-use>

_**Agent (gemini-2.5-flash 2025-12-04 21:38:41Z)**_

<tool-use data-tool-type="write" data-tool-name="write_file"><details><summary>Tool use: **WriteFile**</summary>

Path: `app/src/Event.kt`

```kt
data class Event(val id: Long, val isAllDay: Boolean)
```

Result: Successfully created and wrote to new file: /w/app/src/Event.kt.
</details></tool-use>

_**Agent (gemini-2.5-flash 2025-12-04 21:38:42Z)**_

<tool-use data-tool-type="write" data-tool-name="replace"><details><summary>Tool use: **Edit**</summary>

Path: `/Users/other/app/src/Provider.kt`

```diff
                textSize = 96f
```

Result: File path must be within one of the workspace directories: /w
</details></tool-use>

_**Agent (gemini-2.5-flash 2025-12-04 21:38:43Z)**_

<tool-use data-tool-type="write" data-tool-name="write_file"><details><summary>Tool use: **WriteFile**</summary>

Path: `notes.md`

```md
Result: 3 of 4 cases pass
```

Result: Successfully created and wrote to new file: /w/notes.md.
</details></tool-use>
"""


def test_specstory_gemini_file_tools_give_their_path_text_and_refusal(tmp_path):
    """cal-date-widget's 45 Gemini CLI edits were paths-less calls: its files came only from git output."""
    p = tmp_path / "gemini.md"
    p.write_text(GEMINI_SPECSTORY, encoding="utf-8")
    t = load_transcript(p)
    edit, write, outside, notes = _calls(t)
    assert (edit.kind, edit.path) == (ToolKind.EDIT, "/w/app/src/Provider.kt")
    assert "48f" in edit.arguments["new_string"]
    assert (write.kind, write.path) == (ToolKind.WRITE, "/w/app/src/Event.kt")  # as the tool answered
    assert write.arguments["content"].startswith("data class Event")
    results = [r for m in t.messages for r in m.tool_results]
    # the path outside the workspace was refused; the file's own "Result:" line is no answer of the tool's
    assert [r.is_error for r in results] == [False, False, True, False]
    made = {e.path for e in extract_events(t) if e.kind in (EventKind.EDIT, EventKind.WRITE) and not e.failed}
    assert made == {"/w/app/src/Provider.kt", "/w/app/src/Event.kt", "/w/notes.md"}


def test_pi_compaction_written_at_the_end_says_which_rounds_it_covers(tmp_path):
    """pi-mono: the compaction entry is the file's last line, of the entries before `firstKeptEntryIndex`;
    quoted last, its "Remaining Work" read as the latest state."""
    def message(role: str, text: str) -> str:
        return json.dumps({"type": "message", "message": {"role": role, "content": [{"type": "text", "text": text}]}})
    lines = [json.dumps({"type": "session", "version": 1, "cwd": "/w"}),
             message("user", "first"), message("assistant", "one"), message("user", "second"),
             message("assistant", "two"), message("user", "third"), message("assistant", "three"),
             json.dumps({"type": "compaction", "summary": "## Remaining Work\n1. docs/rpc.md", "firstKeptEntryIndex": 3,
                         "tokensBefore": 100})]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    t = load_transcript(path)
    summary = t.messages[-1]
    assert summary.text.startswith("[compaction summary of r1-r1 only, written after r3: older than the rounds after r1]\n"
                                   "## Remaining Work"), summary.text
