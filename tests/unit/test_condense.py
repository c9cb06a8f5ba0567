"""A long request said in fewer tokens (issue 14 item 5): what a successor asks of a request stays
(the title, what is wrong, the user's ideas, the constraints, the reproduction), the rest goes; at a
tight budget the task is shown condensed and gets its full text back only when room is left."""

from __future__ import annotations

from compaction import tokens
from compaction.history.condense import condense, one_line
from compaction.history.engine import _shrink_task, compact
from compaction.history.facts import Fact
from compaction.history.sections import Section
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds

ISSUE = """I've uploaded a repository in the directory /workspace/widget.
Consider the following issue description:

Parser drops the default of a parent option when a subcommand runs
Hi all, thanks for the great project!

Consider the following setup,

```python
root = Spec("cmd")
root.add(Option("level", default=3))
sub = Spec("sub")
root.add(sub)
result = parse(root, ["sub"])
print(result.get("level"))
```

When running `cmd sub`, an empty value is printed instead of 3.
I believe the problem is in `parser.py` where parsing a parent recurses into the child and returns early.

Two possibilities which spring to mind are

1. add a back-reference from the child spec to its parent
2. keep parsing after the subcommand instead of returning

It would also help to have an `is_set` method on `Result`.
The weather was lovely when I wrote this and my cat sat on the keyboard twice.
Please make the minimal changes to non-test files; do not modify the tests.
"""


def test_a_condensed_issue_keeps_title_problem_ideas_and_constraints() -> None:
    short = condense(ISSUE, 600)
    assert len(short) <= 640 and len(short) < len(ISSUE) * 0.8
    assert "Parser drops the default of a parent option" in short  # the title the introducer announces
    assert "an empty value is printed instead of 3" in short  # observed vs expected
    assert "back-reference" in short and "`is_set`" in short  # the user's suggestions
    assert "non-test files" in short  # the constraint
    assert "Hi all" not in short and "cat sat" not in short  # greeting and filler
    assert "Consider the following issue description" not in short  # the harness's introducer
    assert 'root.add(Option("level", default=3))' not in short  # a paste beyond its ends


def test_a_reproduction_paste_keeps_its_check_and_values() -> None:
    text = ("Decoding fails for float data.\n\n```python\nimport numpy as np\nds = Dataset()\nds.BitsAllocated = 32\n"
            "ds.Rows = 5\nds.PhotometricInterpretation = 'MONOCHROME2'\nnp.array_equal(ds.pixel_array, arr)\n```\n"
            + "Some background that nobody will ask about, told at length. " * 6)
    short = condense(text, 260)
    assert "np.array_equal(ds.pixel_array, arr)" in short and "BitsAllocated=32" in short
    assert "MONOCHROME2" in short and "import numpy" not in short


def test_condensing_works_on_sentences_of_other_languages() -> None:
    text = ("登录页面在移动端无法提交表单。我认为问题出在 `form.ts` 的校验逻辑。今天天气很好。我们去公园散步了很久很久。"
            "不要修改测试文件。" + "这是一些无关的背景信息。" * 5)
    short = condense(text, 80)
    assert short.startswith("登录页面在移动端无法提交表单。")
    assert "`form.ts`" in short and "不要修改测试文件" in short and "天气" not in short


def test_an_older_request_in_one_line_keeps_its_verbs_and_identifiers() -> None:
    text = ("aha, already looks great.\n> please review Validator.ts and help clean up any brittle logic. "
            "ensure imports work with signal_schema.\nthanks!")
    line = one_line(text, 120)
    assert "\n" not in line and "aha" not in line and "please" not in line and "thanks" not in line
    assert line.startswith("review Validator.ts and clean up brittle logic.") and "signal_schema" in line


def test_shrink_task_takes_the_next_shorter_form_before_a_cut() -> None:
    whole = "word " * 400
    task = Fact(Section.GOAL, whole, [1], essential=True, task=True, forms=("word " * 200, "word " * 50))
    assert _shrink_task([task]) and task.text == "word " * 200 and task.full_text == whole
    assert _shrink_task([task]) and task.text == "word " * 50
    assert _shrink_task([task]) and tokens.count(task.text) < 50  # no form left: head and tail


def _session(task: str, n: int = 30) -> Transcript:
    msgs: list[Message] = [Message(0, Role.USER, task)]
    for i in range(n):
        call = ToolCall("Bash", {"command": f"pytest tests/test_{i}.py"}, f"c{i}", ToolKind.SHELL,
                        command=f"pytest tests/test_{i}.py")
        msgs.append(Message(0, Role.ASSISTANT, f"Running the test file number {i} to see what fails now.", [call]))
        msgs.append(Message(0, Role.TOOL, tool_results=[ToolResult(f"FAILED test_{i} - AssertionError: {i}\n" * 20,
                                                                   f"c{i}")]))
    for i, m in enumerate(msgs):
        m.index = i
    return Transcript("s.jsonl", "test", msgs, group_rounds(msgs))


def _goal(markdown: str) -> str:
    start = markdown.index("## Task goal")
    return markdown[start:markdown.index("\n## ", start + 5)]


def test_at_a_tight_budget_the_task_is_condensed_and_whole_when_room_is_left() -> None:
    long_issue = ISSUE + "\n".join(f"More detail number {i} that restates the background once more." for i in range(30))
    tight = compact(_session(long_issue), target_tokens=900)
    goal = _goal(tight.markdown)
    assert tight.stats.tokens_after <= 900
    assert "Parser drops the default" in goal and "non-test files" in goal
    assert "More detail number 15" not in goal  # condensed: the restatements went
    assert goal.startswith("## Task goal\n- I've uploaded a repository")  # its opening verbatim
    assert "More detail number 29" in goal  # and its closing sentence
    roomy = compact(_session(long_issue), target_tokens=4000)
    assert roomy.compacted and "More detail number 29" in _goal(roomy.markdown)  # room left: the request whole


def test_the_items_under_a_next_steps_label_are_the_ask_of_a_pasted_summary():
    """A session that starts from a pasted summary: its opening and its end are context; the items under
    "Next Steps" are what the user wants done, kept before anything else."""
    from compaction.history.condense import condense

    summary = ("ION_ON_CHAIN env var)\n- Installed the skills via npx for development-time expertise; they are "
               "agent instructions, not runtime libraries\n"
               + "".join(f"- Policy rule {i} implemented as a struct extension with its own checks and defaults\n"
                         for i in range(8))
               + "Next Steps\n- Commit and push all changes with credit to Daemon Tech\n- Tag release for the submission\n"
               "Critical Context\n- All 66 tests pass\n- tests/battery.rs: fixed tests for the paginated format\n")
    short = condense(summary, 320, lead=170, keep_last=True)
    assert "Commit and push all changes with credit to Daemon Tech" in short
    assert "Tag release for the submission" in short
    assert "Next Steps" not in short


def test_a_heading_ends_the_next_steps_list():
    from compaction.history.condense import units

    found = {u.text: u.score for u in units("Summary of work.\n## Next Steps\n- Tag the release\n## Known issues\n"
                                            "- The cache leaks on reload\n", start=False)}
    assert found["- Tag the release"] > 30 > found["- The cache leaks on reload"]
