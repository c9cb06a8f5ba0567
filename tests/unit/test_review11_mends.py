"""Mends drawn from the eleventh round of blind reader-reviews (changes and errors as chains, beliefs later
corrected, the user's answers to the agent's questions) and from exam 34's lower answers, each tested on the
shape it fixes."""

from __future__ import annotations

from compaction.events import extract_events
from compaction.history.sections import Section
from compaction.history.sources import FactContext, gather
from compaction.history.sources.findings import informative
from compaction.history.steering import role_preset
from compaction.model import Message, Role, ToolCall, ToolKind, ToolResult, Transcript, group_rounds


def _goal_scores(requests: list[str]) -> dict[str, float]:
    return {f.text: f.score for f in gather(_goal_ctx(requests)) if f.section is Section.GOAL}


def _goal_ctx(requests: list[str]) -> FactContext:
    msgs: list[Message] = []
    for i, text in enumerate(requests):
        msgs += [Message(len(msgs), Role.USER, text),
                 Message(len(msgs) + 1, Role.ASSISTANT, "Done.",
                         [ToolCall("Edit", {"file_path": f"src/m{i}.ts"}, f"e{i}", ToolKind.EDIT, path=f"src/m{i}.ts")])]
    msgs.append(Message(len(msgs), Role.USER, "thanks, now run the tests"))
    t = Transcript("s.md", "test", msgs, group_rounds(msgs))
    return FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"), cwd=None,
                       n_rounds=len(t.rounds), target_tokens=4000)


def test_a_quoted_line_of_prose_is_a_request_and_a_quoted_path_is_a_prompts_line() -> None:
    """afi-core r19: "> please review PoIValidator.ts and help clean up …" (the user typed aider's quote mark)
    was scored as a pasted prompt line, below "> schemas/index.ts", and fell out of the task."""
    scores = _goal_scores(["Set up the repo", "> schemas/index.ts",
                           "> please review PoIValidator.ts and help clean up any logic that feels brittle. "
                           "ensure schema imports are correct. surface any hardcoded values."])
    review = next(v for k, v in scores.items() if "PoIValidator" in k)
    prompt_line = scores["Then asked: > schemas/index.ts"]
    assert review > prompt_line + 3


def test_the_list_of_what_the_agent_asks_the_user_to_add_is_no_finding() -> None:
    """afi-core r31-r32: "Please add the following files to the chat:" and its list of paths stood as the
    report on the audit request, where the agent had found nothing yet."""
    reply = ("Thank you for adding `package.json`. To perform a thorough audit, please add the following files "
             "to the chat:\n\n1. **Module Entrypoints**\n   - `dist/index.js` (or `src/index.js`)\n"
             "2. **Schemas:**\n   - The contents of your `schemas/` directory, especially `.ts` files\n\n"
             "The `exports` map in `package.json` points at `dist/index.js`, which does not exist yet.")
    said = informative([reply], 400)
    assert said is not None
    assert "`exports` map" in said
    assert "src/index.js" not in said and "especially" not in said
    # a list the agent found, under a lead-in that asks nothing, stays
    found = informative(["I checked the schemas:\n- `SignalSchema` is the only complete schema (17 fields)\n"
                         "- `validator_governance_schema.ts` is an empty placeholder"], 400)
    assert found is not None and "only complete schema" in found and "empty placeholder" in found


def _session(steps: list[tuple[str, ToolCall | None, str | None]]) -> Transcript:
    """(assistant text, its call, the call's output) per step, after one request."""
    msgs = [Message(0, Role.USER, "Fix the parent default options of the CLI parser")]
    for text, call, output in steps:
        msgs.append(Message(len(msgs), Role.ASSISTANT, text, [call] if call else []))
        if call is not None:
            msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult(output or "", call.id, call.name,
                                                                               exit_code=0)]))
    return Transcript("s.json", "test", msgs, group_rounds(msgs))


def _sh(command: str, i: int) -> ToolCall:
    return ToolCall("bash", {"command": command}, f"c{i}", ToolKind.SHELL, command=command)


def _facts(t: Transcript) -> list:
    ctx = FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"), cwd=None,
                      n_rounds=len(t.rounds), target_tokens=4000)
    return gather(ctx)


def test_the_searches_that_found_nothing_before_the_one_that_located_the_file_are_told() -> None:
    """ponyc r4-r11: five searches under `src/` (the C compiler) found nothing before `find .` located the
    Pony package; the document said only "Found `packages/cli/cli.pony` with `find . …`"."""
    edit = ToolCall("str_replace_editor", {"path": "packages/cli/cli.pony", "old_str": "a", "new_str": "b"}, "e",
                    ToolKind.EDIT, path="packages/cli/cli.pony")
    t = _session([("Looking in the compiler.", _sh('find src/libponyc -name "*command*.pony"', 1), None),
                  ("Broader.", _sh('grep -r "CommandParser" src', 2), None),
                  ("Whole repository.", _sh('find . -name "*cli*.pony"', 3), "./packages/cli/cli.pony\n"),
                  ("Editing.", edit, "The file packages/cli/cli.pony has been edited.")])
    (found,) = [f for f in _facts(t) if f.text.startswith("Found `packages/cli/cli.pony`")]
    assert found.full_text is not None
    assert "after 2 searches found nothing: `find src/libponyc -name \"*command*.pony\"` (r1) … " \
           "`grep -r \"CommandParser\" src` (r2)" in found.full_text
    assert found.rounds == [3]
    # the one line says the agent looked elsewhere first; the full one says where
    assert found.text == 'Found `packages/cli/cli.pony` with `find . -name "*cli*.pony"` (r3), after 2 searches found nothing'


def test_a_search_that_only_counted_its_hits_takes_where_the_agent_then_said_they_are() -> None:
    """bastion r33-r36: `grep Bastion V2` → nothing; `grep V2|v2` → "1 matches"; the agent: "Found it. Line 24
    of README.md has "Bastion v2"." The finding kept the count, not the place."""
    from compaction.history.sources.findings import collect

    grep = [ToolCall("grep", {"pattern": p}, f"g{i}", ToolKind.SEARCH) for i, p in enumerate(("Bastion V2", "V2|v2"))]
    t = _session([("Searching.", grep[0], "No matches found"), ("Different pattern.", grep[1], "1 matches"),
                  ("Found it. Line 24 of README.md has \"Bastion v2\". Let me read around it.", None, None)])
    (again,) = [f for f in collect(t) if "→ nothing; then" in f.text]
    assert again.text.endswith("— “Line 24 of README.md has \"Bastion v2\".”")


def test_the_reason_of_an_edit_the_final_diff_does_not_hold_is_no_reason_for_the_change() -> None:
    """django r77-r78: "Why `sql/query.py` changed (edit r78): So `DEBUG: …` means …" was the reason for a debug
    print the agent removed before submitting; the final diff holds none of its lines."""
    from compaction.history.sources.reasons import reasons

    path = "django/db/models/sql/query.py"

    def sub(old: str, new: str, i: int) -> ToolCall:
        return _sh(f"sed -i 's/{old}/{new}/' {path}", i)

    msgs = [Message(0, Role.USER, "Fix the SimpleLazyObject crash in resolve_lookup_value")]
    steps = [("Since `resolve_lookup_value` gets a `SimpleLazyObject`, unwrapping `value._wrapped` in "
              "`resolve_lookup_value` fixes the `sqlite3` binding because it needs a plain `str`.",
              sub("return value", "return unwrap(value)", 1)),
             ("So `DEBUG: type(value)` means `value` printed through `resolve_lookup_value` as `test-slug` "
              "because `print_debug_type(value)` shows its repr.", sub("pass", "print_debug_type(value)", 2))]
    for text, call in steps:
        msgs.append(Message(len(msgs), Role.ASSISTANT, text, [call]))
        msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult("", call.id, "bash", exit_code=0)]))
    diff = (f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1,2 +1,2 @@ def resolve_lookup_value(self):\n"
            "-        return value\n+        return unwrap(value)\n")
    msgs.append(Message(len(msgs), Role.TOOL, text=diff, meta={"final_patch_echo": True}))
    t = Transcript("s.json", "test", msgs, group_rounds(msgs))
    ctx = FactContext(transcript=t, events=extract_events(t), records=[], preset=role_preset("developer"), cwd=None,
                      n_rounds=len(t.rounds), target_tokens=4000)
    got = reasons(ctx)
    assert [r.edited for r in got] == [1]  # the debug print's reason is gone, the kept change's stays
    assert "sqlite3" in got[0].short


def test_a_checklist_item_a_later_request_took_up_is_not_left_pending() -> None:
    """afi-core r37: "**DAG stubs**: only a placeholder" stood as [pending] after r41's request built them."""
    msgs = [Message(0, Role.USER, "Audit the repository"),
            Message(1, Role.ASSISTANT, "Checklist:\n- [ ] **DAG stubs**: Only a placeholder exists.\n"
                                       "- [ ] **Release notes**: none written yet."),
            Message(2, Role.USER, "Add the DAG scaffolding: minimal DAG stubs in dist/dags/"),
            Message(3, Role.ASSISTANT, "Added.")]
    t = Transcript("s.json", "test", msgs, group_rounds(msgs))
    nexts = [f for f in _facts(t) if f.section is Section.NEXT]
    texts = [f.text for f in nexts]
    assert any(x.startswith("[taken up since] - [ ] **DAG stubs**") or x.startswith("[taken up since] **DAG stubs**")
               for x in texts), texts
    taken = next(f for f in nexts if "DAG stubs" in f.text)
    assert not taken.essential and "then r2" in taken.text
    assert any(x.startswith("[pending]") and "Release notes" in x for x in texts)


def test_a_config_file_edited_twice_shows_its_first_and_last_value() -> None:
    """npm-publish r7: `"main": "dist/index.js"` → `dist/client/index.js`, then → `./dist-client/index.js`; the
    record showed the intermediate value as the change."""
    from compaction.history.sources.changes import chained_prose_pairs

    first = (['"main": "dist/index.js",'], ['"main": "dist/client/index.js",', '"browser": "./dist/client/index.js",'])
    second = (['"main": "dist/client/index.js",', '"browser": "./dist/client/index.js",', '"dist"'],
              ['"main": "./dist-client/index.js",', '"browser": "./dist-client/index.js",', '"dist",', '"dist-client"'])
    became, fresh, _ = chained_prose_pairs([first, second])
    assert ('"main": "dist/index.js",', '"main": "./dist-client/index.js",') in became  # first to last
    assert '"browser": "./dist-client/index.js",' in fresh and '"browser": "./dist/client/index.js",' not in fresh
    back = (['"main": "./dist-client/index.js",'], ['"main": "dist/index.js",'])
    became, _, _ = chained_prose_pairs([first, second, back])
    assert not any('"main"' in old for old, _ in became)  # put back as it was: no change of `main`


def test_a_latin_stop_right_before_wide_text_ends_the_sentence() -> None:
    """npm-publish r4: "I'll reference specific files and provide clear next steps in Chinese.已在源头修正…" was
    one sentence, and the agent's plan to itself led the reason for the change."""
    from compaction.history.sources.findings import _SENTENCE_RE
    from compaction.history.sources.reasons import _SPLIT_RE

    text = "I'll provide next steps in Chinese.已在源头修正 `$` 的问题。这样就不会再报错"
    assert _SENTENCE_RE.split(text)[:2] == ["I'll provide next steps in Chinese.", "已在源头修正 `$` 的问题。"]
    assert [p for p in _SPLIT_RE.split(text) if p][:2] == ["I'll provide next steps in Chinese", "已在源头修正 `$` 的问题"]
    assert _SENTENCE_RE.split("See e.g. the `a.b()` call.") == ["See e.g. the `a.b()` call."]  # no wide text: as before


def test_a_bare_yes_to_the_agents_question_is_kept_with_the_question_and_an_ok_to_nothing_is_not() -> None:
    """pi-mono r77-r78: "Should I add that clarification to the settings section?" — "yes" — the edit; the yes
    (three letters) was no request, and the user's decision was lost."""
    msgs = [Message(0, Role.USER, "Document the hook settings"),
            Message(1, Role.ASSISTANT, "Done. `hookTimeout` does not apply to `tool_call`. "
                                       "Should I add that clarification to the settings section?"),
            Message(2, Role.USER, "yes"),
            Message(3, Role.ASSISTANT, "Added.", [ToolCall("edit", {"path": "docs/hooks.md"}, "e1", ToolKind.EDIT,
                                                           path="docs/hooks.md")]),
            Message(4, Role.TOOL, tool_results=[ToolResult("Successfully replaced text", "e1", "edit")]),
            Message(5, Role.ASSISTANT, "Roses are red. Tomorrow brings another day."),
            Message(6, Role.USER, "ok"),
            Message(7, Role.USER, "now write the changelog entry")]
    t = Transcript("s.json", "test", msgs, group_rounds(msgs))
    goal = [f.text for f in _facts(t) if f.section is Section.GOAL]
    assert "Then asked: yes (accepting: “Should I add that clarification to the settings section?”)" in goal
    assert not any("Tomorrow" in x for x in goal)


def test_a_debug_print_whose_lines_a_pattern_deletion_took_out_is_marked_undone() -> None:
    """django r29-r89: the `sed -i '1068i print(f"DEBUG: …")'` inserts stood among the completed actions as
    work done; `sed -i '/DEBUG:/d'` (r89) had deleted every line they added."""
    path = "django/db/models/sql/query.py"
    steps = [("Add a debug print.", _sh(f"sed -i '10i\\        print(f\"DEBUG: got {{value}}\")' {path}", 1), None),
             ("The fix.", _sh(f"sed -i 's/if isinstance(value, Lazy):/while isinstance(value, Lazy):/' {path}", 2),
              None),
             ("Clean up.", _sh(f"sed -i '/DEBUG:/d' {path}", 3), None)]
    done = [f.text for f in _facts(_session(steps)) if f.section is Section.COMPLETED]
    debug = next(x for x in done if "print(f" in x)
    assert "→ undone by the deletion of its lines at r3" in debug
    assert not any("while isinstance" in x and "undone" in x for x in done)


def test_an_agents_account_in_chinese_is_found_and_split_at_its_wide_stops() -> None:
    """tree-vanilla r6-r7: each attempt at the failing Shift+ArrowDown test was told "an edit (r6), failed again";
    the agent's account ("问题是在启用多选模式后，等待条件只检查 `src` 节点…") was never read: no English cue word."""
    from compaction.errors.scan import _CAUSE, _SENTENCE

    said = "我看到问题了。问题是在启用多选模式后，等待条件只检查 `src` 节点是否存在。让我修复它"
    sentences = _SENTENCE.split(said)
    assert sentences == ["我看到问题了。", "问题是在启用多选模式后，等待条件只检查 `src` 节点是否存在。", "让我修复它"]
    assert [s for s in sentences if _CAUSE.search(s)] == [sentences[1]]


def test_a_step_of_looking_said_in_the_first_person_is_no_decision() -> None:
    """pydicom r5: "Open this file and navigate to the line that raises the error, which is line 293 according to
    the traceback." stood among the key decisions ("according to" read as its reason)."""
    from compaction.history.sources.decisions import _choices

    text = ("Let's open this file and navigate to the line that raises the error, which is line 293 according to "
            "the traceback.\n\nI'll use `pixel_dtype` instead of the raw `BitsAllocated` because it handles floats.")
    got = _choices(text, text.lower(), None, set())
    assert got == ["I'll use `pixel_dtype` instead of the raw `BitsAllocated` because it handles floats."]


def test_a_finding_the_agent_later_corrected_is_told_with_the_correction() -> None:
    """bastion r6-r11: "The gitignore has: *.json !…keypair.json" stood as a finding; at r11 the agent saw the
    output was the .dockerignore ("that's dockerignore, not gitignore"). The successor kept the stale belief."""
    from compaction.history.sources.findings import collect

    t = _session([("The gitignore has: *.json !keypair.json. This means the keypair is not ignored by git.",
                   _sh("cat .gitignore; echo ---; cat .dockerignore", 1), "*.json\n!keypair.json"),
                  ("No output from check-ignore. The .dockerignore has *.json but that's dockerignore, not gitignore. "
                   "There is no .gitignore at the root.", _sh("git check-ignore keypair.json", 2), "")])
    found = [f.text for f in collect(t) if "gitignore has" in f.text]
    assert found and all(x.startswith("(r2 corrects this: “that's dockerignore, not gitignore”) ") for x in found), found


def test_a_test_runs_last_result_given_again_later_says_when() -> None:
    """astropy r16/r32: "1 failed, 68 passed" with the change taken out (r16) and the same with it put back (r32)
    folded into r16's entry alone, so the result with the change in place was never told."""
    steps = [("Run the tests.", _sh("pytest tests/test_x.py", 1), "FAILED tests/test_x.py::test_a\n===== 6 failed, 63 passed in 2.10s ====="),
             ("Again.", _sh("pytest tests/test_x.py", 2), "FAILED tests/test_x.py::test_a\n===== 1 failed, 68 passed in 2.00s ====="),
             ("Once more.", _sh("pytest tests/test_x.py", 3), "FAILED tests/test_x.py::test_a\n===== 1 failed, 68 passed in 2.20s =====")]
    (line,) = [f.text for f in _facts(_session(steps)) if f.section is Section.COMPLETED and "pytest" in f.text]
    assert "→ 6 failed, 63 passed (failed: `test_a`) (r1) → 1 failed, 68 passed (r2) (again r3)" in line, line


# --- what a code review of the mends above found (each a defect it confirmed with an input like these) ---

def test_a_bare_yes_survives_the_bound_on_requests_a_compaction_sets() -> None:
    """The "yes" of pi-mono never reached the document: `extract_events(max_requests=…)` (what a compaction with
    a target calls) dropped every request of three characters before the goal source could read it."""
    from compaction.events import EventKind

    msgs = [Message(0, Role.USER, "Document the hook settings in docs/hooks.md")]
    for i in range(3):
        msgs += [Message(len(msgs), Role.ASSISTANT, f"Done step {i}. Should I add clarification number {i}?"),
                 Message(len(msgs) + 1, Role.USER, "yes")]
    t = Transcript("s.json", "test", msgs, group_rounds(msgs))
    bounded = [e.round for e in extract_events(t, max_requests=2) if e.kind is EventKind.REQUEST]
    assert bounded == [1, 3, 4]  # the task, then the last two answers
    ctx = FactContext(transcript=t, events=extract_events(t, max_requests=2), records=[],
                      preset=role_preset("developer"), cwd=None, n_rounds=len(t.rounds), target_tokens=4000)
    goal = [f.text for f in gather(ctx) if f.section is Section.GOAL]
    assert "Then asked: yes (accepting: “Should I add clarification number 1?”)" in goal


def test_an_agents_list_of_possible_causes_is_its_guess_not_the_cause() -> None:
    """A lead-in "可能的原因：" and its numbered list were taken whole as "cause: …"; a hedged Chinese sentence
    ("可能是因为…") was told as the cause, not as the agent's guess."""
    from compaction.errors.scan import _HEDGE_CJK, _LIST_OPENER, _hedged

    assert _LIST_OPENER.search("根据错误信息，主要问题是： 1.") and _LIST_OPENER.search("The causes are: 1.")
    assert _hedged("可能的原因：") and _hedged("Possible causes:") and not _hedged("原因是缓存没有这个键。")
    assert _HEDGE_CJK.search("可能是因为缓存里没有这个键。")


def test_two_lines_alike_at_two_places_are_not_one_line_put_back() -> None:
    """docker-compose: web's `restart: always` → "no", then worker's `restart: "no"` → always read as the first
    put back, and the record said nothing of either."""
    from compaction.history.sources.changes import chained_prose_pairs

    became, fresh, _ = chained_prose_pairs([(["restart: always"], ['restart: "no"']),
                                            (['restart: "no"'], ["restart: always"])])
    assert became == [("restart: always", 'restart: "no"'), ('restart: "no"', "restart: always")]


def test_the_asked_for_list_is_dropped_whatever_its_items_start_with_and_other_lists_stay() -> None:
    """A numbered item starting with a backtick was split from its number, which reset the state; "Please open
    an issue for each of these:" and secrets a repository needs dropped the lists they led."""
    asked = informative(["Please add the following files to the chat:\n1. `src/index.ts` (the module entrypoint)\n"
                         "2. The `schemas/` directory with every file\n\nThe `exports` map in `package.json` points "
                         "at `dist/index.js`, which does not exist."], 400)
    assert asked == "The `exports` map in `package.json` points at `dist/index.js`, which does not exist."
    issues = informative(["I found two bugs in the parser. Please open an issue for each of these:\n- `parse()` drops "
                          "the last token when the input ends with a comma\n- `lex()` loops forever on an empty "
                          "string"], 400)
    assert issues is not None and "loops forever" in issues
    secrets = informative(["To publish, you need to add the following secrets to the repository settings:\n"
                           "- `NPM_TOKEN` with publish rights\n- `GH_PAT` with repo scope"], 400)
    assert secrets is not None and "NPM_TOKEN" in secrets


def test_a_search_the_shell_could_not_run_is_no_miss() -> None:
    """`rg …` → "bash: rg: command not found" counted as a search that found nothing."""
    edit = ToolCall("str_replace_editor", {"path": "pkg/cli.py", "old_str": "a", "new_str": "b"}, "e",
                    ToolKind.EDIT, path="pkg/cli.py")
    msgs = [Message(0, Role.USER, "Fix the CLI parser")]
    for i, (call, out, code) in enumerate([(_sh('rg "Parser" src', 1), "bash: rg: command not found", 127),
                                          (_sh('find . -name "cli.py"', 2), "./pkg/cli.py\n", 0),
                                          (edit, "The file pkg/cli.py has been edited.", 0)]):
        msgs.append(Message(len(msgs), Role.ASSISTANT, f"step {i}", [call]))
        msgs.append(Message(len(msgs), Role.TOOL, tool_results=[ToolResult(out, call.id, call.name, exit_code=code,
                                                                           is_error=code != 0)]))
    t = Transcript("s.json", "test", msgs, group_rounds(msgs))
    (found,) = [f for f in _facts(t) if f.text.startswith("Found `pkg/cli.py`")]
    assert found.full_text is None and "found nothing" not in found.text


def test_the_commands_one_revert_put_back_are_named_a_few_and_counted() -> None:
    """100 debug inserts and one `git checkout`: one line of 6,541 characters took 80% of a 3,000-token budget."""
    steps = [(f"debug {i}", _sh(f"sed -i '{i}i\\\\    print(\"DEBUG {i}\")' core.py", i), None) for i in range(1, 101)]
    steps.append(("revert", _sh("git checkout core.py", 101), None))
    (line,) = [f.text for f in _facts(_session(steps)) if "undone" in f.text]
    assert len(line) < 500 and "; +92 more → undone by the revert of r101 (r1-r100)" in line


def test_a_checklist_item_the_user_put_off_stays_pending() -> None:
    msgs = [Message(0, Role.USER, "Audit the repository"),
            Message(1, Role.ASSISTANT, "Checklist:\n- [ ] **Release notes**: none written yet."),
            Message(2, Role.USER, "Skip the release notes for now, fix the build"),
            Message(3, Role.ASSISTANT, "Fixed.")]
    t = Transcript("s.json", "test", msgs, group_rounds(msgs))
    (item,) = [f for f in _facts(t) if f.section is Section.NEXT and "Release notes" in f.text]
    assert item.text.startswith("[pending]") and item.essential


def test_an_unreadable_final_diff_header_takes_no_reason_away() -> None:
    """A final diff whose `diff --git` line names a path with a space parsed as no file at all: every edit then
    read as taken out, and the session lost every reason."""
    from compaction.history.sources.final_diff import final_added

    diff = ('diff --git "a/my dir/x.py" "b/my dir/x.py"\n--- "a/my dir/x.py"\n+++ "b/my dir/x.py"\n'
            "@@ -1 +1 @@\n-old\n+new line\n")
    msgs = [Message(0, Role.USER, "go"), Message(1, Role.TOOL, text=diff, meta={"final_patch_echo": True})]
    t = Transcript("s.json", "test", msgs, group_rounds(msgs))
    ctx = FactContext(transcript=t, events=[], records=[], preset=role_preset("developer"), cwd=None,
                      n_rounds=len(t.rounds))
    assert final_added(ctx) == {"my dir/x.py": {"new line"}}
    msgs[1] = Message(1, Role.TOOL, text="nothing parsed here", meta={"final_patch_echo": True})
    t = Transcript("s.json", "test", msgs, group_rounds(msgs))
    assert final_added(FactContext(transcript=t, events=[], records=[], preset=role_preset("developer"), cwd=None,
                                   n_rounds=len(t.rounds))) is None


def test_a_choice_that_starts_with_a_looking_verb_but_weighs_an_alternative_stays() -> None:
    from compaction.history.sources.decisions import _choices

    text = "I'll run the migration with `--fake` instead of applying it because the table already exists."
    assert _choices(text, text.lower(), None, set()) == [text]


def test_a_hosts_port_is_no_place_of_a_search_hit_and_a_name_with_wide_text_is_not_split() -> None:
    from compaction.history.sources.findings import _SENTENCE_RE, _placed

    assert _placed("The server listens on 127.0.0.1:8080 now.") is None
    assert _placed("Line 24 of README.md has it.") == "Line 24 of README.md has it."
    assert _SENTENCE_RE.split("See docs/guide.中文.md for it。然后") == ["See docs/guide.中文.md for it。", "然后"]


def test_an_older_request_the_room_cannot_hold_whole_comes_back_by_its_opening_ask() -> None:
    """afi-core at 10%: "review PoIValidator.ts and help clean up any logic that feels brittle…" (r19) did not fit
    the room the filler had left, and a shorter later line (`aider add …`) took it; exam 35 answered the
    question about r19's request from that line, confidently wrong."""
    from compaction.history.sources.task import BRIEF_REQUEST_CHARS

    long_ask = ("please review PoIValidator.ts and help clean up any logic that feels brittle, unmodular, or hard "
                "to test. ensure schema imports are correct and usable with universal_signal_schema. surface any "
                "hardcoded values or placeholder logic that needs refactoring.")
    scores = _goal_scores(["Set up the repo", long_ask])
    (fact,) = [f for f in gather(_goal_ctx(["Set up the repo", long_ask]))
               if f.section is Section.GOAL and "PoIValidator" in f.text]
    assert fact.short is not None and len(fact.short) <= len("Then asked: ") + BRIEF_REQUEST_CHARS + 2
    assert fact.short.startswith("Then asked: review PoIValidator.ts and clean up")
    assert any("PoIValidator" in k for k in scores)
