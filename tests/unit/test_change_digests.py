"""Change records say WHAT changed (issue 14 item 1): a created file's digest, an edit's enclosing
definition and swapped identifiers, and edits thrown away (reverted, stashed, undone) named as not kept."""

from __future__ import annotations

from compaction.edits import digest, pair_hunks, result_changes, swapped
from compaction.events import extract_events
from compaction.history.facts import Fact
from compaction.history.fill import _partial, _Step
from compaction.history.sections import Section
from compaction.history.sources import FactContext
from compaction.history.sources.changes import change_facts, records
from compaction.history.sources.modified import modified_file_facts
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolResult, Transcript
from compaction.transcripts._agent_tools import make_call
from tests.unit.synthetic import steps_transcript

PAGE = """<!DOCTYPE html>
<html>
<body>
<script>
  const minInput = document.getElementById('min');
  const savedMin = localStorage.getItem('random-min');
  minInput.addEventListener('input', () => localStorage.setItem('random-min', minInput.value));

  function randomInRange(min, max) {
    return Math.floor(Math.random() * (max - min + 1)) + min;
  }

  function tick() {
    const n = randomInRange(1, 6);
    setTimeout(tick, 40);
  }
</script>
</body>
</html>
"""


def _run(*steps: Message | tuple[ToolCall, ToolResult | None]) -> Transcript:
    return steps_transcript("build the page", *steps)


def _ctx(t: Transcript) -> FactContext:
    return FactContext(t, extract_events(t), [], role_preset("developer"), None, len(t.rounds))


def _records(t: Transcript) -> dict[str, Fact]:
    """Each file's whole record: its one line (`text`) and the fuller form (`full_text`)."""
    return records(_ctx(t))


def _edit(cid: str, path: str, old: str, new: str) -> tuple[ToolCall, ToolResult]:
    return make_call("Edit", {"file_path": path, "old_string": old, "new_string": new}, cid), ToolResult("ok", cid)


def _user(text: str) -> Message:
    return Message(0, Role.USER, text)


def _harness(text: str) -> Message:
    return Message(0, Role.TOOL, text, harness=True)


def test_a_created_file_lists_its_functions_and_the_storage_keys_it_uses():
    t = _run((make_call("Write", {"file_path": "index.html", "content": PAGE}, "w"), ToolResult("ok", "w")))
    fact = _records(t)["index.html"]
    assert "\n" not in fact.text  # the one-line form
    assert "created" in fact.text and "randomInRange" in fact.text and "tick" in fact.text
    assert "'random-min'" in fact.text  # the key it remembers the bound under
    assert "localStorage.getItem/setItem" in fact.full_text
    assert "Math.floor" not in fact.text.split("keys")[0]  # a call inside a function is not a definition


def test_an_edit_names_its_function_and_the_identifiers_it_swapped():
    t = _run((make_call("Write", {"file_path": "index.html", "content": PAGE}, "w"), ToolResult("ok", "w")),
             _edit("e", "index.html", "    return Math.floor(Math.random() * (max - min + 1)) + min;",
                   "    const buf = new Uint32Array(1);\n    crypto.getRandomValues(buf);\n"
                   "    return Math.floor(min + (buf[0] % (max - min + 1)));"))
    fact = _records(t)["index.html"]
    # The old text does not show the function: replaying the edit on the written page does.
    assert "randomInRange: Math.random → crypto.getRandomValues" in fact.text
    # the one edit's own line would only say it again (changes._retells)
    assert "r2 `randomInRange`: `Math.random` → `crypto.getRandomValues`" not in (fact.full_text or "")


def test_swapped_ranks_apis_from_a_new_receiver_first():
    gone, new = swapped(["x = Math.floor(Math.random() * n)"],
                        ["b = Math.ceil(Math.log2(n))", "crypto.getRandomValues(new Uint8Array(b))"])
    assert gone == ["Math.floor", "Math.random"]
    assert new[0] == "crypto.getRandomValues" and "Uint8Array" in new


def test_a_line_diff_splits_an_edit_into_hunks_each_in_its_definition():
    old = "def a():\n    x = 1\n    return x\n\ndef b():\n    y = 2\n    return y\n"
    new = "def a():\n    x = 10\n    return x\n\ndef b():\n    y = 2\n    log(y)\n    return y\n"
    hunks = pair_hunks(old, new)
    assert [(h.removed, h.added, h.context) for h in hunks] == [
        (("    x = 1",), ("    x = 10",), "a"), ((), ("    log(y)",), "b")]
    assert hunks[0].source == (old, new) and hunks[1].source is None


def test_an_aider_undo_shows_the_commit_s_edits_as_not_kept():
    blocks = "<<<<<<< SEARCH\n    return x\n=======\n    buffered = list(x)\n    return buffered\n>>>>>>> REPLACE\n"
    t = _run(
        _edit("a", "m.py", "def f(x):\n    pass", "def f(x):\n    return x"),
        _harness("Applied edit to m.py\nCommit 1111111 feat: f returns x"),
        _user("buffer it"),
        (make_call("search_replace", {"path": "m.py", "diff": blocks}, "b"), ToolResult("ok", "b")),
        _harness("Applied edit to m.py\nCommit 2bae9da refactor: buffer items before returning"),
        _user("/undo"),
        _harness("Removed: 2bae9da refactor: buffer items before returning\nNow at:  1111111 feat: f returns x"),
    )
    fact = _records(t)["m.py"]
    full = fact.full_text or fact.text
    assert "reverted (not kept)" in fact.text
    assert "NOT KEPT" in full and "undone by /undo" in full
    assert "+ buffered = list(x)" not in full  # the undone lines are not shown as the file's state
    (mod,) = [f for f in modified_file_facts(_ctx(t)) if f.path == "m.py"]
    assert "not kept" in mod.text


def test_a_stash_reverts_every_edited_file_and_a_pop_brings_the_edits_back():
    edit = _edit("a", "app.py", "debug = False", "debug = True")
    stash = (make_call("Bash", {"command": "git stash"}, "s"), ToolResult("Saved working directory", "s", exit_code=0))
    pop = (make_call("Bash", {"command": "git stash pop"}, "p"), ToolResult("", "p", exit_code=0))
    stashed = _records(_run(edit, stash))["app.py"]
    assert "then reverted (not kept)" in stashed.text and "git stash" in stashed.text
    (mod,) = modified_file_facts(_ctx(_run(edit, stash)))
    assert "Edited, then reverted" in mod.text
    popped = _records(_run(edit, stash, pop))["app.py"]
    assert "reverted" not in popped.text and "debug = True" in popped.full_text
    # one line that stashes, runs the tests on the committed tree and pops: the edits stay
    command = "git stash && go test ./internal/... 2>&1 | tail -30; git stash pop"
    aside = (make_call("Bash", {"command": command}, "t"), ToolResult("ok", "t", exit_code=0))
    kept = _records(_run(edit, aside))["app.py"]
    assert "reverted" not in kept.text and "debug = True" in (kept.full_text or kept.text)


def test_an_edit_that_puts_the_old_text_back_is_not_shown_as_kept():
    t = _run(_edit("a", "c.py", "TIMEOUT = 10", "TIMEOUT = 30"), _edit("b", "c.py", "TIMEOUT = 30", "TIMEOUT = 10"))
    fact = _records(t)["c.py"]
    assert "then reverted (not kept)" in fact.text and "+ TIMEOUT = 30" not in (fact.full_text or "")


def test_a_comment_only_change_says_so():
    t = _run(_edit("a", "p.pony", "    let x = 1", "    // handle parent defaults\n    let x = 1"))
    assert "comment only: // handle parent defaults" in _records(t)["p.pony"].text


def test_a_markdown_file_is_digested_by_its_headings_and_a_license_by_its_first_line():
    d = digest("# Plan\n\n## Current State\ntext\n## Proposed Change\nmore".splitlines(), document=True)
    assert d.names == ("Plan", "Current State", "Proposed Change")
    text = "MIT License\n\nCopyright 2026 A. Author\n\n" + "Permission is hereby granted, free of charge, to any person\n" * 12
    lic = _records(_run((make_call("Write", {"file_path": "LICENSE", "content": text}, "w"),
                         ToolResult("ok", "w"))))["LICENSE"]
    assert "“MIT License”" in lic.text


def test_a_short_text_without_definitions_is_said_whole():
    """An ignore list's first line (`target/`) hides the line that matters (the keypair it keeps out)."""
    content = "target/\nprograms/audit/target/\nprograms/audit/audit-keypair.json\n*.pen\n"
    rec = _records(_run((make_call("Write", {"file_path": ".gitignore", "content": content}, "w"),
                         ToolResult("ok", "w"))))[".gitignore"]
    assert "target/ · programs/audit/target/ · programs/audit/audit-keypair.json · *.pen" in (rec.full_text or rec.text)


def test_a_result_that_says_what_was_replaced_is_read_when_the_arguments_are_not():
    call = make_call("Edit", {"file_path": "plan.md"}, "x")
    (change,) = result_changes(call, "All occurrences of 'history at' were successfully replaced with 'history at:'.")
    assert change.hunks[0].removed == ("history at",) and change.hunks[0].added == ("history at:",)


def test_a_diff_the_exporter_shows_as_the_edit_result_is_read_when_the_arguments_are_not():
    """SpecStory keeps a Cursor or Codex edit's path only; its result shows the change as a ```diff block
    (Cursor's with a space after each marker)."""
    call = ToolCall("search_replace", {"path": "/p/rules/101-intent.mdc"}, "x", kind="edit", path="/p/rules/101-intent.mdc")
    result = ("<details><summary>Edit file: /p/rules/101-intent.mdc</summary>\n\n```diff\n@@ -10,4 +10,6 @@\n"
              "  ## Phase Objective\n+ \n+ ## Human Roles in This Phase\n- ## AI Facilitation Prompts\n"
              "+ ## Role-Specific AI Facilitation Prompts\n  \n```\n</details>")
    (change,) = result_changes(call, result)
    (hunk,) = change.hunks
    assert change.path == "/p/rules/101-intent.mdc"
    assert hunk.removed == ("## AI Facilitation Prompts",)
    assert hunk.added == ("", "## Human Roles in This Phase", "## Role-Specific AI Facilitation Prompts")
    codex = "**Update: `docs/S.md`**\n\n```diff\n@@\n ### Challenge 1\n \n+This is the foundation.\n```"
    (change,) = result_changes(ToolCall("apply_patch", {"path": "docs/S.md"}, "y", kind="edit", path="docs/S.md"), codex)
    assert change.hunks[0].added == ("This is the foundation.",)


def test_a_fact_that_does_not_fit_whole_comes_back_with_the_lines_that_fit():
    full = "`a.py` (3 edits): f: x → y (r1)\n" + "\n".join(f"  + line_{i} = compute({i})" for i in range(40))
    fact = Fact(Section.CHANGES, full.splitlines()[0], [1], full_text=full)
    step = _Step(fact, None, full, 400, 0, (fact.text, 20))
    text, cost = _partial(step, 80)
    assert text.startswith(fact.text) and "more lines)" in text.splitlines()[-1] and cost <= 80
    assert all(ln in full for ln in text.splitlines()[:-1])  # whole lines only
    assert _partial(step, 25) == (fact.text, 20)  # no room for a second line: the one-line form


def test_the_modified_files_line_is_upgraded_to_the_file_s_gist():
    t = _run((make_call("Write", {"file_path": "index.html", "content": PAGE}, "w"), ToolResult("ok", "w")),
             _edit("e", "index.html", "    return Math.floor(Math.random() * (max - min + 1)) + min;",
                   "    const buf = new Uint32Array(1);\n    crypto.getRandomValues(buf);\n"
                   "    return Math.floor(min + (buf[0] % (max - min + 1)));"))
    ctx = _ctx(t)
    (mod,) = modified_file_facts(ctx)
    assert mod.text == "`index.html`: created, then edited (r1, r2)" and mod.essential  # what is required
    assert mod.full_text.startswith("`index.html`: created, then edited — defines randomInRange")  # with room
    assert "Math.random → crypto.getRandomValues" in mod.full_text
    assert mod.short == "`index.html` (r2)"  # tight budgets: the path alone
    (rec,) = change_facts(ctx)
    assert "\n" not in rec.text and "crypto.getRandomValues" in rec.full_text


def test_a_diff_block_in_a_result_keeps_its_code_and_its_file() -> None:
    """A real unified diff of indented code is not taken for SpecStory's spaced markers, and a block naming
    several files gives the call's file only its own hunks."""
    call = ToolCall("apply_patch", {"path": "p.py"}, "c1", kind="edit", path="p.py")
    real = "```diff\n@@ -1,3 +1,3 @@\n def parse(x):\n-    return x\n+    return x.strip()\n```"
    assert [(h.removed, h.added) for c in result_changes(call, real) for h in c.hunks] == [
        (("    return x",), ("    return x.strip()",))]
    spaced = "```diff\n@@ -1,3 +1,3 @@\n  def parse(x):\n-     return x\n+     return x.strip()\n```"
    assert [(h.removed, h.added) for c in result_changes(call, spaced) for h in c.hunks] == [
        (("    return x",), ("    return x.strip()",))]
    two = ("```diff\n--- a/p.py\n+++ b/p.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"
           "--- a/q.py\n+++ b/q.py\n@@ -1 +1 @@\n-b = 1\n+b = 2\n```")
    assert [(h.removed, h.added) for c in result_changes(call, two) for h in c.hunks] == [(("a = 1",), ("a = 2",))]


def test_a_configuration_files_sections_and_a_requirements_files_pins_say_what_it_holds():
    """A written pyproject.toml was `created — “[build-system]”` (its first line): its sections say what it
    configures; a requirements file's pins say what it installs."""
    toml = ["[build-system]", 'requires = ["setuptools"]', "", "[project]", 'name = "sd"',
            "[project.scripts]", 'sd = "sd.core:main"', "  [[tool.mypy.overrides]]  # strict"]
    d = digest(toml)
    assert d.document and d.names == ("[build-system]", "[project]", "[project.scripts]", "[[tool.mypy.overrides]]")
    reqs = digest(["# runtime", "ollama==0.5.3", 'requests[socks] >= 2.31 ; python_version > "3.8"', "numpy",
                   "-r base.txt"], document=True)
    assert reqs.pins == ("ollama==0.5.3", "requests[socks]>=2.31") and reqs.names == ("runtime",)
    code = digest(["MAX_X = [1, 2]", "def f(a):", "    if a == 1:", "        return [a]", "    [b] = g()"])
    assert code.names == ("MAX_X", "f") and not code.pins and not code.document  # code keeps its definitions


def test_attribute_lines_in_code_are_no_configuration_sections():
    code = digest(['[HttpGet("{id}")]', "public int Get(int id) => id;", "if (x === y) return;", "[Fact]"])
    assert not code.document and not code.pins and '[Fact]' not in code.names
