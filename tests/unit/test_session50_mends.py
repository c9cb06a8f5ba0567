"""Mends of session 50: an edit refused for its spacing says so, read off the file's own lines printed next; a
document's outline said in part keeps its upper levels and never counts a fenced sample's `# comment`."""

from __future__ import annotations

from compaction.edits import digest, outline_first
from compaction.errors import scan_transcript
from compaction.events import extract_events
from compaction.history.sections import Section
from compaction.history.sources import FactContext, gather
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds

_PADDED = ("    46\t### Challenge 1: Capturing Agent Activity\n    47\t\n"
           "    48\t| System          | Capture mechanism               |\n"
           "    49\t|-----------------|---------------------------------|\n"
           "    50\t| Agent Blame     | Hooks + prompt/tool capture     |\n")


def _call(msgs: list[Message], call: ToolCall, output: str, error: bool = False) -> None:
    msgs.append(Message(len(msgs), Role.ASSISTANT, "Next.", [call]))
    msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult(output, call.id, call.name, is_error=error,
                                                                       exit_code=1 if error else 0)]))


def _edit(path: str, old: str, new: str, cid: str) -> ToolCall:
    return ToolCall("Edit", {"file_path": path, "old_string": old, "new_string": new}, cid, ToolKind.EDIT, path=path)


def _sh(command: str, cid: str) -> ToolCall:
    return ToolCall("bash", {"command": command}, cid, ToolKind.SHELL, command=command)


def _refused(msgs: list[Message]) -> str:
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    rec = next(r for r in scan_transcript(t) if r.id == "ERR_TOOL_EditNotFound")
    return rec.solution or ""


def test_a_patch_refused_for_a_padded_table_says_the_file_pads_its_columns() -> None:
    """git-provenance r40: apply_patch failed ("Failed to find expected lines") on `| Agent Blame | Hooks … |`, the
    file having been reformatted with aligned columns; the record said only that it re-read the file."""
    msgs = [Message(0, Role.USER, "Add prose to each challenge.")]
    patch = ToolCall("apply_patch", {"input": "*** Begin Patch\n*** Update File: docs/S.md\n@@\n"
                                              " | Agent Blame | Hooks + prompt/tool capture |\n+More.\n*** End Patch"},
                     "p1", ToolKind.EDIT, path="docs/S.md")
    _call(msgs, patch, "apply_patch verification failed: Failed to find expected lines in /repo/docs/S.md:\n"
                       "| System | Capture mechanism |\n|---|---|\n| Agent Blame | Hooks + prompt/tool capture |", True)
    _call(msgs, _sh("nl -ba docs/S.md | sed -n '46,50p'", "c1"), _PADDED)
    _call(msgs, ToolCall("apply_patch", {"input": "*** Begin Patch\n*** Update File: docs/S.md\n*** End Patch"},
                         "p2", ToolKind.EDIT, path="docs/S.md"), "Success. Updated the following files:\nM docs/S.md")
    assert "its old text had other spacing than the file, whose table pads its columns to one width (r2)" \
        in _refused(msgs)


def test_an_edit_refused_for_its_indent_says_both_indents_but_not_of_its_first_line() -> None:
    """mapstruct's shape: the old text's second line indented 2 spaces where the file has 12. Its first line may start
    mid-line (`return …` inside an indented block matches as it is): its indent is no cause."""
    old = "return build.isEmpty() &&\n  build.getModifiers().contains(PUBLIC);"
    msgs = [Message(0, Role.USER, "Fix the builder check.")]
    _call(msgs, _edit("/repo/P.java", old, "return true;", "e1"),
          "Error: String to replace not found in file.", True)
    _call(msgs, _sh("cat -n P.java", "c1"), "    10\t        return build.isEmpty() &&\n"
                                            "    11\t            build.getModifiers().contains(PUBLIC);\n")
    _call(msgs, _edit("/repo/P.java", "return build.isEmpty() &&", "return true; //", "e2"), "ok")
    said = _refused(msgs)
    assert "its old text had other indents than the file: `build.getModifiers().co…` 2 spaces, the file's 12 spaces " \
           "(r2)" in said
    msgs2 = msgs[:3] + [Message(3, Role.ASSISTANT, "Next.", [_sh("cat -n P.java", "c1")]),
                        Message(4, Role.TOOL, tool_results=[ToolResult("    10\t        return build.isEmpty() &&\n"
                                                                       "    11\t  build.getModifiers().contains(PUBLIC);"
                                                                       "\n", "c1", "bash", exit_code=0)])]
    assert "other indents" not in _refused(msgs2)  # the lines match, the first one mid-line: no spacing cause


def test_an_edit_refused_for_another_reason_names_no_spacing() -> None:
    msgs = [Message(0, Role.USER, "Rename the helper.")]
    _call(msgs, _edit("/repo/a.py", "def helper_one(x):\n    return x + 1", "def helper(x):", "e1"),
          "Error: String to replace not found in file.", True)
    _call(msgs, _sh("cat -n a.py", "c1"), "     1\tdef helper_two(x):\n     2\t    return x + 2\n")
    assert "spacing" not in _refused(msgs) and "indents" not in _refused(msgs)


def test_a_partial_outline_keeps_the_upper_levels_in_the_documents_order() -> None:
    """git-provenance: "sections + 'Summary', + 'Quick Comparison', + 'Core Trade-offs', + '1) Fidelity vs Friction',
    + '2) Where You Pay …', + '4) Rewrite …' (+12)": three `###` items of one section said, the top-level
    'When To Use What' not."""
    items = ["Summary", "Quick", "Trade-offs", "1) Fidelity", "2) Complexity", "When To Use What"]
    assert outline_first(items, [1, 2, 2, 3, 3, 2], 4) == ["Summary", "Quick", "Trade-offs", "When To Use What",
                                                            "1) Fidelity", "2) Complexity"]
    assert outline_first(items, [1, 2], 4) == items  # levels not one per item: as they are
    assert outline_first(items[:3], [1, 2, 2], 4) == items[:3]


def test_a_documents_digest_skips_a_fenced_samples_comment_and_says_upper_levels_first() -> None:
    """pi-mono's skills.md: a fenced SKILL.md sample's `# My Skill` was read as one of its sections."""
    text = ("# Skills\n\n## Structure\n\n```markdown\n# My Skill\n## Setup\n```\n\n### Fields\n\n### Paths\n\n"
            "#### Naming\n\n## Locations\n\n## Repositories\n")
    d = digest(text.splitlines(), document=True)
    assert "My Skill" not in d.names and "Setup" not in d.names
    assert d.names == ("Skills", "Structure", "Fields", "Paths", "Naming", "Locations", "Repositories")
    assert outline_first(d.names, d.levels, 4) [:4] == ["Skills", "Structure", "Locations", "Repositories"]


def test_a_created_documents_line_names_its_upper_sections() -> None:
    text = "# Guide\n\n## Intro\n\n### a\n\n### b\n\n### c\n\n### d\n\n## Usage\n\n## FAQ\n"
    msgs = [Message(0, Role.USER, "Write the guide.")]
    _call(msgs, ToolCall("Write", {"file_path": "/repo/GUIDE.md", "content": text}, "w1", ToolKind.WRITE,
                         path="/repo/GUIDE.md"), "File created")
    t = Transcript("t.json", "test", msgs, group_rounds(msgs))
    ctx = FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"),
                      cwd="/repo", n_rounds=len(t.rounds), target_tokens=2000)
    fact = next(f for f in gather(ctx) if f.section is Section.MODIFIED and "GUIDE.md" in f.text)
    assert "sections Guide, Intro, Usage, FAQ (+4)" in (fact.full_text or ""), fact
