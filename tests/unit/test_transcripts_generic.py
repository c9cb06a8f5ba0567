"""The generic reader (issue 13 item 2): shapes invented for the tests, not taken from any real agent."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from compaction.model import Role, ToolKind, TranscriptError
from compaction.transcripts import candidates, load_transcript
from compaction.transcripts._speakers import infer_kind, speaker_of
from tests.conftest import REPO

FORMATS = REPO / "tests" / "data" / "formats"


def _calls(t):
    return [c for m in t.messages for c in m.tool_calls]


def _roles(t):
    return [m.role for m in t.messages]


@pytest.mark.parametrize("value,role", [
    ("user", "user"), ("HUMAN", "user"), ("CORTEX_STEP_TYPE_USER_INPUT", "user"), ("human_turn", "user"),
    ("assistant", "assistant"), ("ai", "assistant"), ("model", "assistant"), ("bot", "assistant"),
    ("PLANNER_RESPONSE", "assistant"), ("gpt", "assistant"), ("agentMessage", "assistant"),
    ("tool", "tool"), ("function", "tool"), ("observation", "tool"), ("toolResult", "tool"),
    ("function_response", "tool"), ("system", "system"), ("developer", "system"),
    ("tool_use", "call"), ("functionCall", "call"), ({"role": "human", "name": "x"}, "user"),
    ("message", None), ("RUN_COMMAND", None), ("", None), (3, None),
])
def test_speaker_words(value, role):
    assert speaker_of(value) == role


@pytest.mark.parametrize("args,kind", [
    ({"file": "a.py", "contents": "x"}, ToolKind.WRITE),
    ({"target_file": "a.py", "old_text": "x", "new_text": "y"}, ToolKind.EDIT),
    ({"path": "a.py", "diff": "@@"}, ToolKind.EDIT),
    ({"cmd": "make test"}, ToolKind.SHELL),
    ({"step.commandLine": "ls"}, ToolKind.SHELL),
    ({"pattern": "TODO", "path": "src"}, ToolKind.SEARCH),
    ({"absolutePath": "/r/a.py"}, ToolKind.READ),
    ({"question": "why?"}, ToolKind.OTHER),
])
def test_unknown_tools_are_classified_by_their_arguments(args, kind):
    assert infer_kind(args)[0] == kind


def test_jsonl_speaker_body_blocks_and_pairing_by_id_then_order():
    t = load_transcript(FORMATS / "generic_speaker_body.jsonl")
    assert t.format == "generic-jsonl" and t.meta["inferred"] == "speaker=speaker, text=body"
    assert _roles(t) == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT, Role.TOOL, Role.TOOL, Role.ASSISTANT]
    calls = _calls(t)
    assert [(c.name, c.kind, c.path or c.command) for c in calls] == [
        ("open_source", ToolKind.READ, "lib/cache.py"),  # unknown names, kept with their arguments
        ("modify_source", ToolKind.EDIT, "lib/cache.py"),  # arguments given as a JSON string
        ("sh", ToolKind.SHELL, "pytest -q tests/test_cache.py"),
    ]
    results = [r for m in t.messages for r in m.tool_results]
    assert [r.call_id for r in results] == ["c1", "c2", "c3"]  # by id, then the two observations by order
    assert results[2].content.endswith("@decision expiry is checked lazily on get")
    assert t.messages[-1].text == "Expired entries are now dropped on read.\n@todo add a background sweeper"


def test_json_object_holding_steps_with_operation_records():
    t = load_transcript(FORMATS / "generic_steps_nested.json")
    assert t.format == "generic-json" and "speaker=type" in t.meta["inferred"]
    calls = _calls(t)
    assert [(c.name, c.kind, c.path or c.command) for c in calls] == [
        ("VIEW_FILE", ToolKind.READ, "/srv/app/deploy.sh"),
        ("CODE_ACTION", ToolKind.EDIT, "/srv/app/deploy.sh"),
        ("RUN_COMMAND", ToolKind.SHELL, "DRY_RUN=1 sh deploy.sh"),
    ]
    out = next(r for m in t.messages for r in m.tool_results)
    assert out.call_id == calls[2].id and out.content.startswith("dry run: nothing uploaded")
    assert t.messages[0].role is Role.USER and "@important nothing may be uploaded" in t.messages[0].text


def test_steps_with_a_source_and_a_type_read_operations_by_type():
    """`source` says who issued a step and `type` what it is: an operation type wins over the source."""
    t = load_transcript(FORMATS / "generic_steps_source.jsonl")
    assert t.format == "generic-jsonl"
    calls = _calls(t)
    assert [(c.kind, c.path or c.command) for c in calls] == [
        (ToolKind.READ, "/w/app/cli.py"),  # VIEW_FILE: the name's words, not the content beside the path
        (ToolKind.EDIT, "/w/app/cli.py"),  # CODE_ACTION: a path with replacement chunks
        (ToolKind.SHELL, "python -m app --version"),
    ]
    (result,) = [r for m in t.messages for r in m.tool_results]
    assert result.exit_code == 0 and result.content == "app 1.4.0\n" and result.call_id == calls[2].id
    note = next(m for m in t.messages if m.role is Role.SYSTEM)
    assert note.text.startswith("The user has 2 unsaved files.")  # a system notice the model saw is kept
    assert t.messages[1].meta["thinking"] == ["cli.py probably builds the parser"]
    assert sum(t.skipped_kinds.values()) == 1  # the step with no text at all


def test_sharegpt_from_value_with_a_function_call_record():
    t = load_transcript(FORMATS / "generic_sharegpt.json")
    assert t.meta["inferred"] == "speaker=from, text=value"
    assert _roles(t) == [Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]
    (call,) = _calls(t)
    assert (call.name, call.kind, call.path) == ("write_file", ToolKind.WRITE, "text/slug.py")
    assert t.messages[3].tool_results[0].call_id == call.id


def test_author_objects_and_nested_part_lists():
    t = load_transcript(FORMATS / "generic_author_blocks.json")
    assert t.meta["inferred"].startswith("speaker=author")
    (call,) = _calls(t)
    assert (call.name, call.kind, call.path) == ("edit_crontab", ToolKind.EDIT, "ops/crontab")
    (result,) = [r for m in t.messages for r in m.tool_results]
    assert result.call_id == "t9" and result.content == "crontab updated @warning runs as root"


def test_markdown_headings_labels_and_fences():
    t = load_transcript(FORMATS / "generic_headings.md")
    assert t.format == "generic-markdown"
    assert _roles(t) == [Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.USER, Role.ASSISTANT, Role.TOOL]
    reply = t.messages[2].text
    assert "## User\nthis heading is inside the heredoc" in reply  # a heading inside a fence is content
    assert reply.endswith("@decision flush synchronously in tests")  # the line after the heredoc fence
    assert t.messages[3].text == "and the CI config?"  # `**User:** text` on one line
    assert t.messages[5].tool_results[0].content == "5 passed @warning xdist hides ordering bugs"


def test_markdown_cline_export_from_public_source():
    """`**User:**` / `**Assistant:**` sections, XML tool tags, `[x for 'y'] Result:`, `[Tool Use: x]`, `[Tool]`."""
    t = load_transcript(FORMATS / "generic_cline_export.md")
    assert t.format == "generic-markdown"
    calls = _calls(t)
    assert [(c.name, c.kind, c.path or c.command) for c in calls] == [
        ("read_file", ToolKind.READ, "server.js"),
        ("replace_in_file", ToolKind.EDIT, "server.js"),
        ("execute_command", ToolKind.SHELL, "curl -s localhost:3000/health"),
        ("attempt_completion", ToolKind.OTHER, None),
    ]
    results = [r for m in t.messages for r in m.tool_results]
    assert [r.call_id for r in results] == [c.id for c in calls[:3]]
    assert t.messages[0].text == "Add a health endpoint to server.js\n@important it must not require auth"
    assert "@decision health is registered before auth" in calls[1].arguments["diff"]
    # the completion's report is the agent's reply, in its text (`_agent_tools.speech`), counted once
    (done,) = [m for m in t.messages if calls[3] in m.tool_calls]
    assert "/health answers without auth. @todo add it to the README" in done.text and calls[3].arguments == {}


def test_a_loader_that_claims_but_finds_nothing_lets_the_next_try(tmp_path):
    # the Markdown loader's old sniff took `## User` inside a fence for a speaker; whoever claims it, the
    # reader that finds the conversation wins
    p = tmp_path / "chat.md"
    p.write_text("**User:** hi\n\n```md\n## User\n## Assistant\n```\n\n**Assistant:** hello\n", encoding="utf-8")
    t = load_transcript(p)
    assert t.format == "generic-markdown" and [m.text for m in t.messages][-1] == "hello"


def test_a_claimed_file_with_no_message_is_an_error_naming_what_was_found(tmp_path):
    p = tmp_path / "events.jsonl"
    p.write_text('{"type": "heartbeat", "ts": 1}\n{"type": "heartbeat", "ts": 2}\n', encoding="utf-8")
    with pytest.raises(TranscriptError) as err:
        load_transcript(p)
    assert f"no conversation found in {p} (" in str(err.value) and "generic: 0 messages" in str(err.value)


def test_cli_exits_1_on_an_empty_result_and_never_prints_a_compaction(tmp_path):
    p = tmp_path / "empty.json"
    p.write_text(json.dumps({"messages": [{"role": "user", "content": ""}, {"role": "assistant", "content": []}]}),
                 encoding="utf-8")
    for command in ("compact", "stats"):
        run = subprocess.run([sys.executable, "-m", "compaction.cli", command, str(p)], capture_output=True, text=True,
                             cwd=tmp_path)
        assert run.returncode == 1, run.stdout
        assert run.stdout == "" and f"no conversation found in {p}" in run.stderr


def test_stats_names_the_inferred_shape():
    run = subprocess.run([sys.executable, "-m", "compaction.cli", "stats", str(FORMATS / "generic_speaker_body.jsonl")],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "format: generic-jsonl (inferred: speaker=speaker, text=body)" in run.stdout


def test_generic_is_the_last_resort():
    assert [m.NAME for m in candidates(FORMATS / "openai_chat.json")][-1] == "generic"
    assert candidates(FORMATS / "openai_chat.json")[0].NAME == "openai-chat"


@pytest.mark.parametrize("text", [
    '{"role": "user"}',  # a lone record without text
    "[1, 2, 3]",
    '[{"role": {"role": {"role": "user"}}, "content": [[[["deep"]]]]}]',
    '{"a": {"b": {"c": {"d": {"e": [{"from": "human", "value": "too deep to look for"}]}}}}}',
])
def test_odd_json_is_read_or_refused_by_name(tmp_path, text):
    p = tmp_path / "odd.json"
    p.write_text(text, encoding="utf-8")
    try:
        t = load_transcript(p, fmt="generic")
    except TranscriptError as exc:
        assert str(exc).startswith(str(p))
    else:
        assert any(m.text for m in t.messages)


def test_arguments_json_encoded_twice_read_as_the_agent_meant_them(tmp_path):
    """Some agents store an argument as the JSON text of a string (found on a real trajectory after
    its first run): `"\\"C:\\\\\\\\proj\\\\\\\\app.py\\""` is the path `C:\\proj\\app.py`, not a path with quotes."""
    records = [
        {"speaker": "HUMAN", "body": "Create the app module."},
        {"speaker": "AI", "body": [{"type": "tool_use", "id": "w1", "name": "write_to_file",
                                    "input": {"TargetFile": json.dumps("C:\\proj\\app.py"),
                                              "CodeContent": json.dumps("x = 1\n")}}]},
        {"speaker": "tool", "body": [{"type": "tool_result", "tool_use_id": "w1", "content": "Created file."}]},
    ]
    path = tmp_path / "steps.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    t = load_transcript(path)
    (call,) = _calls(t)
    assert call.arguments["TargetFile"] == "C:\\proj\\app.py" and call.arguments["CodeContent"] == "x = 1\n"
    assert call.path and call.path.endswith("app.py") and '"' not in call.path


def test_a_cline_export_tool_use_block_that_speaks_is_the_agents_text(tmp_path):
    """`[Tool Use: plan_mode_respond]` with a `Response:` in an exported task: the plan is the reply's text, in
    place, once (not also in the block's rendering)."""
    p = tmp_path / "cline_task.md"
    p.write_text("**User:**\n\nMake it pip-installable\n\n---\n\n**Assistant:**\n\nHere is my plan.\n\n"
                 "[Tool Use: plan_mode_respond]\nResponse: 1. Move the code into image_sd/core.py\n"
                 "2. Add setup.cfg and MANIFEST.in with the model files\n\n---\n\n"
                 "**User:**\n\n[plan_mode_respond] Result:\nACT MODE now\n", encoding="utf-8")
    t = load_transcript(p)
    reply = next(m for m in t.messages if m.role is Role.ASSISTANT)
    assert reply.text.startswith("Here is my plan.") and "Add setup.cfg and MANIFEST.in" in reply.text
    assert reply.full_text().count("MANIFEST.in") == 1
    (call,) = reply.tool_calls
    assert call.name == "plan_mode_respond" and "raw" not in call.arguments


def test_a_cline_export_fence_left_open_ends_at_the_next_speaker_and_the_users_words_are_requests(tmp_path):
    """Cline's export leaves a ```tool_use fence open before `---` / `**User:**`: the next message is still a
    message. The user's words ride inside its tags (`<task>`, a resumption's `<user_message>`, a completion's
    `<feedback>`): they are requests; the harness text around them is not, nor the task sent again."""
    todo = "# TODO LIST RECOMMENDED\nWhen starting a new task, it is recommended to create a todo list.\n"
    p = tmp_path / "cline_task.md"
    p.write_text(
        f"**User:**\n\n<task>\nAdd a --json flag\n</task>\n\n\n{todo}\n---\n\n"
        "**Assistant:**\n\nReading it.\n\n```tool_use\n<read_file>\n<path>cli.py</path>\n</read_file>\n\n---\n\n"
        "**User:**\n\n[read_file for 'cli.py'] Result:\nimport argparse\n\n---\n\n"
        "**Assistant:**\n\nDone.\n\n```tool_use\n<attempt_completion>\n<result>\nAdded.\n</result>\n"
        "</attempt_completion>\n\n---\n\n"
        "**User:**\n\n[attempt_completion] Result:\nThe user has provided feedback on the results.\n"
        "<feedback>\nAlso document it in the README\n</feedback>\n\n---\n\n"
        "**Assistant:**\n\nDocumented.\n\n---\n\n"
        "**User:**\n\n[TASK RESUMPTION] This task was interrupted 1 minute ago.\n"
        "<task>\nAdd a --json flag\n</task>\nNew instructions for task continuation:\n"
        f"<user_message>\nName the flag --format json instead\n</user_message>\n\n{todo}\n---\n\n"
        "**Assistant:**\n\nRenamed.\n", encoding="utf-8")
    t = load_transcript(p)
    assert [r.content for m in t.messages for r in m.tool_results][0] == "import argparse"
    asked = [m.text for m in t.messages if m.role is Role.USER and not m.harness]
    assert asked == ["Add a --json flag", "Also document it in the README", "Name the flag --format json instead"]
    harness = [m.text for m in t.messages if m.role is Role.USER and m.harness]
    assert any(text.startswith("# TODO LIST RECOMMENDED") for text in harness)
    assert len(t.rounds) == 4


def test_a_step_holding_only_an_outcome_is_the_result_of_the_call_its_reply_made(tmp_path):
    """Antigravity's shape: the planner's reply names its calls; each later step of the model, typed by what
    it did (SEARCH_WEB, CODE_ACTION) and holding only its text, is the next call's output, in order."""
    steps = [
        {"source": "USER_EXPLICIT", "type": "USER_INPUT", "content": "find the repo and its layout"},
        {"source": "MODEL", "type": "PLANNER_RESPONSE", "content": "I will search twice.",
         "tool_calls": [{"name": "search_web", "args": {"query": "x"}}, {"name": "search_web", "args": {"query": "y"}}]},
        {"source": "MODEL", "type": "SEARCH_WEB", "status": "DONE", "created_at": "2026-06-09T07:14:32Z",
         "content": "Results for X: a CLI on Claude Code"},
        {"source": "MODEL", "type": "SEARCH_WEB", "status": "DONE", "content": "Results for Y: config/profile.yml"},
        {"source": "MODEL", "type": "VIEW_FILE", "AbsolutePath": "/w/a.py", "content": "print(1)"},
    ]
    path = tmp_path / "steps.jsonl"
    path.write_text("\n".join(json.dumps(s) for s in steps))
    t = load_transcript(path)
    results = [(r.name, r.content) for m in t.messages for r in m.tool_results]
    assert results[:2] == [("search_web", "Results for X: a CLI on Claude Code"),
                           ("search_web", "Results for Y: config/profile.yml")]
    calls = _calls(t)
    assert [c.name for c in calls][:2] == ["search_web", "search_web"] and "SEARCH_WEB" not in [c.name for c in calls]
    assert any(c.path == "/w/a.py" for c in calls)  # a step naming its own path is a call of its own
