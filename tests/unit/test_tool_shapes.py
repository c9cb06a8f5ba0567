"""Tools classified by what they do (issue 13 item 3): invented tool names and argument shapes, Windows
shells that must not invent files, one spelling per path, terminal escapes out of the text."""

from __future__ import annotations

import pytest

from compaction.events import EventKind, extract_events, shell_reads, shell_writes, tool_kind
from compaction.history import compact
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds
from compaction.transcripts import load_transcript
from compaction.transcripts.path_spelling import PathSpellings, is_windows_path
from compaction.transcripts.terminal import clean_text
from compaction.transcripts.tool_shapes import classify
from tests.conftest import TRANSCRIPTS

MORE = TRANSCRIPTS / "more-agents"


@pytest.mark.parametrize(("args", "kind"), [
    ({"target_path": "src/a.py", "path": "src/a.py", "content": "print(1)\n"}, ToolKind.WRITE),
    ({"file": "notes.md", "file_text": "# notes"}, ToolKind.WRITE),
    ({"filepath": "src/a.py", "old_text": "x = 1", "new_text": "x = 2"}, ToolKind.EDIT),
    ({"path": "a.ts", "search": "let a", "replace": "const a"}, ToolKind.EDIT),
    ({"path": "a.ts", "edits": [{"old_string": "a", "new_string": "b"}]}, ToolKind.EDIT),
    ({"diff": "--- a/src/m.go\n+++ b/src/m.go\n@@ -1 +1 @@\n-a\n+b\n"}, ToolKind.EDIT),
    ({"blob": "*** Begin Patch\n*** Update File: lib/x.rb\n@@\n-a\n+b\n*** End Patch"}, ToolKind.EDIT),
    ({"path": "x.py", "body": "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n"}, ToolKind.EDIT),
    ({"cmd": "make test"}, ToolKind.SHELL),
    ({"script": "npm run build"}, ToolKind.SHELL),
    ({"command": ["bash", "-lc", "pytest -q"]}, ToolKind.SHELL),
    ({"pattern": "def main", "path": "src/"}, ToolKind.SEARCH),
    ({"query": "where is the router"}, ToolKind.SEARCH),
    ({"path": "src/"}, ToolKind.SEARCH),
    ({"uri_path": "x", "path": "README.md"}, ToolKind.READ),
    ({"path": "a.py", "command": "view"}, ToolKind.READ),
    ({"path": "a.py", "command": "create", "file_text": "x"}, ToolKind.WRITE),
    ({"thought": "hmm"}, ToolKind.OTHER),
])
def test_unknown_tools_are_classified_by_their_arguments(args, kind):
    call = ToolCall(name="zz_frobnicate_v9", arguments=args)
    assert tool_kind(call) == kind


def test_known_names_stay_the_hint_and_the_loaders_call_is_not_changed():
    call = ToolCall(name="Read", arguments={"file_path": "a.py", "content": "x"}, kind=ToolKind.READ, path="a.py")
    assert classify(call) is call and tool_kind(call) == ToolKind.READ
    unknown = ToolCall(name="put_file", arguments={"path": "b.py", "content": "x"})
    assert classify(unknown).kind == ToolKind.WRITE and unknown.kind == ToolKind.OTHER


def _session(calls: list[ToolCall], results: list[str] | None = None, cwd: str | None = None) -> Transcript:
    msgs = [Message(0, Role.USER, "do the work"),
            Message(1, Role.ASSISTANT, "on it", tool_calls=calls)]
    for i, (c, out) in enumerate(zip(calls, results or ["ok"] * len(calls), strict=True)):
        msgs.append(Message(2 + i, Role.TOOL, "", tool_results=[ToolResult(out, call_id=c.id, exit_code=0)]))
    t = Transcript(path="s.json", format="test", messages=msgs, cwd=cwd)
    t.rounds = group_rounds(msgs)
    return t


def test_invented_tools_yield_file_events_and_modified_files():
    calls = [ToolCall("scribe", {"path": "src/new_mod.py", "content": "def f():\n    return 1\n"}, id="1"),
             ToolCall("mutate", {"file": "src/old_mod.py", "old": "a = 1", "new": "a = 2"}, id="2"),
             ToolCall("launch", {"cmd": "sed -i 's/x/y/' src/cfg.ini"}, id="3"),
             ToolCall("peek", {"path": "README.md"}, id="4")]
    events = extract_events(_session(calls))
    kinds = {(e.kind, e.path) for e in events if e.path}
    assert (EventKind.WRITE, "src/new_mod.py") in kinds
    assert (EventKind.EDIT, "src/old_mod.py") in kinds
    assert (EventKind.EDIT, "src/cfg.ini") in kinds
    assert (EventKind.READ, "README.md") in kinds


@pytest.mark.parametrize("command", [
    'node -e "process.on(\'x\', e => console.error(e))" 2>nul',
    "dir /b > nul",
    "npm test 2>NUL",
    "Get-ChildItem | Out-Null",
    "Write-Output hi > $null",
    "echo 'a => b' | grep x",
])
def test_windows_shells_invent_no_files(command):
    assert shell_writes(command) == []


@pytest.mark.parametrize(("command", "expected"), [
    ('Set-Content -Path src\\app.ts -Value "x"', [(EventKind.WRITE, "src\\app.ts")]),
    ('"x" | Out-File -FilePath notes.md -Encoding utf8', [(EventKind.WRITE, "notes.md")]),
    ('Add-Content -Path log.txt -Value "line"', [(EventKind.EDIT, "log.txt")]),
    ("Add-Content log.txt 'line'", [(EventKind.EDIT, "log.txt")]),
    ("Remove-Item -Force old.js", [(EventKind.DELETE, "old.js")]),
    ("New-Item -ItemType Directory -Path build", []),
])
def test_powershell_writers_write_their_path(command, expected):
    assert shell_writes(command) == expected


def test_powershell_reads_are_reads():
    assert shell_reads('Get-Content -Path "C:\\repo\\README.md" -Raw') == ["C:\\repo\\README.md"]


def test_windows_and_posix_spellings_are_one_file():
    spell = PathSpellings.for_paths(["packages\\module\\x.ts"])
    assert spell("packages\\module\\x.ts") == spell("packages/module/x.ts") == "packages/module/x.ts"
    assert spell("c:\\Repo\\App.ts") == spell("C:/repo/app.ts")
    assert is_windows_path("C:\\x") and not is_windows_path("/home/u/x")
    posix = PathSpellings.for_paths(["/srv/App.ts", "src/app.ts"])
    assert posix("src/App.ts") != posix("src/app.ts")  # POSIX paths keep their case


def test_aider_windows_session_lists_each_file_once():
    t = load_transcript(MORE / "aider-monochromatic.md")
    files = [p.replace("\\", "/") for p in (i.text for i in compact(t, target_tokens=8000).summary.modified_files)]
    assert files and len(files) == len(set(files))
    assert not any("\\" in i.text for i in compact(t, target_tokens=8000).summary.modified_files)
    folded = [f.casefold() for f in files]
    assert len(folded) == len(set(folded))


def test_codex_windows_session_has_no_escape_leftovers():
    t = load_transcript(MORE / "codex-battle-cities-windows.jsonl")
    r = compact(t, target_tokens=2000)
    assert "[31;1m" not in r.markdown and "\x1b" not in r.markdown and "\r" not in r.markdown
    assert not any(p in {"nul", "console.error"} for p in (i.text for i in r.summary.modified_files))
    assert any(rec.id == "ERR_TOOL_FileNotFound" for rec in r.error_memory)


@pytest.mark.parametrize(("raw", "shown"), [
    ("\x1b[31;1mError:\x1b[0m bad", "Error: bad"),
    ("[31;1m[36;1m     | [31;1mCannot find path[0m", "     | Cannot find path"),
    ("line one\r\nline two\r\n", "line one\nline two\n"),
    ("10%\r50%\r100% done\nnext", "100% done\nnext"),
    ("\x1b]0;title\x07ok", "ok"),
    ("a[1] and arr[3] stay", "a[1] and arr[3] stay"),
])
def test_terminal_text_is_cleaned(raw, shown):
    assert clean_text(raw) == shown


def test_a_file_name_is_read_in_either_spelling():
    from compaction.transcripts.path_spelling import file_name

    assert file_name("c:\\Users\\t\\harmony\\src\\a.test.tsx") == file_name("src/a.test.tsx") == "a.test.tsx"
    assert file_name("/opt/bin/pnpm") == "pnpm" and file_name("dir/") == "dir"
