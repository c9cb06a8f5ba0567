"""What an exporter's rendering of tool calls costs a hand-over (session 56): the last calls named by
absolute paths beside a document that names every other path from the project root, a replacement
whose export kept only its new text and whose first line the edit itself changed (its old line left
in the file's text as the session left it), and the tail spending its room on metadata blocks that
repeat the call."""

from __future__ import annotations

from compaction.errors.scan import scan_transcript
from compaction.events import extract_events
from compaction.history.sources import FactContext
from compaction.history.sources.current import current_work
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds

ROOT = "/Users/dev/Library/CloudStorage/GoogleDrive-dev@example.com/My Drive/github/chef"


def _ctx(msgs: list[Message], cwd: str | None) -> FactContext:
    t = Transcript("t.md", "specstory", msgs, group_rounds(msgs))
    t.cwd = cwd
    return FactContext(transcript=t, events=extract_events(t), records=scan_transcript(t),
                       preset=role_preset("developer"), cwd=cwd, n_rounds=len(t.rounds), target_tokens=4000)


def test_last_calls_name_their_paths_from_the_project_root():
    msgs = [Message(0, Role.USER, "update the phase rules")]
    for i, name in enumerate(("101-intent.mdc", "102-roadmap.mdc")):
        path = f"{ROOT}/.cursor/rules/{name}"
        cid = f"c{i}"
        msgs.append(Message(len(msgs), Role.ASSISTANT, "", tool_calls=[
            ToolCall("search_replace", {"file_path": path, "old_string": "a", "new_string": "b"}, cid,
                     ToolKind.EDIT, path=path)]))
        msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult("The file was updated.", cid,
                                                                           "search_replace")]))
    last = next(f.text for f in current_work(_ctx(msgs, ROOT)) if f.text.startswith("Last calls"))
    assert "search_replace `.cursor/rules/102-roadmap.mdc` (done)" in last, last
    assert ROOT not in last


_RENDER = """class A {
  private render() {
    const api = this.api
    this.treeEl.innerHTML = ''
    for (const node of nodes) {
      this.renderNode(node)
    }
  }

  private renderNode(node: FileNode, indexPath: number[]) {
    const api = this.api
    const nodeState = api.getNodeState(node)
    const branchEl = document.createElement('div')
    branchEl.dataset.value = nodeState.value
    return branchEl
  }
}"""


def test_a_replacement_known_by_its_new_text_alone_replaces_the_first_line_it_changed():
    """Copilot Chat's export keeps a replacement's new text only; its first line is the old signature
    given a return type. The file's text after it holds the new signature once, not both."""
    from compaction.edits import anchored_change, replay

    new = """  private renderNode(node: FileNode, indexPath: number[]): HTMLElement {
    const api = this.api
    const nodeState = api.getNodeState(node)
    let branchEl = this.cache.get(node.id)
    branchEl ??= document.createElement('div')
    branchEl.dataset.value = nodeState.value
    return branchEl
  }"""
    change = anchored_change("a.ts", _RENDER, new)
    assert change is not None
    after = replay(_RENDER, change.hunks)
    assert after is not None
    assert after.count("private renderNode(") == 1, after
    assert "private renderNode(node: FileNode, indexPath: number[]): HTMLElement {" in after
    assert "  private render() {\n    const api = this.api\n    this.treeEl.innerHTML = ''" in after  # untouched


def test_a_line_that_only_looks_alike_is_not_taken_for_the_changed_one():
    """A new import beside one that reads much like it replaces nothing: `parseA` is no earlier `parseZ` (a
    line the edit changed in place only gains characters), and the file keeps it."""
    from compaction.edits import anchored_change, replay

    imports = ("import { parseA } from './parsers/a'\nimport { parseB } from './parsers/b'\n"
               "import { parseC } from './parsers/c'\n\nexport const all = [parseA, parseB, parseC]")
    new = "import { parseZ } from './parsers/z'\nimport { parseB } from './parsers/b'\nimport { parseC } from './parsers/c'"
    change = anchored_change("index.ts", imports, new)
    assert change is not None
    after = replay(imports, change.hunks)
    assert after is not None and "import { parseA } from './parsers/a'" in after, after
    assert "import { parseZ } from './parsers/z'" in after


def test_the_output_of_a_result_leaves_out_what_each_exporter_wrote_about_the_call():
    from compaction.history.echo import output_of

    # Cursor: the tool's heading, the command again in a block of its own, then the output in another
    cmd = 'find . -name "*.yml" | head -20'
    call = ToolCall("run_terminal_cmd", {"command": cmd}, "c1", ToolKind.SHELL, command=cmd)
    res = ToolResult(f"Tool use: **run_terminal_cmd**\n\n```bash\n{cmd}\n```\n\n```\n./.github/workflows/ci.yml\n"
                     "./.github/workflows/pr.yml\n```", "c1", "run_terminal_cmd")
    assert output_of(res, call) == "./.github/workflows/ci.yml\n./.github/workflows/pr.yml"
    # Claude Code through SpecStory: the heading, the call's description, the command in backticks
    lint = ToolCall("Bash", {"command": "golangci-lint run", "description": "Run linter to check for code issues"},
                    "c2", ToolKind.SHELL, command="golangci-lint run")
    res = ToolResult("Tool use: **Bash**\nRun linter to check for code issues\n\n`golangci-lint run`\n\n```text\n"
                     "0 issues.\n```", "c2", "Bash")
    assert output_of(res, lint) == "0 issues."
    # Copilot Chat: the call's metadata in labelled blocks, the output (none was exported) and its status
    term = ToolCall("run_in_terminal", {"command": "pnpm run build"}, "c3", ToolKind.SHELL, command="pnpm run build")
    res = ToolResult('Tool use: **run_in_terminal**\n\n\nParameters:\n\n```json\n{\n  "kind": "terminal"\n}\n```\n'
                     'Additional data:\n\n```json\n{\n  "vscodeToolId": "run_in_terminal",\n  "isHidden": false\n}\n```\n'
                     'Result:\n\n```json\n{\n  "content": "",\n  "toolCallResult": null\n}\n```\nStatus: **completed**',
                     "c3", "run_in_terminal")
    assert output_of(res, term) == ""
    # … and a replacement's new text, which its `Result:` block holds, is kept
    edit = ToolCall("copilot_replaceString", {}, "c4", ToolKind.EDIT)
    res = ToolResult('Tool use: **copilot_replaceString**\n\nResult:\n\n```json\n{\n  "content": "```ts\\nlet a = 1\\n```",'
                     '\n  "textEditContent": "let a = 1"\n}\n```\nStatus: **completed**', "c4", "copilot_replaceString")
    assert output_of(res, edit) == "let a = 1"


def test_a_search_hit_or_a_failure_is_never_taken_for_an_echo():
    from compaction.history.echo import output_of

    grep = ToolCall("Grep", {"pattern": "parse", "path": "src/parser.py", "output_mode": "files_with_matches"}, "g1",
                    ToolKind.SEARCH)
    hit = ToolResult("src/parser.py", "g1", "Grep")
    assert output_of(hit, grep) is hit.content  # the file searched is the file found
    # a listing under the directory a command was given (Codex's `workdir`) is what it found
    find = ToolCall("shell", {"command": ["bash", "-lc", "find /workspace/proj/src -name '*.py'"],
                              "workdir": "/workspace/proj"}, "f1", ToolKind.SHELL,
                    command="find /workspace/proj/src -name '*.py'")
    listing = ToolResult("/workspace/proj/src/parser/core.py\n/workspace/proj/src/parser/lexer.py", "f1", "shell",
                         exit_code=0)
    assert output_of(listing, find) is listing.content
    ok = ToolResult("ok\n", "b1", "Bash", exit_code=0)
    assert output_of(ok, ToolCall("Bash", {"command": "make"}, "b1", ToolKind.SHELL, command="make")) is ok.content
    # aider's record of a command it ran is no output of it
    ran = ToolCall("shell", {"command": "chmod +x run.sh"}, "a1", ToolKind.SHELL, command="chmod +x run.sh")
    assert output_of(ToolResult("Running chmod +x run.sh", "a1", "shell"), ran) == ""
    read = ToolCall("Read", {"file_path": "/repo/src/app.py"}, "r1", ToolKind.READ, path="/repo/src/app.py")
    failed = ToolResult("Tool use: **Read**\n/repo/src/app.py: No such file", "r1", "Read", is_error=True)
    assert output_of(failed, read) == "/repo/src/app.py: No such file"


def test_the_tail_says_no_output_was_shown_instead_of_the_exports_metadata():
    from compaction.history.steering import Steering
    from compaction.history.tail import TailRenderer

    term = ToolCall("run_in_terminal", {"command": "pnpm run build"}, "c1", ToolKind.SHELL, command="pnpm run build")
    msgs = [Message(0, Role.USER, "build the docs"),
            Message(1, Role.ASSISTANT, "Building.", tool_calls=[term]),
            Message(2, Role.TOOL, tool_results=[ToolResult(
                'Tool use: **run_in_terminal**\n\nAdditional data:\n\n```json\n{\n  "vscodeToolId": "run_in_terminal"\n}'
                '\n```\nResult:\n\n```json\n{\n  "content": ""\n}\n```\nStatus: **completed**', "c1", "run_in_terminal")]),
            Message(3, Role.ASSISTANT, "The build passed.")]
    t = Transcript("t.md", "specstory", msgs, group_rounds(msgs))
    text, _ = TailRenderer(t.rounds, True, Steering()).render(10_000)
    assert "$ pnpm run build" in text and "(no output shown)" in text, text
    assert "vscodeToolId" not in text and "Status:" not in text


def test_a_search_that_found_files_is_told_by_its_output_not_the_exports_heading():
    """Cursor's export: the found paths hold a space ("My Drive"), so the first line of the output tells what
    was found, and that is the output's, not the export's heading."""
    from compaction.history.sources.exploration import exploration_facts

    cmd = f'find "{ROOT}" -name "*.yml"'
    call = ToolCall("run_terminal_cmd", {"command": cmd}, "c1", ToolKind.SHELL, command=cmd)
    msgs = [Message(0, Role.USER, "the CI fails at cd agent"),
            Message(1, Role.ASSISTANT, "Looking for the workflows.", tool_calls=[call]),
            Message(2, Role.TOOL, tool_results=[ToolResult(
                f"Tool use: **run_terminal_cmd**\n\n```bash\n{cmd}\n```\n\n```\n{ROOT}/.github/workflows/ci.yml\n```",
                "c1", "run_terminal_cmd")])]
    path = f"{ROOT}/frontend/lib/db.ts"
    for i, (name, kind, args) in enumerate((("read_file", ToolKind.READ, {"path": path}),
                                            ("search_replace", ToolKind.EDIT, {"path": path, "old_string": "a",
                                                                               "new_string": "b"}))):
        msgs += [Message(len(msgs), Role.ASSISTANT, "", tool_calls=[ToolCall(name, args, f"d{i}", kind, path=path)]),
                 Message(len(msgs) + 1, Role.TOOL, tool_results=[ToolResult("ok", f"d{i}", name)])]
    texts = " ".join(f.text for f in exploration_facts(_ctx(msgs, ROOT)))
    assert "workflows/ci.yml" in texts, texts
    assert "Tool use:" not in texts


def test_a_files_text_stays_when_the_tail_reaches_the_first_round_cut(shared_transcripts):
    """Without the export's metadata the tail of tree-vanilla is cheap enough to reach r1 at 20%, with its
    outputs cut; the text of `Tree.ts` as the session left it, which no round shows whole, stays (it went,
    and left a quarter of the budget unspent: 72% of the target)."""
    from compaction import tokens
    from compaction.history import compact
    from compaction.history.headings import h
    from compaction.transcripts import load_transcript

    t = load_transcript(str(shared_transcripts / "more-agents" / "specstory-copilot-destyler-tree-vanilla.md"))
    target = tokens.count_messages(t.messages) // 5
    md = compact(t, target_tokens=target).markdown
    assert "verbatim at the end" in md and "tokens elided" in md
    assert f"## {h('en', 'written')}" in md
    assert "- `packages/components/tree/examples/vanilla/Tree.ts` (" in md.split(f"## {h('en', 'written')}")[1]
    assert tokens.count(md) >= 0.9 * target

