"""The ground-truth derivers of bench/ground_truth/: each format's rule on a small fixture, with
the cases that make a naive reading wrong (failed or denied edits, injected context, two records
on one line, Windows paths)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.ground_truth import (
    build_more_agents,
    derive_aider,
    derive_antigravity,
    derive_claude_code,
    derive_cline,
    derive_codex,
    derive_gemini,
    derive_pi,
    derive_specstory,
)
from bench.ground_truth.common import excerpt, relative


def _jsonl(path: Path, records: list) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def test_relative_folds_windows_spellings_and_keeps_outside_paths_whole():
    roots = ["C:\\proj"]
    assert relative("C:\\proj\\a\\b.ts", roots) == "a/b.ts"
    assert relative("c:/proj/a/b.ts", roots) == "a/b.ts"
    assert relative("file:///C:/proj/My%20Dir/x.py", roots) == "My Dir/x.py"
    assert relative("/home/u/.config/app.json", ["/work/proj"]) == "/home/u/.config/app.json"
    assert relative("./src/x.py", []) == "src/x.py"


def test_excerpt_folds_whitespace_strips_ansi_and_cuts_at_200():
    assert excerpt("a\n\n  b\tc") == "a b c"
    assert excerpt("\x1b[31;1mred\x1b[0m text") == "red text"
    assert len(excerpt("x" * 500)) == 200


def test_claude_code_counts_edits_that_succeeded_and_the_first_typed_request(tmp_path):
    f = _jsonl(tmp_path / "s.jsonl", [
        {"type": "user", "cwd": "/p", "message": {"role": "user", "content": [
            {"type": "text", "text": "<ide_opened_file>The user opened /p/x.csv</ide_opened_file>"},
            {"type": "text", "text": "Fix the parser please"}]}},
        {"type": "assistant", "cwd": "/p", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Edit", "input": {"file_path": "/p/src/a.py"}},
            {"type": "tool_use", "id": "t2", "name": "Edit", "input": {"file_path": "/p/src/b.py"}},
            {"type": "tool_use", "id": "t3", "name": "Read", "input": {"file_path": "/p/src/c.py"}}]}},
        {"type": "user", "cwd": "/p", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
            {"type": "tool_result", "tool_use_id": "t2", "content": "String not found", "is_error": True}]}},
    ])
    d = derive_claude_code.derive(f)
    assert d.changed == ["/p/src/a.py"]
    assert d.task == "Fix the parser please"
    assert d.roots == ["/p"]


def test_pi_reads_two_records_on_one_line_and_skips_failed_edits(tmp_path):
    session = {"type": "session", "cwd": "/r"}
    user = {"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "do it"}]}}
    calls = {"type": "message", "message": {"role": "assistant", "content": [
        {"type": "toolCall", "id": "a", "name": "edit", "arguments": {"path": "/r/x.ts"}},
        {"type": "toolCall", "id": "b", "name": "write", "arguments": {"path": "/r/y.ts"}}]}}
    failed = {"type": "message", "message": {"role": "toolResult", "toolCallId": "a", "isError": True, "content": []}}
    ok = {"type": "message", "message": {"role": "toolResult", "toolCallId": "b", "content": []}}
    text = "\n".join([json.dumps(session), json.dumps(user) + json.dumps(calls), json.dumps(failed), json.dumps(ok)])
    (tmp_path / "p.jsonl").write_text(text, encoding="utf-8")
    d = derive_pi.derive(tmp_path / "p.jsonl")
    assert d.changed == ["/r/y.ts"]
    assert d.task == "do it"


def test_codex_reads_patch_headers_and_skips_injected_instructions(tmp_path):
    patch = "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-x\n+y\n*** Add File: docs/new.md\n+hi\n*** Delete File: old.txt\n*** End Patch"
    f = _jsonl(tmp_path / "c.jsonl", [
        {"type": "session_meta", "payload": {"cwd": "C:\\repo"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user",
                                              "content": [{"type": "input_text", "text": "# AGENTS.md instructions for C:\\repo"}]}},
        {"type": "response_item", "payload": {"type": "message", "role": "user",
                                              "content": [{"type": "input_text", "text": "rename the flag"}]}},
        {"type": "response_item", "payload": {"type": "function_call", "name": "shell",
                                              "arguments": json.dumps({"command": ["apply_patch", patch]})}},
    ])
    d = derive_codex.derive(f)
    assert d.changed == ["src/a.rs", "docs/new.md"]
    assert d.task == "rename the flag"
    assert derive_codex.patch_targets(patch)[1] == ["old.txt"]


def test_aider_uses_applied_edit_lines_with_forward_slashes(tmp_path):
    f = tmp_path / "h.md"
    f.write_text("# aider chat started at 2025-06-02\n\n> Git working dir: C:\\w\\repo\n\n#### make it faster\n#### and log it\n\n"
                 "Sure.\n\n> Applied edit to src\\fast.ts\n> Applied edit to src\\fast.ts\n> Applied edit to README.md\n",
                 encoding="utf-8")
    d = derive_aider.derive(f)
    assert d.changed == ["src/fast.ts", "README.md"]
    assert d.task == "make it faster and log it"
    assert d.roots == ["C:\\w\\repo"]


def test_cline_counts_only_saved_results_not_denied_or_unexecuted(tmp_path):
    f = tmp_path / "t.md"
    f.write_text("**User:**\n\n<task>\nPackage this project\n</task>\n\n# Current Working Directory (/u/p) Files\n\n"
                 "**User:**\n\n[write_to_file for 'a.py'] Result:\nThe content was successfully saved to a.py.\n\n"
                 "[write_to_file for 'b.py'] Result:\nThe user denied this operation. The file was not created.\n\n"
                 "[replace_in_file for 'README.md'] Result:\nThe content was successfully saved to README.md.\n\n"
                 "Tool [write_to_file] was not executed because a tool has already been used in this message.\n",
                 encoding="utf-8")
    d = derive_cline.derive(f)
    assert d.changed == ["a.py", "README.md"]
    assert d.task == "Package this project"
    assert d.roots == ["/u/p"]


def test_gemini_skips_failed_replacements_and_injected_context(tmp_path):
    history = [
        {"role": "user", "parts": [{"text": "<session_context>\n- **Workspace Directories:**\n  - /g/repo\n</session_context>"}]},
        {"role": "user", "parts": [{"text": "<state_snapshot>goal</state_snapshot>"}]},
        {"role": "user", "parts": [{"text": "teams should not persist"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "replace", "args": {"file_path": "src/a.ts"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "replace", "response": {"error": "0 occurrences found"}}}]},
        {"role": "model", "parts": [{"functionCall": {"name": "replace", "args": {"file_path": "src/b.ts"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "replace", "response": {"output": "Successfully modified"}}}]},
    ]
    (tmp_path / "g.json").write_text(json.dumps(history), encoding="utf-8")
    d = derive_gemini.derive(tmp_path / "g.json")
    assert d.changed == ["src/b.ts"]
    assert d.task == "teams should not persist"
    assert d.roots == ["/g/repo"]


def test_antigravity_reads_code_action_file_urls(tmp_path):
    f = _jsonl(tmp_path / "a.jsonl", [
        {"step_index": 0, "type": "USER_INPUT", "content": "<USER_REQUEST>\nBuild the app\n</USER_REQUEST>"},
        {"step_index": 1, "type": "CODE_ACTION", "content": "Created file file:///C:/Users/A%20B/proj/app.py with requested content."},
        {"step_index": 2, "type": "CODE_ACTION", "content": "Edited file file:///C:/Users/A%20B/proj/app.py"},
    ])
    d = derive_antigravity.derive(f)
    assert [relative(p, ["C:/Users/A B/proj"]) for p in d.changed] == ["app.py"]
    assert d.task == "Build the app"


@pytest.mark.parametrize(("header", "body", "expected"), [
    ("<!-- Claude Code Session x -->", "File created successfully at: /p/plan.md\nThe file /p/main.go has been updated. Here", ["/p/plan.md", "/p/main.go"]),
    ("<!-- Codex CLI Session x -->", "**Add: `docs/a.md`**\n**Update: `docs/a.md`**\n**Delete: `old.md`**", ["docs/a.md"]),
    ("<!-- cursor Session x -->", "<details><summary>Edit file: /p/ci.yml</summary>", ["/p/ci.yml"]),
    ("<!-- vscode Session x -->", '<tool-use data-tool-type="unknown" data-tool-name="copilot_createFile">\n<details>\n'
     'Parameters:\n\n```json\n{\n  "file_path": "/p/Tree.ts"\n}\n```\n</details>\n</tool-use>', ["/p/Tree.ts"]),
])
def test_specstory_reads_each_agents_rendering(tmp_path, header, body, expected):
    f = tmp_path / "s.md"
    f.write_text(f"{header}\n\n_**User (2026-01-01)**_\n\nMake the sync link nicer\n\n---\n\n_**Agent**_\n\n{body}\n", encoding="utf-8")
    d = derive_specstory.derive(f)
    assert d.changed == expected
    assert d.task == "Make the sync link nicer"


def test_build_keeps_reading_decisions_and_marks_them_read(tmp_path):
    derived = derive_aider.derive  # any deriver's output shape
    row = {"file": "x.md", "format": "aider-chat-history-md", "agent": "aider"}
    f = tmp_path / "x.md"
    f.write_text("#### go\n> Applied edit to a.py\n> Applied edit to tmp.py\n", encoding="utf-8")
    rec = build_more_agents.record(row, derived(f), {"read_added": ["b.py"], "read_removed": ["tmp.py"]}, ["issue-13"])
    assert rec["modified_files"] == ["a.py", "b.py"]
    assert rec["mechanical_files"] == ["a.py", "tmp.py"]
    assert rec["modified_files_method"] == "read"
    assert rec["set_aside"] is True
    plain = build_more_agents.record(row, derived(f), {}, [])
    assert plain["modified_files_method"].startswith("mechanical:aider")
    assert plain["set_aside"] is False


def test_held_out_reads_both_issues_of_set_aside_md():
    text = ("## Issue 13 — reading\n- `more-agents/a.jsonl`\n- `more-agents/b.md`\n\n"
            "## Issue 14 — exam\n- `mini-x.traj.json` (mini)\n- `more-agents/a.jsonl` (pi)\n")
    assert build_more_agents.held_out(text) == {"a.jsonl": ["issue-13", "issue-14"], "b.md": ["issue-13"],
                                               "mini-x.traj.json": ["issue-14"]}


def test_committed_ground_truth_is_well_formed():
    rows = [json.loads(line) for line in build_more_agents.OUT.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 17
    for r in rows:
        assert r["task_excerpt"] and len(r["task_excerpt"]) <= 200
        assert r["modified_files_method"] == "read" or r["modified_files_method"].startswith("mechanical:")
        assert len(set(r["modified_files"])) == len(r["modified_files"])
        assert all("\\" not in p and not p.startswith("./") for p in r["modified_files"])
    assert sum(r["set_aside"] for r in rows) == 5


def test_derivers_never_import_the_compactor():
    import subprocess
    import sys

    code = ("import sys, bench.ground_truth.build_more_agents\n"
            "bad = [m for m in sys.modules if m == 'compaction' or m.startswith('compaction.')]\n"
            "sys.exit(1 if bad else 0)")
    assert subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[2]).returncode == 0


def test_committed_ground_truth_matches_a_fresh_derivation():
    sessions = build_more_agents.shared_dir()
    if not (sessions / "MANIFEST.tsv").is_file():
        pytest.skip("more-agents sessions not available")
    assert build_more_agents.main(["--check", "--sessions", str(sessions)]) == 0
