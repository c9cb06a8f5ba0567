"""Edits an exporter recorded without their path or arguments (SpecStory's Copilot Chat keeps only the
result's `textEditContent`): their text comes from the result, their file from that text when exactly
one file the session showed shares it, and their old text from the file's known content."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from compaction.edit_owner import extensions, in_language, owner
from compaction.edits import anchored_change, replay, shown_text
from compaction.events import EventKind, extract_events
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds

TREE = """import { Component } from '@acme/vanilla'

class TreeExample extends Component {
  private readonly rootEl: HTMLElement
  private readonly labelEl: HTMLElement | null

  constructor(rootEl: HTMLElement) {
    super(rootEl)
    this.rootEl = rootEl
    this.labelEl = rootEl.querySelector('[data-label]')
  }
}
"""
SPEC = """import { describe, it } from 'vitest'

describe('tree', () => {
  it('selects an item on click', async () => {
    await clickItem('package.json')
  })
})
"""


def _copilot_result(new: str) -> str:
    """A result as SpecStory renders Copilot's `copilot_replaceString` (no arguments, only this)."""
    payload = {"invocationMessage": "Using \"Replace String in File\"", "content": f"```typescript\n{new}\n```\n\n",
               "textEditContent": new, "toolCallResult": None}
    return "Tool use: **copilot_replaceString**\n\nResult:\n\n```json\n" + json.dumps(payload, indent=2) + "\n```"


def _transcript(msgs: list[Message]) -> Transcript:
    for i, m in enumerate(msgs):
        m.index = i
    return Transcript("s.md", "test", msgs, group_rounds(msgs))


def _call(cid: str, call: ToolCall, result: str) -> list[Message]:
    return [Message(0, Role.ASSISTANT, "Working.", [call]), Message(0, Role.TOOL, tool_results=[ToolResult(result, cid)])]


def _create(cid: str, path: str, content: str) -> list[Message]:
    return _call(cid, ToolCall("createFile", {"path": path, "content": content}, cid, ToolKind.WRITE, path=path), "ok")


def _replace(cid: str, new: str) -> list[Message]:
    return _call(cid, ToolCall("copilot_replaceString", {}, cid, ToolKind.EDIT), _copilot_result(new))


def _edits(msgs: list[Message]):
    return [e for e in extract_events(_transcript([Message(0, Role.USER, "write the tree example"), *msgs]))
            if e.kind is EventKind.EDIT]


def test_the_result_keeps_the_text_of_an_edit_whose_arguments_are_empty() -> None:
    assert shown_text(_copilot_result("  super(rootEl)\n  this.x = 1")) == "  super(rootEl)\n  this.x = 1"
    # an exporter's labelled metadata fence is not the file's text; the one code block is
    assert shown_text("Parameters:\n\n```json\n{\"a\": 1}\n```\n\n```python\nx = 1\n```") == "x = 1"
    assert shown_text("```python\nx = 1\n```\n```python\ny = 2\n```") == ""  # two blocks: which one is unknown
    assert shown_text("```text\nEdit applied.\n```") == ""  # a tool's output, not the file's text


def test_a_pathless_edit_goes_to_the_one_file_whose_text_it_shares_with_its_old_text_recovered() -> None:
    fixed = ("class TreeExample extends Component {\n  private readonly labelEl: HTMLElement | null\n\n"
             "  constructor(rootEl: HTMLElement) {\n    super(rootEl)\n    this.labelEl = rootEl.querySelector('[data-label]')")
    edits = _edits([*_create("c1", "ex/Tree.ts", TREE), *_create("c2", "test/tree.spec.ts", SPEC), *_replace("e1", fixed)])
    assert [(e.path, e.inferred) for e in edits] == [("ex/Tree.ts", True)]
    removed = [line.strip() for h in edits[0].hunks for line in h.removed]
    added = [line for h in edits[0].hunks for line in h.added]
    assert removed == ["private readonly rootEl: HTMLElement", "this.rootEl = rootEl"] and added == []


def test_a_declared_test_name_tells_the_file_and_a_later_edit_replays_on_the_first() -> None:
    new = "describe('tree', () => {\n  it('selects an item on click', async () => {\n    await clickItem('README.md')\n  })"
    edits = _edits([*_create("c1", "ex/Tree.ts", TREE), *_create("c2", "test/tree.spec.ts", SPEC), *_replace("e1", new)])
    assert [e.path for e in edits] == ["test/tree.spec.ts"]
    assert [(h.removed, h.added) for h in edits[0].hunks] == [(("    await clickItem('package.json')",),
                                                               ("    await clickItem('README.md')",))]


def test_an_edit_two_files_share_or_none_holds_names_no_file() -> None:
    shared = "import { Component } from '@acme/vanilla'\nimport { describe, it } from 'vitest'"
    both = _edits([*_create("c1", "a/one.ts", shared), *_create("c2", "b/two.ts", shared), *_replace("e1", shared)])
    unseen = _edits([*_create("c1", "a/one.ts", TREE), *_replace("e1", "export const answer = computeTheAnswer(42)")])
    assert both == [] and unseen == []


def test_owner_needs_evidence_only_one_file_holds_and_a_matching_language() -> None:
    known = {"a.py": ["def load_config(path):\n    return parse(path)"], "b.py": ["def save_config(path):\n    pass"]}
    assert owner("def load_config(path):\n    return parse(path, strict=True)", known) == "a.py"
    assert owner("def load_config(path):\n    return parse(path, strict=True)", known, "typescript") is None
    assert owner("    pass", known) is None  # too short to tell files apart
    assert owner("x = 1", {}) is None


def test_fence_languages_map_to_extensions_in_one_place() -> None:
    assert "tsx" in extensions("typescript") and "mjs" in extensions("JavaScript") and extensions("python")[0] == "py"
    assert in_language("src/App.tsx", "typescript") and not in_language("src/app.py", "typescript")
    assert extensions("astro") == ("astro",) and in_language("docker/Dockerfile", "dockerfile")
    assert not in_language("notes.txt", "text")  # a language naming no extension names no file


def test_anchoring_fails_safe_and_replay_follows_old_new_pairs() -> None:
    assert anchored_change("f.ts", TREE, "brand new line one\nbrand new line two") is None
    change = anchored_change("f.ts", TREE, "    super(rootEl)\n    this.rootEl = rootEl\n    this.ready = true")
    assert change is not None and change.hunks[0].source is not None
    after = replay(TREE, change.hunks)
    assert after is not None and "this.ready = true" in after and "this.labelEl = rootEl" in after


def test_an_exporters_labelled_json_block_does_not_say_the_edits_language() -> None:
    read = ToolCall("readFile", {"path": "package.json"}, "r1", ToolKind.READ, path="package.json")
    msgs = [*_call("r1", read, "{\n  \"name\": \"x\"\n}"), *_replace("e1", "export const answer = computeTheAnswer(42)")]
    assert _edits(msgs) == []  # `Result:` then ```json is the tool's metadata, not a JSON edit of package.json


def test_a_reads_output_is_known_text_of_its_file() -> None:
    read = ToolCall("readFile", {"path": "src/loader.py"}, "r1", ToolKind.READ, path="src/loader.py")
    other = ToolCall("readFile", {"path": "src/saver.py"}, "r2", ToolKind.READ, path="src/saver.py")
    source = "def load_config(path):\n    with open(path) as handle:\n        return parse_config(handle.read())\n"
    new = "def load_config(path):\n    with open(path, encoding='utf-8') as handle:\n        return parse_config(handle.read())"
    msgs = [*_call("r1", read, source), *_call("r2", other, "def save_config(path, data):\n    pass\n"),
            *_call("e1", ToolCall("edit", {}, "e1", ToolKind.EDIT), f"```python\n{new}\n```")]
    assert [e.path for e in _edits(msgs)] == ["src/loader.py"]


def test_the_error_memorys_key_change_reads_a_result_only_edit() -> None:
    from compaction.errors.scan import key_change
    call = ToolCall("copilot_replaceString", {}, "e1", ToolKind.EDIT)
    assert key_change(call) == ""
    assert key_change(call, ToolResult(_copilot_result("class TreeExample extends Component {"), "e1")) == \
        "new text of `TreeExample`"


_LINES = st.lists(st.sampled_from(["}", "", "  return value", "def alpha(x):", "class Beta:", "    gamma = compute(x)",
                                   "    delta = other(y, z)", "import os", "    return gamma + delta"]), max_size=14)


@settings(max_examples=150, deadline=None, database=None)
@given(_LINES, _LINES)
def test_an_anchored_change_always_replays_to_a_text_holding_the_new_text(file_lines, new_lines) -> None:
    content, new = "\n".join(file_lines), "\n".join(new_lines)
    change = anchored_change("f.py", content, new)
    if change is not None and any(h.source for h in change.hunks):
        after = replay(content, change.hunks)
        assert after is not None and new in after
    assert owner(new, {"f.py": [content], "g.py": [content]}) is None  # evidence both hold names no one


def test_a_pathless_write_is_not_given_a_file_it_only_shares_boilerplate_with() -> None:
    from compaction.events import EventKind, extract_events
    from compaction.model import Message, Role, ToolCall, ToolResult
    from tests.unit.synthetic import transcript
    head = "import { describe, it, expect } from 'vitest'\nimport { render } from '../src/render'\n"
    msgs = [Message(0, Role.USER, "add tests"),
            Message(0, Role.ASSISTANT, "", tool_calls=[ToolCall("read", {"path": "test/a.spec.ts"}, "r", "read",
                                                               path="test/a.spec.ts")]),
            Message(0, Role.TOOL, tool_results=[ToolResult(head + "describe('a', () => {})\n", "r")]),
            Message(0, Role.ASSISTANT, "", tool_calls=[ToolCall("write", {"content": head + "describe('b', () => {})\n"},
                                                               "w", "write")]),
            Message(0, Role.TOOL, tool_results=[ToolResult("Wrote file.", "w")])]
    writes = [e for e in extract_events(transcript(msgs)) if e.kind is EventKind.WRITE]
    assert all(e.path != "test/a.spec.ts" for e in writes)
