"""Context-block strategies on blocks built from the real transcripts (seed 003 §10, DESIGN.md §4)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compaction.blocks import (
    MIN_TRIM_TOKENS,
    CompositeWeights,
    ContextBlock,
    ContextCompressor,
    ContextPriority,
    ContextSource,
    Strategy,
    block_time,
    blocks_from_transcript,
    causal_chain_weight,
    prepare_context,
)
from compaction.lexical import tokenize
from compaction.summarize import split_units
from compaction.transcripts import load_transcript

NAMES = ["mini-django-13297.traj.json", "oh-mapstruct-3492.json", "aider-afi-core-ts.md", "sweagent-pydicom-1458.traj"]


@cache
def _blocks(path: str) -> tuple[ContextBlock, ...]:
    return tuple(blocks_from_transcript(load_transcript(path)))


def blocks_of(shared: Path, name: str) -> list[ContextBlock]:
    return list(_blocks(str(shared / name)))


def ground_truth(shared: Path) -> dict[str, dict]:
    rows = [json.loads(line) for line in (shared / "GROUND_TRUTH.jsonl").read_text().splitlines() if line.strip()]
    return {r["file"]: r for r in rows}


@pytest.mark.parametrize("name", NAMES)
def test_blocks_from_transcript_cover_every_source_kind(shared_transcripts, name):
    blocks = blocks_of(shared_transcripts, name)
    sources = {b.source for b in blocks}
    assert ContextSource.TASK in sources and ContextSource.HISTORY in sources and ContextSource.TOOL_RESULT in sources
    assert sum(1 for b in blocks if b.source is ContextSource.TASK) == 1
    assert all(b.token_count and b.token_count > 0 for b in blocks)
    assert all(isinstance(b.metadata.get("round"), int) for b in blocks)


@pytest.mark.parametrize("name", NAMES)
def test_priority_based_orders_by_priority_then_recency(shared_transcripts, name):
    blocks = blocks_of(shared_transcripts, name)
    res = ContextCompressor().compress(blocks, 0.3, strategy=Strategy.PRIORITY_BASED)
    prios = [int(blocks[i].priority) for i in res.order()]
    assert prios == sorted(prios, reverse=True)
    assert prios[0] == ContextPriority.CRITICAL
    assert all(o.action != "dropped" for o in res.outcomes if blocks[o.index].priority == ContextPriority.CRITICAL)
    # a lower-priority block outlives a higher-priority dropped one only by being small enough for the
    # crumbs left (below MIN_TRIM_TOKENS, the dropped block could not even be trimmed into them)
    top_dropped = max((int(blocks[o.index].priority) for o in res.dropped), default=0)
    for o in res.outcomes:
        if o.action != "dropped" and int(blocks[o.index].priority) < top_dropped:
            assert o.tokens_after < MIN_TRIM_TOKENS


def test_relevance_based_puts_blocks_about_the_modified_file_first(shared_transcripts):
    gt = ground_truth(shared_transcripts)
    for name in ["mini-django-13297.traj.json", "oh-mapstruct-3492.json", "sweagent-pydicom-1458.traj"]:
        blocks = blocks_of(shared_transcripts, name)
        target = gt[name]["modified_files_from_final_patch"][0]
        query = Path(target).name
        res = ContextCompressor().compress(blocks, 0.2, strategy=Strategy.RELEVANCE_BASED, query=query)
        top = [blocks[i] for i in res.order()[:5]]
        assert all(query.lower() in tokenize(b.content) for b in top), name
        scores = [o.score for o in sorted(res.outcomes, key=lambda o: -o.score)]
        assert scores[0] == pytest.approx(100.0) and scores == sorted(scores, reverse=True)
        kept = [blocks[o.index] for o in res.outcomes if o.action != "dropped"]
        assert sum(query.lower() in tokenize(b.content) for b in kept) >= len(kept) // 2


def test_relevance_defaults_to_the_task_as_query(shared_transcripts):
    blocks = blocks_of(shared_transcripts, "mini-django-13297.traj.json")
    scores = ContextCompressor().relevance(blocks, None)
    task_index = next(i for i, b in enumerate(blocks) if b.source is ContextSource.TASK)
    assert scores[task_index] == max(scores) == pytest.approx(100.0)


@pytest.mark.parametrize("name", ["oh-mapstruct-3492.json", "mini-django-13297.traj.json"])
def test_freshness_based_orders_newest_first(shared_transcripts, name):
    blocks = blocks_of(shared_transcripts, name)
    res = ContextCompressor().compress(blocks, 0.3, strategy=Strategy.FRESHNESS_BASED)
    times = [block_time(blocks[i], i) for i in res.order()]
    assert times == sorted(times, reverse=True)
    if name.startswith("oh-"):
        assert all(k == 1 for k, _ in times)  # real timestamps were used
    kept_rounds = [blocks[o.index].metadata["round"] for o in res.outcomes if o.action != "dropped"]
    dropped_rounds = [blocks[o.index].metadata["round"] for o in res.outcomes if o.action == "dropped"]
    assert res.outcomes[res.order()[0]].action != "dropped"  # the newest block survives
    assert sum(kept_rounds) / len(kept_rounds) > sum(dropped_rounds) / len(dropped_rounds) + 5


def test_composite_weights_reduce_to_each_single_strategy(shared_transcripts):
    blocks = blocks_of(shared_transcripts, "oh-mapstruct-3492.json")
    q = "DefaultBuilderProvider"
    single = {
        (1, 0, 0): Strategy.PRIORITY_BASED,
        (0, 1, 0): Strategy.RELEVANCE_BASED,
        (0, 0, 1): Strategy.FRESHNESS_BASED,
    }
    for w, strategy in single.items():
        comp = ContextCompressor(CompositeWeights(*w))
        s_comp, _ = comp.scores(blocks, Strategy.COMPOSITE, q)
        s_one, _ = comp.scores(blocks, strategy, q)
        assert s_comp == pytest.approx(s_one)
    mixed, _ = ContextCompressor().scores(blocks, Strategy.COMPOSITE, q)
    p, _ = ContextCompressor().scores(blocks, Strategy.PRIORITY_BASED, q)
    r, _ = ContextCompressor().scores(blocks, Strategy.RELEVANCE_BASED, q)
    f, _ = ContextCompressor().scores(blocks, Strategy.FRESHNESS_BASED, q)
    assert mixed == pytest.approx([0.4 * a + 0.4 * b + 0.2 * c for a, b, c in zip(p, r, f, strict=True)])


@pytest.mark.parametrize(
    ("chain", "weight"),
    [(None, 0), ([], 30), ([{"cause": "a", "effect": "b"}], 35), ([{"cause": "a", "effect": "b"}] * 10, 80),
     ([{"cause": "a", "effect": "b"}] * 25, 80), ([{"cause": "a"}] * 3, 30), ("not a list", 0)],
)
def test_causal_chain_weight_bounds(chain, weight):
    meta = {} if chain is None else {"causal_chain": chain}
    assert causal_chain_weight(meta) == weight


def test_rule_based_applies_chain_markers_and_error_memory(shared_transcripts):
    blocks = blocks_of(shared_transcripts, "mini-django-13297.traj.json")
    low = [b for b in blocks if b.priority == ContextPriority.LOW][:3]
    base = ContextBlock(ContextSource.INSIGHT, ContextPriority.LOW, low[0].content)
    chained = ContextBlock(ContextSource.INSIGHT, ContextPriority.LOW, low[0].content,
                           metadata={"causal_chain": [{"cause": "user request", "effect": "reply"}] * 12})
    marked = ContextBlock(ContextSource.HISTORY, ContextPriority.LOW, "@decision: keep SQLite quoting as is.")
    memory = ContextBlock(ContextSource.ERROR_MEMORY, ContextPriority.MEDIUM, "## Error Memory\n- ERR_PY_InterfaceError")
    comp = ContextCompressor()
    scores, pinned = comp.scores([base, chained, marked, memory], Strategy.RULE_BASED)
    assert scores[1] - scores[0] == 80
    assert scores[2] == 25 + 40 and pinned[2]
    assert scores[3] == 50 + 30 and pinned[3]
    # under a tight budget the pinned marker and error memory survive, the big chained block does not fit
    others = [b for b in blocks if b.priority < ContextPriority.CRITICAL][:20]
    res = comp.compress([base, chained, marked, memory] + others,
                        target_tokens=marked.token_count + memory.token_count + 5, strategy=Strategy.RULE_BASED)
    kept_contents = [b.content for b in res.blocks]
    assert marked.content in kept_contents and memory.content in kept_contents
    # real error results carry a causal chain (command -> error line) and outrank plain output
    err = [b for b in blocks if b.metadata.get("error_record")]
    plain = [b for b in blocks if b.source is ContextSource.TOOL_RESULT and not b.metadata.get("error_record")]
    assert err and plain
    s_err, _ = comp.scores(err, Strategy.RULE_BASED)
    s_plain, _ = comp.scores(plain, Strategy.RULE_BASED)
    assert min(s_err) >= 50 + 35 + 30 and min(s_err) > max(s_plain)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("strategy", list(Strategy))
@pytest.mark.parametrize("ratio", [0.05, 0.3, 0.7])
def test_compress_respects_target_and_never_cuts_mid_sentence(shared_transcripts, name, strategy, ratio):
    blocks = blocks_of(shared_transcripts, name)
    res = ContextCompressor().compress(blocks, ratio, strategy=strategy, query="error")
    assert res.tokens_after <= res.target_tokens == int(res.tokens_before * ratio)
    assert res.tokens_after >= 0.8 * res.target_tokens  # blocks that do not fit get trimmed, so the room is used
    assert len(res.outcomes) == len(blocks)
    assert {o.action for o in res.outcomes} <= {"kept", "trimmed", "summarized", "dropped"}
    assert all(o.reason for o in res.dropped)
    by_id = {b.id: b for b in blocks}
    for out in res.blocks:
        orig = by_id[out.id]
        if out.content == orig.content:
            continue
        spans = out.metadata["kept_spans"]
        unit_spans = {(u.start, u.end) for u in split_units(orig.content)}
        assert spans and all(tuple(s) in unit_spans for s in spans)  # whole units only
        for s, e in spans:
            assert orig.content[s:e] in out.content


def test_prepare_context_respects_the_budget_table(shared_transcripts):
    blocks = blocks_of(shared_transcripts, "mini-django-13297.traj.json")
    blocks.append(ContextBlock(ContextSource.ERROR_MEMORY, ContextPriority.HIGH,
                               "## Error Memory\n- ERR_PY_InterfaceError: occurrences 3 (rounds 6, 7, 9)"))
    total = sum(b.token_count for b in blocks)
    for window, expect in [(total, {"tool_results": 10, "history": 60}),  # > 80% used
                           (int(total / 0.65), {"tool_results": 20, "history": 50}),
                           (total * 4, {"output": 15, "error_memory": 10, "history": 45})]:
        ctx = prepare_context(blocks, window=window)
        pct = ctx.shares.percent()
        assert sum(pct.values()) == 100
        for k, v in expect.items():
            assert pct[k] == v, (window, pct)
        for part, used in ctx.used.items():
            assert used <= ctx.budget[part], part
        assert ctx.used["output"] == 0
        assert sum(b.token_count for b in ctx.blocks) == sum(ctx.used.values())
        assert any(b.source is ContextSource.ERROR_MEMORY for b in ctx.blocks)
        assert any(b.source is ContextSource.TASK for b in ctx.blocks)


def test_prepare_context_error_memory_drops_to_5_percent_without_recent_errors(shared_transcripts):
    blocks = [b for b in blocks_of(shared_transcripts, "aider-afi-core-ts.md")]
    total = sum(b.token_count for b in blocks)
    ctx = prepare_context(blocks, window=total * 3)
    assert ctx.shares.error_memory == 5 and ctx.shares.output == 15 and ctx.shares.history == 50
    assert ctx.utilization == pytest.approx(1 / 3, rel=1e-3)
    assert ctx.used["tool_results"] <= ctx.budget["tool_results"]


def test_invalid_ratio_is_rejected():
    b = [ContextBlock(ContextSource.HISTORY, ContextPriority.LOW, "hello world.")]
    with pytest.raises(ValueError):
        ContextCompressor().compress(b, compression_ratio=1.5)


def test_from_dict_accepts_names_and_numbers():
    b = ContextBlock.from_dict({"source": "INSIGHT", "priority": "high", "content": "x y z."})
    assert b.priority == ContextPriority.HIGH and b.source is ContextSource.INSIGHT and b.token_count > 0
    c = ContextBlock.from_dict({"source": "file", "priority": 60, "content": "a"})
    assert int(c.priority) == 60


_WORDS = st.sampled_from(["Error", "in", "src/a.py", "fixed.", "the", "KeyError:", "@todo", "run", "tests.", "\n",
                          "- item", "```", "x = 1;", "Traceback", "42", "ok."])
_BLOCK = st.builds(
    lambda src, prio, words, rnd: ContextBlock(src, prio, " ".join(words) or "empty.", metadata={"round": rnd}),
    st.sampled_from(list(ContextSource)), st.sampled_from(list(ContextPriority)),
    st.lists(_WORDS, min_size=1, max_size=80), st.integers(0, 50))


@settings(max_examples=60, deadline=None)
@given(st.lists(_BLOCK, min_size=1, max_size=12), st.sampled_from(list(Strategy)), st.floats(0, 1))
def test_compress_never_exceeds_target(blocks, strategy, ratio):
    res = ContextCompressor().compress(blocks, ratio, strategy=strategy, query="error src/a.py")
    assert res.tokens_after <= res.target_tokens
    assert sum(b.token_count for b in res.blocks) == res.tokens_after
    assert len(res.outcomes) == len(blocks)
