"""Mends drawn from the tenth round of blind reader-reviews (what the agent told the user, the state, the
decisions), each tested on the shape it fixes."""

from __future__ import annotations

from compaction.errors.advice import advise
from compaction.errors.merge import split_substitutions
from compaction.errors.records import ErrorRecord, Location, Occurrence

_BODY = ('gh pr create --title "feat: playbook" --body "Adds `.cursor/rules/001-004.mdc`, `docs/playbook/`, '
         '`docs/` and `git status` notes; keeps \\`literal\\` text"')


def _ran(err_id: str, path: str, said: str, command: str = _BODY, rnd: int = 13) -> ErrorRecord:
    return ErrorRecord(err_id, [Occurrence(round=rnd, evidence=said, message=4, source="result:0",
                                           location=Location(path=path, command=command))])


def test_words_the_shell_ran_from_backticks_in_double_quotes_are_one_record_of_their_own() -> None:
    """chefchopsky r13: zsh ran seven backticked paths of one PR body; "no such file" and "permission denied"
    were two records with the same solution and advice."""
    missing = _ran("ERR_TOOL_FileNotFound", ".cursor/rules/001-004.mdc",
                   "(eval):1: no such file or directory: .cursor/rules/001-004.mdc")
    real = _ran("ERR_TOOL_FileNotFound", "config/settings.yaml", "cat: config/settings.yaml: No such file or directory",
                "cat config/settings.yaml", rnd=2)
    missing.occurrences.insert(0, real.occurrences[0])
    denied = _ran("ERR_TOOL_PermissionDenied", "docs/playbook/", "(eval):1: permission denied: docs/playbook/")
    elsewhere = _ran("ERR_TOOL_CommandNotFound", "shard-sd", "zsh: command not found: shard-sd", "shard-sd -h", 9)
    out = split_substitutions([missing, denied, elsewhere])
    assert [r.id for r in out] == ["ERR_TOOL_BacktickSubstitution", "ERR_TOOL_FileNotFound",
                                   "ERR_TOOL_CommandNotFound"]
    assert all(not r.merged for r in out)  # no alias: a store keeps one record per id across sessions
    assert [o.round for o in out[1].occurrences] == [2]  # the real missing file stays what it was
    advice = advise(out[0])
    # every backticked span inside the double quotes was substituted, the quiet `git status` too; an escaped one not
    assert advice.startswith("backticks inside a double-quoted argument ran `.cursor/rules/001-004.mdc`, "
                             "`docs/playbook/`, `docs/`, `git status` as commands")
    assert "literal" not in advice


def test_backticks_are_paired_only_inside_double_quotes_in_one_pass() -> None:
    from compaction.shell import double_quoted_backticks

    assert double_quoted_backticks("grep -c '`' README.md && git commit -m \"Document `foo` and `bar`\"") == \
        ["foo", "bar"]
    assert double_quoted_backticks("echo `date` \"a `b` c\" '`d`'") == ["b"]
    body = '"' + " ".join(f"`w{i}`" for i in range(20000)) + '"'
    assert len(double_quoted_backticks(body)) == 20000  # one pass: a long PR body costs its length


def test_a_list_item_is_read_under_its_section_title_and_a_bare_title_is_no_answer() -> None:
    """chefchopsky r15: the answer was kept as its headings ("## Why this helps; ### Phase 1: …"), the lines
    under them (who plays which role) dropped."""
    from compaction.history.sources.findings import informative

    reply = ("## Why this helps\n\n### **Phase 1: Intent Capture (101 rule)**\n**Human roles:**\n"
             "- **Product Manager** — problem definition, user needs\n\n"
             "### **Phase 2: Roadmap Creation (102 rule)**\n"
             "- **Engineering Manager** — resource allocation, timeline, capacity\n\n"
             "## ✅ 45 tests passed\n")
    said = informative([reply], 400)
    assert said is not None and "Why this helps" not in said
    assert "Phase 1: Intent Capture (101 rule): Product Manager — problem definition" in said
    assert "Phase 2: Roadmap Creation (102 rule): Engineering Manager" in said
    assert "45 tests passed" in said  # a heading that states a result is one


def test_prose_is_cut_where_a_clause_ends_and_never_inside_a_backticked_name() -> None:
    from compaction.history.condense import cut_at_clause

    said = ("`crypto.getRandomValues()` isn't seeded like a traditional PRNG. Linux: reads from `/dev/urandom`, "
            "which is fed by hardware interrupt timing and other noise the kernel mixes in")
    assert cut_at_clause(said, 120) == ("`crypto.getRandomValues()` isn't seeded like a traditional PRNG. "
                                       "Linux: reads from `/dev/urandom`…")
    # a clause ending sooner than four fifths of the room: cut at a word instead, less is lost
    assert cut_at_clause(said, 150) == ("`crypto.getRandomValues()` isn't seeded like a traditional PRNG. "
                                       "Linux: reads from `/dev/urandom`, which is fed by hardware interrupt timing "
                                       "and…")
    wide = "使用已有的辅助函数 (`seeBranchIsCollapsed`, `seeItemIsNotSelected`) 来检查状态是否正确"
    assert cut_at_clause(wide, 50).endswith("`seeBranchIsCollapsed`…")
    assert cut_at_clause("short", 50) == "short"


def test_a_short_constraint_in_wide_characters_is_kept() -> None:
    """npm-publish r2: "用中文在回答我一遍" (9 characters) fell under the 15-character floor meant for Latin text."""
    from compaction.events import extract_events
    from compaction.history.sources import FactContext
    from compaction.history.sources.decisions import decision_facts
    from compaction.history.steering import role_preset
    from compaction.model import Message, Role
    from tests.unit.synthetic import steps_transcript

    t = steps_transcript("Why did npm publish fail with a 409?",
                         Message(0, Role.ASSISTANT, "The transparency log already holds this entry."),
                         Message(0, Role.USER, "不要修改测试"), Message(0, Role.ASSISTANT, "好的。"))
    texts = [f.text for f in decision_facts(FactContext(t, extract_events(t), [], role_preset("developer"), None,
                                                        len(t.rounds)))]
    assert any("不要修改测试" in x for x in texts)
    from compaction.events import _CONSTRAINT_CJK_RE, _Prose, _sentences_matching

    def said(text: str) -> list[str]:
        return _sentences_matching(_Prose(text, 30000), _CONSTRAINT_CJK_RE)

    assert said("请不要修改测试") == ["请不要修改测试"]  # inside a run of wide characters: no word boundary there
    assert said("你必须先运行测试。然后告诉我") == ["你必须先运行测试。"]
    assert said("不要紧，继续吧") == [] and said("要不要加个测试？") == []  # "never mind", "whether to": no orders


def test_a_check_run_while_the_sessions_own_change_was_taken_out_says_so() -> None:
    """astropy r15-r26: the import the session added was deleted, the tests run (1 failed: the baseline), the
    import put back; "6 failed (r14) → 1 failed (r16)" read as the fix working."""
    from compaction.edits import Hunk
    from compaction.events import Event, EventKind
    from compaction.history.sources.completed import _probe_note, _probes

    init = "astropy/coordinates/builtin_frames/__init__.py"
    line = "from . import itrs_observed_transforms"
    events = [Event(EventKind.EDIT, 13, 0, path=init, hunks=(Hunk(added=(line,)),)),
              Event(EventKind.EDIT, 15, 0, path=init, hunks=(Hunk(deletes_matching=line),)),
              Event(EventKind.EDIT, 26, 0, path=init, hunks=(Hunk(added=(line,)),))]
    windows = _probes(events)
    assert windows == [(15, 26, init)]
    note = _probe_note(windows, None)
    assert note(16) == f" (without the session's change to `{init}`: taken out r15, put back r26)"
    assert note(14) == note(26) == ""
    # lines the session never added are no probe of its own change: the user's code removed and restored
    assert _probes(events[1:]) == []


def test_a_statement_that_points_back_keeps_the_sentence_it_points_to() -> None:
    """pytest r28: "This explains why `xdist` only shows the last exception." said nothing of what explained it."""
    from compaction.history.sources.findings import statements

    text = ("I looked at `_to_json`. The `chain` attribute of `ExceptionChainRepr` is ignored. "
            "This explains why `xdist` only shows the last exception.")
    said = [s for s, _ in statements(text)]
    assert "The `chain` attribute of `ExceptionChainRepr` is ignored. This explains why `xdist` only shows the last " \
           "exception." in said
    planned = "Let me run the test again. This means the fix works for `chain`."
    assert "This means the fix works for `chain`." in [s for s, _ in statements(planned)]  # a plan is no antecedent


def test_what_a_scratch_script_printed_skips_a_tables_dtype_footer_and_keeps_a_short_output_whole() -> None:
    """scikit-learn r36: `test_column_transformer.py` → "dtype: object", the footer of what it printed."""
    from compaction.history.sources.printed import printed_gist as _printed

    assert _printed("select__A       int16\npass__B      category\ndtype: object\n") == \
        "select__A int16 · pass__B category"
    assert _printed("x\n" * 5 + "Name: A, Length: 4, dtype: int64\n") == "x · x · x · x · x"
    assert _printed("dtype: float32\n") == "dtype: float32"  # printed alone: the script's answer
    long = "\n".join(f"row {i} " + "word " * 8 for i in range(6)) + "\nSUCCESS: Dtypes preserved"
    assert _printed(long) == "SUCCESS: Dtypes preserved"


def _log_session(rounds: int, big_at: int, lines: int):
    """A session of `rounds` rounds, each the agent's words and a command's short output, one of them a
    build log of `lines` distinct lines."""
    from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript
    from compaction.transcripts import group_rounds

    msgs = [Message(0, Role.USER, "make the build pass")]
    for r in range(1, rounds + 1):
        if r > 1:
            msgs.append(Message(len(msgs), Role.USER, f"go on with step {r}"))
        msgs.append(Message(len(msgs), Role.ASSISTANT, f"Step {r}: checking `module_{r}` because build {r} said so.",
                            tool_calls=[ToolCall("bash", {"command": f"make step{r}"}, f"c{r}", ToolKind.SHELL,
                                                 command=f"make step{r}")]))
        out = "\n".join(f"[INFO] {i * 7919 % 10007} compiled unit_{i}_{r} in {i % 97} ms" for i in range(lines)) \
            if r == big_at else f"step {r} ok"
        msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult(out, f"c{r}", "bash", exit_code=0)]))
    return Transcript("t.json", "test", msgs, group_rounds(msgs))


def test_one_huge_tool_output_gives_way_to_older_rounds_and_grows_back_when_every_round_is_in() -> None:
    """fastjson2: two Maven logs (26,000 and 44,000 characters) took 89% of the document; the rounds before
    them, where the agent said what it did, were left out."""
    from compaction import tokens
    from compaction.history import compact
    from compaction.history.steering import parse_instructions
    from compaction.history.tail import TOOL_OUTPUT_MOST, round_pieces

    t = _log_session(12, 11, 3000)
    log = round_pieces(t.rounds[10], True, parse_instructions(None))
    (piece,) = [p for p in log if p.n > TOOL_OUTPUT_MOST]
    assert tokens.count(piece.render(None)) < TOOL_OUTPUT_MOST + 50  # by its ends, whatever the cap
    assert tokens.count(round_pieces(t.rounds[10], True, parse_instructions(None), output_most=None)[-2]
                        .render(None)) > 10 * TOOL_OUTPUT_MOST  # unbounded: whole
    total = tokens.count_messages(t.messages)
    for target in (total // 8, total // 2):
        doc = compact(t, target_tokens=target).markdown
        # every round is in, the log grown back as far as that allows: the document fills its target
        assert "### r1\n" in doc and 0.9 * target <= tokens.count(doc) <= target, (target, tokens.count(doc))


def test_a_removal_is_a_probe_only_when_one_later_change_puts_all_of_it_back() -> None:
    """Code review: deleting an unused helper, then writing a new function that also ends `return result`,
    read as the session's change taken out and put back."""
    from compaction.edits import Hunk
    from compaction.events import Event, EventKind
    from compaction.history.sources.completed import _probes

    f = "src/utils.py"
    helper = ("def old_helper(x):", "    return result")
    events = [Event(EventKind.WRITE, 1, 0, path=f, hunks=(Hunk(added=helper),)),
              Event(EventKind.EDIT, 5, 0, path=f, hunks=(Hunk(removed=helper),)),
              Event(EventKind.EDIT, 9, 0, path=f, hunks=(Hunk(added=("def new_one(y):", "    return result")),))]
    assert _probes(events) == []
    events.append(Event(EventKind.EDIT, 11, 0, path=f, hunks=(Hunk(added=helper),)))
    assert _probes(events) == [(5, 11, f)]
    many = [Event(EventKind.EDIT, i, 0, path=f, hunks=(Hunk(added=(f"line number {i} of many",)),)) for i in range(3000)]
    assert _probes(many) == []  # one growing set per file: thousands of edits stay linear


# ---------------------------------------------------------------- the code review's inputs (db3039a..c29d918)

def test_an_antecedent_comes_from_the_same_paragraph_line_and_is_no_statement_of_its_own() -> None:
    from compaction.history.sources.findings import statements

    assert [s for s, _ in statements("## Root cause found\nThis means the parser drops the chain.")] == \
        ["This means the parser drops the chain."]  # a heading is no antecedent
    assert [s for s, _ in statements("- I checked `_to_json`\n- This means the chain is dropped by `_to_json`.")] == \
        ["This means the chain is dropped by `_to_json`."]  # nor the list item before
    said = [s for s, _ in statements("The root cause is the lazy value. This means `prepared` IS lazy.")]
    assert "The root cause is the lazy value." in said and "This means `prepared` IS lazy." in said  # told once


def test_a_clause_is_not_ended_by_an_abbreviation_a_list_number_or_a_stop_inside_code() -> None:
    from compaction.history.condense import cut_at_clause

    assert cut_at_clause("Use the helpers, e.g. the ones in `splitter.spec.ts` and the Tree examples which run long",
                         60) == "Use the helpers, e.g. the ones in `splitter.spec.ts` and…"
    assert cut_at_clause("The steps are: 1. read it 2. fix it 3. check that everything passes", 50).endswith("check…")
    assert cut_at_clause("call `foo(a, b)` and then `bar(c, d)` before the render happens", 40) == \
        "call `foo(a, b)` and then `bar(c, d)`…"


def test_a_hash_line_in_an_indented_block_is_no_title_and_a_verdict_ends_the_section_before() -> None:
    from compaction.history.sources.findings import informative

    said = informative(["Run this:\n\n    # run the failing test\n    pytest -x\n\nThe fix in `parser.py` makes all 45 "
                        "tests pass."], 300)
    assert said == "The fix in `parser.py` makes all 45 tests pass."
    said = informative(["## Known limitations\n- none that matter here at all\n## ✅ 45 tests passed\n"
                        "`pytest tests/` — 45 passed in 3.2s"], 300)
    assert said is not None and "Known limitations: `pytest" not in said
    assert informative(["### 修改内容：\n- 把 `a` 改成 `b`，因为测试需要它"], 300) == "修改内容: 把 `a` 改成 `b`，因为测试需要它"


def test_a_title_labels_its_list_not_the_prose_after_it_and_a_links_address_is_no_figure() -> None:
    """A plan's closing report: "### Key decisions:" then three items, then "Please review…"; the title cost
    room on the paragraph after the list, and a `file:///…/3f00f0a8-748a-…` link outscored the items."""
    from compaction.history.sources.findings import informative

    reply = ("I have created the plan.\n* [plan.md](file:///C:/Users/me/brain/3f00f0a8-748a-4a78-8339-b16d16140338/"
             "plan.md)\n\n### Key Decisions for Your Review:\n1. **AI Fallback Chain**: OpenAI -> Groq -> OpenRouter "
             "for availability.\n2. **Local Privacy Mode**: a local SQLite database and Ollama.\n\n"
             "Please review the plan. I recommend setting `C:\\work\\app` as the workspace.")
    said = informative([reply], 300, closing=True)
    assert said is not None and "Key Decisions for Your Review: 1. AI Fallback Chain: OpenAI -> Groq" in said
    assert "Review: Please review" not in said


# ---------------------------------------------------------------- the second code review's inputs (c29d918..a68f44c)

def test_the_outputs_grow_back_to_fill_the_target_at_every_size() -> None:
    from compaction import tokens
    from compaction.history import compact

    t = _log_session(12, 11, 3000)
    total = tokens.count_messages(t.messages)
    for share in (0.1, 0.3, 0.5, 0.8, 0.97):
        target = int(total * share)
        doc = compact(t, target_tokens=target).markdown
        assert "### r1\n" in doc and 0.9 * target <= tokens.count(doc) <= target, (share, tokens.count(doc))
    pm = compact(t, target_tokens=int(total * 0.5), role="pm").markdown  # no tool output shown: nothing to grow
    assert tokens.count(pm) <= int(total * 0.5)


def test_an_antecedent_across_a_single_line_break_is_the_same_paragraph() -> None:
    from compaction.history.sources.findings import statements

    text = 'It didn\'t print "DEBUG: Importing itrs_observed_transforms".\nThis means the module is NOT being imported.'
    assert [s for s, _ in statements(text)] == ['It didn\'t print "DEBUG: Importing itrs_observed_transforms". '
                                                'This means the module is NOT being imported.']


def test_a_probe_is_found_whatever_spelling_of_the_file_each_change_used() -> None:
    from compaction.edits import Hunk
    from compaction.events import Event, EventKind
    from compaction.history.sources.completed import _probes

    line = "from . import itrs_observed_transforms"
    rel, absolute = "astropy/builtin_frames/__init__.py", "/testbed/astropy/builtin_frames/__init__.py"
    events = [Event(EventKind.EDIT, 13, 0, path=absolute, hunks=(Hunk(added=(line,)),)),
              Event(EventKind.EDIT, 15, 0, path=rel, hunks=(Hunk(deletes_matching=line),)),
              Event(EventKind.EDIT, 26, 0, path=absolute, hunks=(Hunk(added=(line,)),))]
    assert [(s, b) for s, b, _ in _probes(events)] == [(15, 26)]


def test_a_word_the_shell_ran_as_a_command_of_its_own_is_no_substitution() -> None:
    """`mytool --init && git commit -m "Add `mytool` config"`: `&&` stopped after the real missing tool."""
    from compaction.errors.advice import own_word

    occ = Occurrence(round=1, location=Location(symbol="mytool",
                                                command='mytool --init && git commit -m "Add `mytool` config"'))
    assert own_word("ERR_TOOL_CommandNotFound", occ) is None
    occ.location.command = 'git commit -m "Add `mytool` config"'
    assert own_word("ERR_TOOL_CommandNotFound", occ) == "mytool"


def test_a_wide_closing_quote_stays_with_its_sentence_and_whether_it_must_is_no_order() -> None:
    from compaction.events import _CONSTRAINT_CJK_RE, _Prose, _sentences_matching

    def said(text: str) -> list[str]:
        return _sentences_matching(_Prose(text, 30000), _CONSTRAINT_CJK_RE)

    assert said("他说：“不要修改测试。”然后就走了") == ["他说：“不要修改测试。”然后就走了"]
    assert said("我不确定是否必须升级 Node") == []
    assert said("只要不要改测试就行") == ["只要不要改测试就行"]


def test_a_reingest_moves_a_substituted_words_occurrence_instead_of_counting_it_twice(tmp_path) -> None:
    """A store written before the substitution id: the re-ingest must not keep the old id's occurrence too."""
    from compaction.errors.memory import ErrorMemory
    from compaction.errors.scan import transcript_id
    from tests.unit.test_review9_mends import _Session

    s = _Session("open the PR")
    s.run('gh pr create --title "Rules" --body "Adds `docs/rules.md` for the team"',
          "zsh: no such file or directory: docs/rules.md\nhttps://github.com/o/r/pull/22", 0)
    t = s.transcript()
    mem = ErrorMemory(tmp_path / "state.db")
    tid = transcript_id(t)
    old = ErrorRecord("ERR_TOOL_FileNotFound", [Occurrence(round=1, transcript=tid, evidence="x",
                                                           location=Location(path="docs/rules.md"))])
    mem.ingest(t, [old])  # as an older engine labelled it
    mem.ingest(t)
    ids = {r.id: r.count for r in mem.list()}
    assert ids.get("ERR_TOOL_BacktickSubstitution") == 1 and "ERR_TOOL_FileNotFound" not in ids, ids
