"""Change records that carry more per token: a prose file's edit as its lines old → new, and a code
edit that touched two places saying what went where."""

from __future__ import annotations

from compaction.history.sources.changes import prose_changes
from compaction.model import ToolResult
from compaction.transcripts._agent_tools import make_call
from tests.unit.test_change_records import _changes, _transcript


def test_a_rewritten_prose_line_reads_old_to_new_and_punctuation_alone_is_left_out():
    out = prose_changes(["- Follow airbnb style", "- Name every function.", "- Prefer const"],
                        ["- Adhere to ESLint, Oxlint and dprint.", "- Prefer named functions.", "- Prefer const."])
    assert out == ["'Follow airbnb style' → 'Adhere to ESLint, Oxlint and dprint.'",
                   "'Name every function.' → 'Prefer named functions.'"]


def test_added_prose_lines_are_shown_and_counted_past_the_limit():
    out = prose_changes([], ["- allow 1, -1, 0, 2, -2", "- use dprint", "- single quotes"])
    assert out[0] == "+ 'allow 1, -1, 0, 2, -2'" and out[-1] == "(+1 more lines)"


def test_a_markdown_edit_record_shows_its_lines_not_a_raw_diff():
    call = make_call("Edit", {"file_path": "CONVENTIONS.md", "old_string": "- Follow airbnb style\n- Be nice\n",
                              "new_string": "- Adhere to ESLint and dprint\n- Be nice\n"}, "c1")
    (text,) = _changes(_transcript((call, ToolResult("ok", "c1"))))
    assert "'Follow airbnb style' → 'Adhere to ESLint and dprint'" in text.splitlines()[0]
    assert not any(ln.strip().startswith(("- ", "+ ")) for ln in text.splitlines()[1:])


def test_an_edit_in_two_functions_says_what_went_where():
    old = "function pick(n) {\n  return Math.random() * n;\n}\nfunction show(x) {\n  el.textContent = x;\n}\n"
    new = ("function pick(n) {\n  const a = new Uint8Array(1);\n  crypto.getRandomValues(a);\n  return a[0] % n;\n}\n"
           "function show(x) {\n  el.textContent = x;\n  playLand();\n}\n")
    write = make_call("Write", {"file_path": "a.js", "content": old}, "w")
    edit = make_call("Edit", {"file_path": "a.js", "old_string": old, "new_string": new}, "e")
    (text,) = _changes(_transcript((write, ToolResult("ok", "w")), (edit, ToolResult("ok", "e"))))
    # the one edit's line, or the one line when that line says it all (changes._retells)
    summary = next((ln for ln in text.splitlines() if ln.strip().startswith("r2 ")), text.splitlines()[0])
    summary = summary.replace("`", "")
    assert "pick: Math.random → crypto.getRandomValues, Uint8Array" in summary
    assert "show: + playLand" in summary


def test_an_edit_after_the_user_rejected_a_call_says_what_the_user_said():
    plan = make_call("ExitPlanMode", {"plan": "show the link at"}, "p")
    refused = ToolResult("The user doesn't want to proceed with this tool use. The tool use was rejected. "
                         "To tell you how to proceed, the user said:\nNo colon after at?", "p")
    edit = make_call("Edit", {"file_path": "plan.md", "old_string": "history at\n", "new_string": "history at:\n"}, "e")
    (text,) = _changes(_transcript((plan, refused), (edit, ToolResult("ok", "e"))))
    assert "after the user rejected ExitPlanMode: “No colon after at?”" in text.splitlines()[0]


def test_a_markdown_record_says_which_sections_were_added_renamed_and_removed():
    """cc-fundwise: ROADMAP.md's record showed two reworded lines; the question asked how it was restructured
    (a new top section, Phase 2 renamed, a new Phase 4, the old Phase 4 moved to Phase 5)."""
    edits = [("## Intro\n", "## Intro\n\n## GTM and product order\n\nOrder is locked.\n"),
             ("## Phase 2 - Fund Mode MVP\n", "## Phase 2 - Fund Mode MVP (invite-only closed beta)\n"),
             ("## Phase 4 - Post-hackathon expansion\nOnly later.\n",
              "## Phase 4 - Fundy companion agent\nA bot.\n\n## Phase 5 - Post-hackathon expansion\nOnly later.\n"),
             ("## Appendix\nold notes\n", "")]
    calls = [(make_call("Edit", {"file_path": "ROADMAP.md", "old_string": o, "new_string": n}, f"c{i}"),
              ToolResult("ok", f"c{i}")) for i, (o, n) in enumerate(edits)]
    (text,) = _changes(_transcript(*calls))
    assert ("sections + 'GTM and product order', 'Phase 4 - Post-hackathon expansion' moved to 'Phase 5 - "
            "Post-hackathon expansion', + 'Phase 4 - Fundy companion agent', 'Phase 2 - Fund Mode MVP' → 'Phase 2 - "
            "Fund Mode MVP (invite-only closed beta)', − 'Appendix'") in text.splitlines()[0], text


def test_an_outline_reads_headings_not_comments_in_code_and_keeps_a_titles_own_hash():
    edit = ("## Setup\n", "## Setup\n\n```bash\n# Install dependencies\npip install x\n```\n\n## Using C#\n")
    call = make_call("Edit", {"file_path": "README.md", "old_string": edit[0], "new_string": edit[1]}, "c1")
    (text,) = _changes(_transcript((call, ToolResult("ok", "c1"))))
    assert "sections + 'Using C#'" in text.splitlines()[0] and "Install dependencies" not in text.splitlines()[0]
