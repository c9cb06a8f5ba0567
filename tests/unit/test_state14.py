"""What the session established (issue 14, state questions): the code it pointed at by line number as
one dense line, the search path to the file it changed, files read whole that hold no code, and
findings that name things rather than narrate."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.sources import FactContext
from compaction.history.sources.blocks import collect_refs, digest, file_kind, numbered
from compaction.history.sources.evidence import evidence_facts
from compaction.history.sources.exploration import exploration_facts
from compaction.history.sources.findings import collect, finding_facts, specificity
from compaction.history.steering import role_preset
from compaction.model import Message, Role, Transcript
from tests.unit.synthetic import call_pair as _call
from tests.unit.synthetic import transcript as _transcript

PARSER = "\n".join(f"{n:6}\t{line}" for n, line in enumerate([
    "class CommandParser",
    "  fun _parse_command(tokens: Array[String] ref, envsmap: Map[String, String] box) =>",
    "    // Fill in option values from env or from coded defaults.",
    "    for os in _spec.options().values() do",
    "      if not options.contains(os.name()) then",
    "        if envsmap.contains(os.name()) then",
    "          try",
    "            options.update(os.name(), Option(os, envsmap(os.name())?))",
    "          end",
    "        else",
    "          options.update(os.name(), Option(os, os._default_p()))",
    "        end",
    "      end",
    "    end",
    "",
    "    // Check for missing options.",
    "    for os in _spec.options().values() do",
], start=1))


def _ctx(t: Transcript, target: int = 4000) -> FactContext:
    return FactContext(t, extract_events(t), [], role_preset("developer"), "/repo", len(t.rounds), target_tokens=target)


def _session(*extra: Message) -> Transcript:
    return _transcript([
        Message(0, Role.USER, "In `command_parser.pony` the defaults are filled on line 4, but a sub-command returns "
                              "before. Fix it."),
        *_call("Read", {"file_path": "/repo/packages/cli/command_parser.pony"}, "a", PARSER),
        *extra,
    ], cwd="/repo")


def test_a_line_named_in_a_sentence_gives_the_block_it_opens_as_a_finding():
    facts = finding_facts(_ctx(_session()))
    [block] = [f for f in facts if "L4-" in f.text]
    assert block.text.startswith("`packages/cli/command_parser.pony` L4-14: `for os in _spec.options().values() do;")
    assert "os._default_p()" in block.text and "envsmap.contains(os.name())" in block.text
    assert "; try;" not in block.text and "; end" not in block.text  # bare keywords and closers say nothing
    assert "Check for missing options" not in block.text  # the block ends where its indentation does


def test_a_block_the_edits_already_show_is_not_repeated():
    t = _session(*_call("Edit", {"file_path": "/repo/packages/cli/command_parser.pony",
                                 "old_string": "    for os in _spec.options().values() do\n"
                                               "      if not options.contains(os.name()) then\n"
                                               "        if envsmap.contains(os.name()) then\n"
                                               "            options.update(os.name(), Option(os, envsmap(os.name())?))\n"
                                               "        else\n"
                                               "          options.update(os.name(), Option(os, os._default_p()))",
                                 "new_string": "x"}, "b", "The file has been updated."))
    assert not [f for f in finding_facts(_ctx(t)) if "L4-" in f.text]


def test_an_edits_range_points_at_the_paragraph_above_it():
    refs = collect_refs(_transcript([
        *_call("edit", {"path": "pkg/handler.py", "start": 16, "end": 17, "replacement": "x"}, "a", "ok")]))
    [ref] = refs.by_base["handler.py"]
    assert (ref.lo, ref.hi, ref.before) == (16, 17, True)
    lines = numbered(PARSER)
    assert digest(lines, 3, 4).startswith("// Fill in option values")


def test_a_file_read_whole_that_holds_only_documentation_is_a_finding():
    docs = "\n".join(f"{n:6}\t{line}" for n, line in enumerate(['"""', "# CLI Package", "", "Example:", "```pony",
                                                                 "actor Main", "```", '"""', ""], start=1))
    # what the docs document (their first heading) and that they show examples: what is there instead of code
    assert file_kind(docs) == ("documentation only: “CLI Package”, with examples", 8)
    assert file_kind(PARSER) is None
    t = _transcript([Message(0, Role.USER, "where is the parser?"),
                     *_call("Read", {"file_path": "/repo/packages/cli/cli.pony"}, "a", docs)], cwd="/repo")
    assert any(f.text.startswith("`packages/cli/cli.pony` (r") and "8 lines, documentation only: “CLI Package”" in f.text
               for f in evidence_facts(_ctx(t)))


def test_the_search_path_reads_as_one_line_dead_ends_then_the_hit():
    t = _transcript([
        Message(0, Role.USER, "fix the parser defaults"),
        *_call("Bash", {"command": 'find src/libponyc -name "*command*.pony"'}, "a", ""),
        *_call("Bash", {"command": 'grep -r "CommandParser" src'}, "b", ""),
        *_call("Bash", {"command": 'grep -r "class CommandParser" /repo'}, "c",
               "/repo/packages/cli/command_parser.pony:class CommandParser\n"),
        *_call("Read", {"file_path": "/repo/packages/cli/command_parser.pony"}, "d", "class CommandParser"),
        *_call("Edit", {"file_path": "/repo/packages/cli/command_parser.pony", "old_string": "a", "new_string": "b"},
               "e", "The file has been updated."),
    ], cwd="/repo")
    [fact] = exploration_facts(_ctx(t))
    assert fact.text == ('Located `packages/cli/command_parser.pony`: nothing under src/ (`grep -r "CommandParser" src`, '
                         '+1) → `grep -r "class CommandParser" .` → packages/cli/command_parser.pony')
    assert fact.full_text and fact.full_text.startswith("Explored before the first change")  # the detail stays


def test_a_restated_diagnosis_is_one_finding_and_naming_beats_narrating():
    t = _transcript([
        Message(0, Role.USER, "fix it"),
        Message(0, Role.ASSISTANT, "The issue is related to the handling of parent default options when parsing."),
        Message(0, Role.USER, "go on"),
        Message(0, Role.ASSISTANT, "Again, the issue is related to the handling of parent default options when parsing."),
    ])
    assert len([f for f in collect(t) if "issue is related" in f.text]) == 1
    named: set[str] = set()
    assert specificity("The cause is `_parse_command` returning at line 101.", named) > 0
    assert specificity("This confirms the issue described.", named) < 0
    assert specificity("However, it is a Pony project, so I should look for Pony files.", named) < 0


def test_a_question_inside_a_long_brief_is_not_asked():
    brief = "Fix the parser.\n" + "6. Re-read the issue. Do you think it has been solved? Write tests. " + "Step. " * 200
    t = _transcript([Message(0, Role.USER, brief), Message(0, Role.ASSISTANT, "I'll explore the repository first.")])
    assert not [f for f in collect(t) if f.text.startswith("Asked")]
