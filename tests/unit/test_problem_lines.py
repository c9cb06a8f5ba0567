"""Problems and solutions as one line per error record (issue 14 item 3): which text a refused edit
looked for, and the hazards the agent named and handled in its own words."""

from __future__ import annotations

from compaction.errors.records import ErrorRecord, Location, Occurrence
from compaction.events import extract_events
from compaction.history import errors_adapter
from compaction.history.sources import FactContext
from compaction.history.sources.problems import describe, problem_facts
from compaction.history.sources.problems_prose import prose_problem_source
from compaction.history.steering import role_preset
from compaction.model import Message, Role, Transcript
from tests.unit.synthetic import call_pair as _call
from tests.unit.synthetic import transcript as _transcript


def _lines(t: Transcript) -> list[str]:
    records, _ = errors_adapter.scan(t)
    return [f.full_text or f.text for f in problem_facts(records, "/repo", True, t.messages)]


def test_a_refused_edit_names_the_text_it_searched_for():
    # aider echoes the SEARCH block that did not match; the fix later replaced another line, which a
    # reader would otherwise take for what failed
    t = _transcript([
        Message(0, Role.USER, "switch the imports to SignalScorer"),
        *_call("edit", {"path": "/repo/cli/invoker.ts", "search": "import { PoIValidator } from './PoIValidator';",
                        "replace": "import { SignalScorer } from './SignalScorer';"}, "a",
               "SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in cli/invoker.ts\n"
               "<<<<<<< SEARCH\nimport { PoIValidator } from './PoIValidator';\n=======\n"
               "import { SignalScorer } from './SignalScorer';\n>>>>>>> REPLACE\n", is_error=True),
    ])
    [line] = [ln for ln in _lines(t) if "EditNotFound" in ln]
    assert "searched `import { PoIValidator } from './PoIValidator';`, not matched" in line


def test_a_refused_edit_call_names_its_old_text_when_the_error_does_not():
    t = _transcript([
        Message(0, Role.USER, "fix load"),
        *_call("Edit", {"file_path": "/repo/app/io.py", "old_string": "def load(path):\n    return x",
                        "new_string": "def load(path):\n    return y"}, "a",
               "No replacement was performed, old_str `def load(path):` did not appear verbatim in /repo/app/io.py.",
               is_error=True),
    ])
    lines = _lines(t)
    assert lines and all("searched" not in ln for ln in lines)  # the error line already quotes it: not twice
    t2 = _transcript([
        Message(0, Role.USER, "fix load"),
        *_call("Edit", {"file_path": "/repo/app/io.py", "old_string": "def load(path):\n    return x",
                        "new_string": "def load(path):\n    return y"}, "a",
               "<tool_use_error>String to replace not found in file.</tool_use_error>", is_error=True),
    ])
    assert any("searched `def load(path):`" in ln for ln in _lines(t2))


def test_an_unrelated_error_in_the_same_reply_does_not_borrow_the_edit():
    # one reply reports an edit and a missing image: the image's record names no searched text
    t = _transcript([
        Message(0, Role.USER, "tidy the module"),
        *_call("edit", {"path": "/repo/src/a.ts", "search": "} from './b.ts';", "replace": "} from './c.ts';"}, "a",
               "/repo/img/shot.png: unable to read: [Errno 2] No such file or directory: '/repo/img/shot.png'",
               is_error=True),
    ])
    assert all("searched" not in ln for ln in _lines(t))


def test_a_hazard_the_agent_handled_in_prose_is_a_problem_with_its_remedy():
    t = _transcript([
        Message(0, Role.USER, "is it truly random?"),
        Message(0, Role.ASSISTANT, "Math.random is a PRNG. The new version uses rejection sampling to eliminate "
                                   "modulo bias, so every value in the range is equally likely."),
        Message(0, Role.USER, "thanks"),
        Message(0, Role.ASSISTANT, "Let me know if there is an edge case."),
    ])
    ctx = FactContext(t, extract_events(t), [], role_preset("developer"), "/repo", len(t.rounds), target_tokens=4000)
    facts = prose_problem_source(ctx)
    assert len(facts) == 1 and "rejection sampling to eliminate modulo bias" in facts[0].text
    assert facts[0].rounds == [1]


def test_a_hedged_account_of_an_error_is_labelled_a_guess_not_a_cause():
    def session(account: str) -> Transcript:
        return _transcript([
            Message(0, Role.USER, "rename the loader"),
            *_call("Edit", {"file_path": "/repo/app/io.py", "old_string": "def load(p):", "new_string": "def read(p):"},
                   "a", "<tool_use_error>String to replace not found in file.</tool_use_error>", is_error=True),
            Message(0, Role.USER, "go on"),
            Message(0, Role.ASSISTANT, account),
        ])

    guessed, _ = errors_adapter.scan(session("The edit failed, likely because the file uses tabs for indentation."))
    assert "the agent's guess: The edit failed, likely because the file uses tabs" in guessed[0].solution
    stated, _ = errors_adapter.scan(session("The edit failed because the function is named load_file, not load."))
    assert "guess" not in stated[0].solution and "because the function is named load_file" in stated[0].solution


def test_a_reply_to_a_new_request_is_not_the_diagnosis_of_an_earlier_failure():
    """An edit refused twice, then the user asks something else: the agent's answer to that request
    ("it should be restored") is not what caused the refusals; after a mere "go on" it still is."""
    def session(between: str) -> list:
        refused = "<tool_use_error>String to replace not found in file.</tool_use_error>"
        return _transcript([
            Message(0, Role.USER, "rename the loader"),
            *_call("Edit", {"file_path": "/repo/app/io.py", "old_string": "def load(p):", "new_string": "def read(p):"},
                   "a", refused, is_error=True),
            Message(0, Role.USER, "go on"),
            *_call("Edit", {"file_path": "/repo/app/io.py", "old_string": "def load(p) :", "new_string": "def read(p):"},
                   "b", refused, is_error=True),
            Message(0, Role.USER, between),
            Message(0, Role.ASSISTANT, "The schema file is missing because it was deleted, so it should be restored."),
        ])

    moved_on, _ = errors_adapter.scan(session("Please show me the current git diff of the schema files and summarise it"))
    stayed, _ = errors_adapter.scan(session("go on"))
    refused = [r for r in moved_on if r.id == "ERR_TOOL_EditNotFound"]
    assert refused and "should be restored" not in (refused[0].solution or "")
    assert "should be restored" in ([r for r in stayed if r.id == "ERR_TOOL_EditNotFound"][0].solution or "")


def test_a_count_tells_two_failures_apart_and_is_shown_with_its_words_a_place_does_not():
    """`found 0 actions` (no command) and `found 2 actions` (two) are two failures, said as such
    (`…found 2 actions.`, not `…2…`); `line 12` and `line 15` of one error are the same failure drifting."""
    def rec(*lines: str) -> ErrorRecord:
        return ErrorRecord("ERR_X", [Occurrence(r, detail=d, location=Location()) for r, d in enumerate(lines, 1)])

    _, said, _ = describe(rec("Please provide EXACTLY ONE action, found 0 actions.",
                              "Please provide EXACTLY ONE action, found 2 actions."), None)
    assert said == "Please provide EXACTLY ONE action, found 0 actions. (r1); …found 2 actions. (r2)"
    _, said, _ = describe(rec("SyntaxError: invalid syntax at line 12", "SyntaxError: invalid syntax at line 15",
                              "E999 unmatched ']' (file.py:231:7)", "E999 unmatched ']' (file.py:244:3)"), None)
    assert said == "SyntaxError: invalid syntax at line 12 (r1); E999 unmatched ']' (file.py:231:7) (r3)"


def test_a_refused_edit_nothing_fixed_says_the_change_it_meant_to_make():
    def refused(n: int) -> list[Message]:
        return _call("str_replace_editor", {"command": "str_replace", "path": "/repo/cli.pony",
                                            "old_str": "return CommandParser._sub(cs, this)._parse_command(t)",
                                            "new_str": "_parse_command(t)"}, f"c{n}",
                     "No replacement was performed, old_str `return CommandParser._sub(cs, this)._parse_command(t)`"
                     " did not appear verbatim in /repo/cli.pony.", is_error=True)
    t = _transcript([Message(0, Role.USER, "stop returning from the sub-command parse"), *refused(1), *refused(2)])
    [line] = [ln for ln in _lines(t) if "EditNotFound" in ln]
    assert "tried `return CommandParser._sub(cs, this)._parse_command(t)` → `_parse_command(t)`" in line


def test_a_refused_aider_block_with_an_empty_replace_meant_to_delete():
    from compaction.history.sources.problems import _searched
    t = _transcript([
        Message(0, Role.USER, "drop the debug print"),
        *_call("edit", {"path": "/repo/app.py", "search": "debug_print(x)", "replace": ""}, "a",
               "SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in app.py\n"
               "<<<<<<< SEARCH\ndebug_print(x)\n=======\n>>>>>>> REPLACE\n\n"
               "<<<<<<< SEARCH\nother()\n=======\nanother()\n>>>>>>> REPLACE\n", is_error=True),
    ])
    records, _ = errors_adapter.scan(t)
    (rec,) = [r for r in records if r.id == "ERR_TOOL_EditNotFound"]
    assert _searched(rec.occurrences[-1], t.messages) == ("debug_print(x)", "")
