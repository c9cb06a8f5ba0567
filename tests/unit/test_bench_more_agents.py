"""The more-agents part of the evaluation harness: scoring rules, marker planting per format (the
copy keeps its format and carries every marker), set-aside handling, unreadable sessions."""

from __future__ import annotations

import json
from pathlib import Path

from bench import more_agents, plant, plant_json, plant_markdown, report
from bench.more_agents import file_kept, opening_words, task_kept

# --------------------------------------------------------------------------- scoring


def test_file_kept_by_path_windows_spelling_or_unambiguous_basename():
    files = ["src/a/util.ts", "src/b/util.ts", "docs/guide.md"]
    assert file_kept("src/a/util.ts", "edited src\\a\\util.ts twice", files)
    assert not file_kept("src/b/util.ts", "edited util.ts", files)  # two util.ts: the basename is ambiguous
    assert file_kept("docs/guide.md", "- guide.md (rewritten)", files)
    assert not file_kept("docs/guide.md", "- myguide.md.bak", files)


def test_file_kept_under_a_home_directory_spelled_from_tilde():
    files = ["/Users/me/Library/LaunchAgents/com.x.plist", "/Users/me/proj/com.x.plist"]
    assert file_kept(files[0], "- `~/Library/LaunchAgents/com.x.plist`: created", files)
    assert not file_kept(files[0], "- `~/Library/LaunchAgents/com.x.plist.bak`", files)
    assert not file_kept(files[1], "- `~/Library/LaunchAgents/com.x.plist`: created", files)


def test_task_opening_is_matched_in_order_whatever_the_formatting():
    opening = opening_words("Fix the **parser** so that `--strict` rejects tabs")
    assert task_kept(opening, "> Fix the parser so that\n> --strict rejects tabs.")
    assert not task_kept(opening, "rejects tabs so that fix the parser strict")
    cut = "word " * 39 + "trunc"  # 200 characters: the last word may be cut by the excerpt
    assert opening_words(cut[:200], limit=50)[-1] == "word"


# --------------------------------------------------------------------------- planting


def _markers(name: str = "fixture"):
    """The markers planted in a copy of a file called `name` (tokens are seeded by the file name)."""
    return plant.make_markers(name)


def _needles_in(text: str, places, name: str = "fixture") -> bool:
    m = _markers(name)
    return all(m[p].needle in text for p in places)


def test_around_code_puts_lines_just_before_and_after_the_fence():
    out = plant_json.around_code("Here:\n```py\nx = 1\n```\nDone.", "BEFORE", "AFTER")
    assert out == "Here:\nBEFORE\n```py\nx = 1\n```\nAFTER\nDone."
    assert plant_json.around_code("no code here", "B", "A") is None


def test_claude_code_copy_carries_all_five_markers_and_stays_jsonl(tmp_path):
    recs = [
        {"type": "user", "message": {"role": "user", "content": "Add a flag"}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Like this:\n```py\nflag = True\n```\nthen test."},
            {"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "pytest", "description": "run tests"}}]}},
        {"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "3 passed"}]}},
    ]
    src = tmp_path / "src"
    src.mkdir()
    (src / "cc.jsonl").write_text("\n".join(json.dumps(r) for r in recs), encoding="utf-8")
    copy = plant.prepare(src / "cc.jsonl", "claude-code-session-jsonl", tmp_path)
    assert [m.where for m in copy.markers] == list(plant.PLACES) and not copy.missing
    rows = [json.loads(line) for line in copy.path.read_text(encoding="utf-8").splitlines()]
    text = rows[1]["message"]["content"][0]["text"]
    m = _markers("cc.jsonl")
    assert text.index(m["assistant_before_code"].needle) < text.index("```py") < text.index(m["assistant_after_code"].needle)
    assert m["tool_args"].needle in rows[1]["message"]["content"][1]["input"]["description"]
    assert m["tool_output"].needle in rows[2]["message"]["content"][0]["content"]
    assert rows[0]["message"]["content"].startswith("Add a flag")


def test_pi_copy_keeps_two_records_on_one_line(tmp_path):
    a = {"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "go"}]}}
    b = {"type": "message", "message": {"role": "assistant", "content": [
        {"type": "text", "text": "ok"}, {"type": "toolCall", "id": "1", "name": "bash", "arguments": {"command": "ls"}}]}}
    c = {"type": "message", "message": {"role": "toolResult", "toolCallId": "1", "content": [{"type": "text", "text": "a.txt"}]}}
    src = tmp_path / "src"
    src.mkdir()
    (src / "pi.jsonl").write_text(json.dumps(a) + json.dumps(b) + "\n" + json.dumps(c) + "\n", encoding="utf-8")
    copy = plant.prepare(src / "pi.jsonl", "pi-coding-agent-session-jsonl", tmp_path)
    lines = copy.path.read_text(encoding="utf-8").split("\n")
    assert len(lines) == 3 and lines[0].count('"type": "message"') == 2
    assert _needles_in(copy.path.read_text(encoding="utf-8"), plant.PLACES, "pi.jsonl")
    assert "no fenced block" in copy.notes[0]


def test_codex_arguments_stay_a_json_string(tmp_path):
    recs = [
        {"type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}},
        {"type": "response_item", "payload": {"type": "function_call", "name": "shell_command", "call_id": "c",
                                              "arguments": json.dumps({"command": "Get-ChildItem", "workdir": "C:\\r"})}},
        {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "c", "output": "a.txt"}},
    ]
    src = tmp_path / "src"
    src.mkdir()
    (src / "cx.jsonl").write_text("\n".join(json.dumps(r) for r in recs), encoding="utf-8")
    copy = plant.prepare(src / "cx.jsonl", "codex-rollout-jsonl", tmp_path)
    rows = [json.loads(line) for line in copy.path.read_text(encoding="utf-8").splitlines()]
    args = json.loads(rows[1]["payload"]["arguments"])
    assert args["workdir"] == "C:\\r" and _markers("cx.jsonl")["tool_args"].needle in args["command"]
    assert copy.missing == {"assistant_before_code": "no such place in this session",
                            "assistant_after_code": "no such place in this session"}


def test_gemini_and_antigravity_plant_in_their_own_leaves(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    gem = [{"role": "user", "parts": [{"text": "<session_context>ctx</session_context>"}]},
           {"role": "user", "parts": [{"text": "do it"}]},
           {"role": "model", "parts": [{"text": "plan:\n```sh\nls\n```"}, {"functionCall": {"name": "run", "args": {"command": "ls"}}}]},
           {"role": "user", "parts": [{"functionResponse": {"name": "run", "response": {"output": "a"}}}]}]
    (src / "g.json").write_text(json.dumps(gem), encoding="utf-8")
    copy = plant.prepare(src / "g.json", "gemini-cli-history-json", tmp_path)
    data = json.loads(copy.path.read_text(encoding="utf-8"))
    assert data[0]["parts"][0]["text"] == "<session_context>ctx</session_context>"  # injected context untouched
    assert _needles_in(json.dumps(data), plant.PLACES, "g.json")
    ag = [{"type": "USER_INPUT", "source": "USER_EXPLICIT", "content": "<USER_REQUEST>\nbuild\n</USER_REQUEST>"},
          {"type": "PLANNER_RESPONSE", "source": "MODEL", "content": "x\n```py\n1\n```\n",
           "tool_calls": [{"name": "list_dir", "args": {"DirectoryPath": "\"C:\\\\a\"", "toolAction": "\"Listing\""}}]},
          {"type": "LIST_DIRECTORY", "source": "MODEL", "content": "a.py"}]
    (src / "ag.jsonl").write_text("\n".join(json.dumps(r) for r in ag), encoding="utf-8")
    copy = plant.prepare(src / "ag.jsonl", "antigravity-trajectory-jsonl", tmp_path)
    rows = [json.loads(line) for line in copy.path.read_text(encoding="utf-8").splitlines()]
    m = _markers("ag.jsonl")
    assert rows[0]["content"].endswith("</USER_REQUEST>") and m["user"].needle in rows[0]["content"]
    args = rows[1]["tool_calls"][0]["args"]
    assert args["DirectoryPath"] == "\"C:\\\\a\"" and m["tool_args"].needle in json.loads(args["toolAction"])
    assert not copy.missing


def _inserted_only(original: str, planted: str) -> list[str]:
    """The lines the copy added, after checking every original line is still there, in order."""
    orig, new = original.split("\n"), planted.split("\n")
    it = iter(new)
    added = []
    for line in orig:
        for cand in it:
            if cand == line:
                break
            added.append(cand)
    return added + list(it)


def test_markdown_planters_only_insert_lines(tmp_path):
    aider = ("# aider chat started\n\n#### make the loop faster please\n\nHere is the change for it.\n\n```ts\nfor (;;) {}\n```\n\n"
             "src/a.ts\n```ts\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n```\n\n> Applied edit to src/a.ts\n")
    cline = ("**User:**\n\n<task>\nPackage it\n</task>\n\n---\n\n**Assistant:**\n\nI will write it.\n\n```py\nx=1\n```\n\n"
             "<write_to_file>\n<path>a.py</path>\n<content>\nx=1\n</content>\n<task_progress>\n- [ ] write a.py\n</task_progress>\n"
             "</write_to_file>\n\n---\n\n**User:**\n\n[write_to_file for 'a.py'] Result:\nThe content was successfully saved to a.py.\n")
    spec = ("<!-- Claude Code Session x -->\n\n_**User (t)**_\n\nMake it nicer\n\n---\n\n_**Agent (m)**_\n\nProposal:\n\n```go\nx := 1\n```\n\n"
            "_**Agent (m)**_\n\n<tool-use data-tool-type=\"shell\" data-tool-name=\"Bash\"><details>\n<summary>Tool use: **Bash**</summary>\n"
            "`go test`\n\n```text\nok\n```\n</details></tool-use>\n\n"
            "<tool-use data-tool-type=\"task\" data-tool-name=\"TodoWrite\"><details>\n<summary>Tool use: **TodoWrite**</summary>\n"
            "- [ ] run tests\n\n</details></tool-use>\n")
    for fam, text in (("aider", aider), ("cline", cline), ("specstory", spec)):
        out, planted, _notes = plant_markdown.PLANTERS[fam](text, _markers())
        assert planted == set(plant.PLACES), fam
        added = _inserted_only(text, out)
        assert all("BMK-" in a or not a.strip() for a in added), (fam, added)
        assert _needles_in(out, plant.PLACES), fam


def test_specstory_code_inside_a_tool_block_is_not_assistant_text():
    spec = ("<!-- Codex CLI Session x -->\n\n_**User (t)**_\n\nRead it\n\n---\n\n_**Agent (m)**_\n\n"
            "<tool-use data-tool-type=\"shell\" data-tool-name=\"exec_command\"><details>\n"
            "<summary>Tool use: **exec_command** `ls`</summary>\n```\na.md\n```\n</details></tool-use>\n\n"
            "_**Agent (m)**_\n\nI read the files.\n")
    out, planted, notes = plant_markdown.plant_specstory(spec, _markers())
    lines = out.split("\n")
    before = lines.index(_markers()["assistant_before_code"].text)
    assert lines[before + 1] == "I read the files."  # fell back to prose, not the tool's fence
    assert "no fenced block" in notes[0]


# --------------------------------------------------------------------------- running and reporting


def _truth(tmp_path: Path, rows: list[dict]) -> Path:
    f = tmp_path / "truth.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return f


def test_unreadable_session_is_a_row_with_its_reason_not_a_crash(tmp_path):
    sessions = tmp_path / "s"
    sessions.mkdir()
    (sessions / "junk.md").write_text("\x00\x01 not a transcript", encoding="utf-8")
    truth = _truth(tmp_path, [{"file": "junk.md", "format": "specstory-md-v2", "held_out_for": [],
                               "modified_files": ["a.py"], "task_excerpt": "do it"}])
    res = more_agents.run(sessions, truth, log=lambda *_: None)
    s = res["sessions"][0]
    assert s["read"] is False and s["error"] and str(sessions) not in s["error"]
    assert res["groups"]["development"]["read"] == 0


def test_without_set_aside_never_touches_held_out_sessions(tmp_path):
    sessions = tmp_path / "s"
    sessions.mkdir()  # no files at all: a held-out row that was looked at would show "file not found"
    truth = _truth(tmp_path, [
        {"file": "dev.jsonl", "format": "claude-code-session-jsonl", "held_out_for": [], "modified_files": [], "task_excerpt": "x"},
        {"file": "gen.jsonl", "format": "antigravity-trajectory-jsonl", "held_out_for": ["issue-13"], "set_aside": True,
         "modified_files": [], "task_excerpt": "x"},
        {"file": "exam.jsonl", "format": "pi-coding-agent-session-jsonl", "held_out_for": ["issue-14"],
         "modified_files": [], "task_excerpt": "x"}])
    res = more_agents.run(sessions, truth, without_set_aside=True, log=lambda *_: None)
    assert [s["file"] for s in res["sessions"]] == ["dev.jsonl"]
    full = more_agents.run(sessions, truth, log=lambda *_: None)
    assert sorted(full["groups"]) == ["development", "issue-13", "issue-14"]


def test_report_keeps_set_aside_sessions_out_of_the_development_totals():
    def session(name, group, kept):
        sc = {"budget": 0.1, "target": 100, "tokens": 90, "within": True, "files_kept": ["a.py"] if kept else [],
              "files_lost": [] if kept else ["a.py"], "task_kept": kept, "markers_kept": [], "markers_lost": [], "error": None}
        return {"file": name, "format": "f", "group": group, "read": True, "error": None, "messages": 3, "rounds": 1,
                "tokens": 1000, "files_expected": 1, "task_opening": "x", "planted": [], "not_planted": {},
                "planting_notes": [], "budgets": [sc]}
    sessions = [session("dev.jsonl", "development", True), session("held.jsonl", "issue-13", False)]
    groups = {"development": {"sessions": 1, "read": 1, "files_expected": 1, "files_kept": 1, "task_kept": 1,
                              "markers_planted": 0, "markers_kept": 0, "within": {"10": 1}},
              "issue-13": {"sessions": 1, "read": 1, "files_expected": 1, "files_kept": 0, "task_kept": 0,
                           "markers_planted": 0, "markers_kept": 0, "within": {"10": 1}}}
    text = report.more_agents_section({"sessions": sessions, "budgets": [0.1], "scored_budget": 0.1,
                                       "without_set_aside": False, "groups": groups})
    dev, held = text.split("### set aside for issue 13")
    assert "dev.jsonl" in dev and "held.jsonl" not in dev
    assert "Total (development sessions only): read 1/1; modified files kept 1/1 (100%)" in dev
    assert "held.jsonl" in held and "modified files kept 0/1 (0%)" in held


def test_markers_of_an_unreadable_session_count_as_lost_and_a_bad_file_is_not_planted(tmp_path):
    sessions = tmp_path / "s"
    sessions.mkdir()
    good = [{"type": "USER_INPUT", "source": "USER_EXPLICIT", "content": "build it"},
            {"type": "PLANNER_RESPONSE", "source": "MODEL", "content": "ok"}]
    (sessions / "ag.jsonl").write_text("\n".join(json.dumps(r) for r in good), encoding="utf-8")
    (sessions / "bad.json").write_text("{ not json", encoding="utf-8")
    truth = _truth(tmp_path, [
        {"file": "ag.jsonl", "format": "antigravity-trajectory-jsonl", "held_out_for": [], "modified_files": [], "task_excerpt": "build it"},
        {"file": "bad.json", "format": "gemini-cli-history-json", "held_out_for": [], "modified_files": [], "task_excerpt": "x"}])
    res = more_agents.run(sessions, truth, log=lambda *_: None)
    by_name = {s["file"]: s for s in res["sessions"]}
    if not by_name["ag.jsonl"]["read"]:  # today no loader claims Antigravity: its planted markers are all lost
        assert by_name["ag.jsonl"]["planted"] and res["groups"]["development"]["markers_kept"] == 0
        assert res["groups"]["development"]["markers_planted"] == len(by_name["ag.jsonl"]["planted"])
    assert by_name["bad.json"]["planting_notes"][0].startswith("not planted: JSONDecodeError")
    assert by_name["bad.json"]["read"] is False and "bad.json" in by_name["bad.json"]["error"]


def test_a_file_is_kept_when_the_document_names_it_from_the_project_root():
    """The ground truth spells `repo/backend/pom.xml` from the project's parent, the document `backend/pom.xml`
    from the root: one file. A trailing part another file shares is no evidence."""
    files = ["repo/backend/pom.xml", "repo/frontend/pom.xml", "repo/backend/app/Main.java"]
    doc = "- `backend/pom.xml` (created)\n- `app/Main.java`: edited"
    assert file_kept(files[0], doc, files) and file_kept(files[2], doc, files)
    assert not file_kept(files[1], doc, files)
