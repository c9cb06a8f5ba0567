"""An explicit budget is always kept (issue 13 item 5), and spent by value (issue 14 item 5).

Loops over the real transcripts (the exam's set-aside sessions excluded) at shares of their size and at
tiny absolute budgets: the document never exceeds its target, and every must-keep item (planted marker,
error-memory id, todo) is still named, at least by its one line."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.copies import prepare
from compaction import tokens
from compaction.history import compact
from compaction.history.fit import one_line
from compaction.transcripts import load_transcript
from tests.conftest import real_transcripts

SET_ASIDE = {"mini-sphinx-9258.traj.json", "oh-mapstruct-3492.json"}
NAMES = [p.name for p in real_transcripts() if p.name not in SET_ASIDE]
SHARES = (0.01, 0.02, 0.05, 0.10, 0.20)
ABSOLUTE = (60, 120, 200, 500)
NAMED_FLOOR = 200  # budgets from here on name every must-keep item


@pytest.fixture(scope="module")
def sessions(tmp_path_factory):
    out = tmp_path_factory.mktemp("copies")
    loaded = {}
    for p in real_transcripts():
        if p.name in SET_ASIDE:
            continue
        copy = prepare(p, out)
        t = load_transcript(copy.path)
        loaded[p.name] = (t, tokens.count_messages(t.messages), copy.markers)
    return loaded


def _budgets(total: int) -> list[int]:
    return [int(total * s) for s in SHARES] + list(ABSOLUTE)


@pytest.mark.parametrize("name", NAMES)
def test_budget_kept_and_must_keep_items_named(sessions, name):
    t, total, markers = sessions[name]
    for n in _budgets(total):
        r = compact(t, target_tokens=n)
        assert tokens.count(r.markdown) <= n, (name, n)
        if n < NAMED_FLOOR:
            continue  # below this even one short line per item cannot fit: the budget still wins
        for m in markers:
            assert m.token in r.markdown, (name, n, m.token)
        for rec in r.error_memory:
            assert rec.id in r.markdown, (name, n, rec.id)
        for todo in r.summary.next_steps:
            if todo.text.startswith("["):  # a todo list item (stated plans are optional)
                assert one_line(todo.text, 20)[:12] in r.markdown, (name, n, todo.text)


@pytest.mark.parametrize("name", NAMES)
def test_budget_spent_by_value(sessions, name):
    """At 5, 10 and 20% of the session, the document fills 90-100% of its target."""
    t, total, _ = sessions[name]
    for share in (0.05, 0.10, 0.20):
        n = int(total * share)
        used = tokens.count(compact(t, target_tokens=n).markdown) / n
        assert 0.90 <= used <= 1.0, (name, share, round(used, 3))


def test_all_user_messages_whole_when_room(sessions):
    """Every later request of an interactive session comes back whole (not cut at 160 characters)
    once the required facts fit. A pasted file of several thousand characters is the exception: its
    change record ("What changed") carries what the paste did, and the request keeps its head."""
    t, total, _ = sessions["aider-afi-core-ts.md"]
    md = compact(t, target_tokens=total // 2).markdown  # room once change records and findings are in
    long_requests = [m.text.strip() for m in t.messages
                     if m.role.value == "user" and 200 < len(m.text.strip()) <= 2000]
    assert long_requests
    for text in long_requests[1:]:
        assert " ".join(text.split())[-60:] in " ".join(md.split())


def test_short_session_with_huge_pastes_keeps_rounds_within_budget(tmp_path):
    paste = "\n".join(f"line {i}: " + "data " * 20 for i in range(2000))
    msgs = [{"role": "user", "content": "fix the parser bug in src/parse.py\n" + paste},
            {"role": "assistant", "content": "Looking at it. " + paste},
            {"role": "user", "content": "@todo add a regression test\nnow also check the tokenizer"},
            {"role": "assistant", "content": "Done."}]
    p = tmp_path / "short.json"
    p.write_text(json.dumps(msgs))
    t = load_transcript(p)
    r = compact(t, target_tokens=1500)
    assert r.compacted
    assert tokens.count(r.markdown) <= 1500
    assert "elided" in r.markdown  # the oversized pastes are cut, with a note
    assert "@todo add a regression test" in r.markdown
    assert "fix the parser bug" in r.markdown


def test_tiny_budget_shrinks_must_keep_items_to_one_line_with_pointer(tmp_path):
    msgs = [{"role": "user", "content": "Refactor the billing module. " + "Context. " * 300}]
    for i in range(12):
        msgs += [{"role": "assistant", "content": f"@important invariant-{i} the ledger must balance after each step {i}"
                                                 + " detail" * 40},
                 {"role": "user", "content": "continue"}]
    p = tmp_path / "markers.json"
    p.write_text(json.dumps(msgs))
    r = compact(load_transcript(p), target_tokens=300)
    assert tokens.count(r.markdown) <= 300
    for i in range(12):
        assert f"invariant-{i}" in r.markdown
    assert "markers.json" in r.markdown  # the pointer to the full text


@pytest.mark.parametrize("kwargs", [{"role": "pm"}, {"role": "tester"}, {"lang": "zh"},
                                    {"instructions": "keep the test results, ignore styling"}])
def test_budget_kept_for_every_preset(sessions, kwargs):
    for name in ("aider-afi-core-ts.md", "mini-django-13297.traj.json", "oh-ponyc-4593.json"):
        t, total, _ = sessions[name]
        for n in (200, 500, total // 20, total // 10):
            assert tokens.count(compact(t, target_tokens=n, **kwargs).markdown) <= n, (name, n, kwargs)


def _session(rounds: int, paste: int, markers: int, seed: int) -> list[dict]:
    msgs: list[dict] = [{"role": "user", "content": f"task {seed}: repair the exporter in src/export_{seed}.py"}]
    for i in range(rounds):
        text = f"step {i}: " + "word " * ((seed * 7 + i * 13) % paste + 1)
        if i < markers:
            text += f"\n@important MARK-{seed}-{i} keep this"
        msgs.append({"role": "assistant", "content": text})
        msgs.append({"role": "user", "content": "go on " + "x " * ((seed + i) % paste)})
    return msgs


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rounds=st.integers(1, 30), paste=st.sampled_from([5, 200, 3000]), markers=st.integers(0, 4),
       seed=st.integers(0, 10**6), budget=st.integers(40, 6000))
def test_any_session_any_budget(tmp_path_factory, rounds, paste, markers, seed, budget):
    p = tmp_path_factory.mktemp("s") / "s.json"
    p.write_text(json.dumps(_session(rounds, paste, markers, seed)))
    r = compact(load_transcript(p), target_tokens=budget)
    assert tokens.count(r.markdown) <= budget
    if budget >= 300:
        for i in range(min(markers, rounds)):
            assert f"MARK-{seed}-{i}" in r.markdown


def test_spare_budget_buys_the_latest_failing_output(tmp_path):
    """Issue 14 item 5: the latest failing output is among what spare budget buys, even when the
    verbatim tail has moved past it; a tight budget does not pay for it."""
    from compaction.model import Message, Role, ToolCall, ToolResult, Transcript, group_rounds

    msgs = [Message(0, Role.USER, "make the exporter pass its tests")]
    for i in range(1, 16):
        failing = i == 3
        # the failing test is never run again (a test that passed later no longer stands as what went wrong)
        command = "pytest -q tests/test_export.py" if failing else f"python tools/report.py --part {i}"
        call = ToolCall("Bash", {"command": command}, id=f"c{i}", kind="shell", command=command)
        out = ("tests/test_export.py::test_dates FAILED\nE   AssertionError: dates differ by one hour (DST)\n"
               "1 failed, 3 passed") if failing else "narrative " * 400
        msgs.append(Message(2 * i - 1, Role.ASSISTANT, f"step {i} " + "thinking " * 150, tool_calls=[call]))
        msgs.append(Message(2 * i, Role.TOOL, "", tool_results=[ToolResult(out, call_id=f"c{i}",
                                                                          exit_code=1 if failing else 0)]))
    t = Transcript(path="s.json", format="test", messages=msgs)
    t.rounds = group_rounds(msgs)
    total = tokens.count_messages(t.messages)
    roomy = compact(t, target_tokens=total // 3).markdown
    assert "Latest failing output" in roomy and "dates differ by one hour (DST)" in roomy
    # (at 280 the header's note of what a round is leaves the last words no room, and the room they leave buys it)
    tight = compact(t, target_tokens=250)
    assert tokens.count(tight.markdown) <= 250 and "Latest failing output" not in tight.markdown
    # the header promises the last rounds verbatim only when some are shown
    assert "## Recent rounds" in roomy and "verbatim at the end." in roomy
    # and it names the rounds the tail shows, as the tail's own heading does
    import re
    promised = re.search(r"the most recent rounds \((r\d+(?:-r\d+)?)\) verbatim", roomy).group(1)
    assert f"## Recent rounds (verbatim) ({promised})\n" in roomy
    assert "## Recent rounds" not in tight.markdown and "15 rounds" in tight.markdown
    assert ": facts from every round below.\n" in tight.markdown


def test_the_tasks_pointer_to_the_project_rules_is_dropped_when_they_are_not_shown(sessions):
    """oh-ponyc, fastjson2: "[…harness instructions elided; binding rules under Project rules…]" with no such
    section in the document: a pointer to nothing."""
    elided_without_rules = 0
    for name in ("aider-afi-core-ts.md", "mini-django-13297.traj.json", "oh-ponyc-4593.json"):
        t, total, _ = sessions[name]
        for n in (total // 20, total // 10):
            doc = compact(t, target_tokens=n).markdown
            if "binding rules under Project rules" in doc:
                assert "## Project rules" in doc, (name, n)
            elif "harness instructions" in doc and "## Project rules" not in doc:
                elided_without_rules += 1
    assert elided_without_rules  # ponyc's task elides its harness text, and no rules section is shown
