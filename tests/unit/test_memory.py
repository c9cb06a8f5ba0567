"""Compressed memory (seed 000): facts, gists, temporal/adaptive compression, combined retrieval."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compaction import tokens as tok
from compaction.config import ConfigError, load_settings
from compaction.memory import (
    DAY,
    CompressedMemory,
    effective_level,
    extract_facts,
    extract_gists,
    level_by_access,
    level_by_age,
    load_memory_config,
    open_memory,
)
from compaction.memory_config import MCPConfig
from compaction.transcripts import load_transcript


class Clock:
    def __init__(self, t: float = 1_700_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def test_config_defaults_are_the_seeds():
    c = MCPConfig()
    assert c.summarization.compression_ratios == [0.5, 0.4, 0.25] and c.summarization.levels == 3
    assert c.key_value.max_facts == 1000 and c.key_value.k == 10
    assert c.gist_tokens.tokens_per_gist == 10 and c.gist_tokens.max_gists == 100 and c.gist_tokens.k == 5
    assert [(b.days, b.compression_level) for b in c.temporal_compression.age_buckets] == [
        (1, "none"), (7, "low"), (30, "medium"), (999999, "high")]
    a = c.token_budget.allocation
    assert (c.token_budget.max_compressed_tokens, a.temporal, a.key_value, a.gist) == (2048, 0.5, 0.3, 0.2)


def test_seed_json_shape_loads_and_errors_name_the_key(tmp_path: Path):
    cfg = tmp_path / ".compaction" / "config.json"
    cfg.parent.mkdir()
    seed = {"mcp": {"type": "compressed",
                    "summarization": {"method": "hierarchical", "levels": 3, "compressionRatios": [0.5, 0.4, 0.25]},
                    "keyValue": {"enabled": True, "maxFacts": 50},
                    "gistTokens": {"enabled": True, "tokensPerGist": 10, "maxGists": 7},
                    "temporalCompression": {"enabled": True, "ageBuckets": [
                        {"days": 1, "compressionLevel": "none"}, {"days": 7, "compressionLevel": "low"},
                        {"days": 30, "compressionLevel": "medium"}, {"days": 999999, "compressionLevel": "high"}]},
                    "tokenBudget": {"maxCompressedTokens": 2048,
                                    "allocation": {"temporal": 0.5, "keyValue": 0.3, "gist": 0.2}}}}
    cfg.write_text(json.dumps(seed))
    c = load_memory_config(tmp_path)
    assert c.key_value.max_facts == 50 and c.gist_tokens.max_gists == 7
    assert load_settings(tmp_path).mcp.key_value.max_facts == 50  # the same model inside Settings
    for bad, needle in [({"keyValue": {"maxFact": 3}}, "keyValue.maxFact"),
                        ({"tokenBudget": {"allocation": {"temporal": 0.9, "keyValue": 0.3, "gist": 0.2}}}, "sum to 1"),
                        ({"temporalCompression": {"ageBuckets": [{"days": 7, "compressionLevel": "low"},
                                                                 {"days": 1, "compressionLevel": "none"}]}},
                         "increasing"),
                        ({"summarization": {"compressionRatios": [0.5, 1.5, 0.2]}}, "(0, 1]")]:
        cfg.write_text(json.dumps({"mcp": bad}))
        with pytest.raises(ConfigError) as exc:
            load_memory_config(tmp_path)
        assert str(cfg) in str(exc.value) and needle in str(exc.value)


def test_levels_by_age_access_and_their_combination():
    c = MCPConfig()
    assert [level_by_age(d, c) for d in (0.5, 3, 10, 40)] == ["none", "low", "medium", "high"]
    assert [level_by_access(n, c) for n in (0, 3, 4, 10, 11)] == ["high", "high", "medium", "medium", "low"]
    assert effective_level(40, 11, c) == "low"  # old but much used: stays rich
    assert effective_level(0.1, 0, c) == "none"
    assert effective_level(40, 0, c) == "high"


def test_fact_extraction_consistent_keys():
    text = ("Traceback (most recent call last):\n  File \"/testbed/app/models.py\", line 3\nKeyError: 'name'\n"
            "```bash\npytest tests/test_models.py -q\n```\nPython version: 3.11\n@decision: keep the dict API\n")
    facts = dict(extract_facts(text))
    assert facts["error:KeyError"] == "KeyError: 'name'"
    assert "file:testbed/app/models.py" in facts and "file:tests/test_models.py" in facts
    assert facts["command:pytest"] == "pytest tests/test_models.py -q"
    assert facts["python_version"] == "3.11"
    assert facts["marker:decision"] == "@decision: keep the dict API"


def test_gists_are_10_phrases_of_2_to_5_words(shared_transcripts):
    t = load_transcript(shared_transcripts / "mini-requests-5414.traj.json")
    for rnd in t.rounds[:15]:
        text = "\n".join(m.full_text() for m in rnd.messages)
        phrases = extract_gists(text)
        assert 0 < len(phrases) <= 10
        assert all(2 <= len(p.split()) <= 5 for p in phrases), phrases
        assert len(set(phrases)) == len(phrases)


def test_facts_deduplicated_with_provenance_and_limits(tmp_path: Path):
    cfg = MCPConfig.model_validate({"keyValue": {"maxFacts": 5}, "gistTokens": {"maxGists": 3}})
    mem = CompressedMemory(tmp_path, config=cfg, clock=Clock())
    r1 = mem.add("KeyError: 'user' raised in src/app/views.py", {"source": "a"})
    r2 = mem.add("Seen again later.\nKeyError: 'user' raised in src/app/views.py", {"source": "b"})
    assert r1.facts_added >= 2 and r2.facts_merged >= 1
    rows = mem.conn.execute("SELECT sources FROM memory_facts WHERE key='error:KeyError'").fetchall()
    assert len(rows) == 1 and {s["source"] for s in json.loads(rows[0][0])} == {"a", "b"}
    dup = mem.add("KeyError: 'user' raised in src/app/views.py")
    assert dup.duplicate and dup.item_id == r1.item_id
    for i in range(10):
        mem.add(f"Step {i}: edited src/mod{i}/file{i}.py after ValueError{i}Error in test_{i}")
    st = mem.stats()
    assert st["facts"] <= 5 and st["gists"] <= 3 and st["items"] == 12


def test_retrieval_k_and_persistence(tmp_path: Path):
    mem = CompressedMemory(tmp_path, clock=Clock())
    for i in range(30):
        mem.add(f"Fixed TypeError number {i} in src/pkg/module_{i}.py by casting the id.")
    assert len(mem.retrieve_facts("TypeError module")) == 10
    assert len(mem.retrieve_gists("casting id")) == 5
    again = open_memory(tmp_path)  # a new process sees the same store
    assert again.stats()["items"] == 30
    assert any("module_7.py" in f.value or "module_7.py" in f.key for f in again.retrieve_facts("module_7.py"))


def test_temporal_compression_by_age_with_an_injected_clock(tmp_path: Path, shared_transcripts):
    clock = Clock()
    mem = CompressedMemory(tmp_path, clock=clock)
    t = load_transcript(shared_transcripts / "mini-django-13297.traj.json")
    text = "\n".join(m.full_text() for m in t.rounds[3].messages)
    ids = {}
    for age in (0.5, 3, 10, 40):
        r = mem.add(f"[age {age}]\n" + text, timestamp=clock.t - age * DAY)
        ids[age] = r.item_id
    counts = mem.compress_by_age()
    assert counts == {"none": 1, "low": 1, "medium": 1, "high": 1}
    n = {age: mem.conn.execute("SELECT compressed_tokens, tokens, compressed_level FROM memory_items WHERE id=?",
                               (i,)).fetchone() for age, i in ids.items()}
    assert n[3][2] == "low" and n[3][0] <= 0.7 * n[3][1]
    assert n[10][2] == "medium" and n[10][0] <= 0.4 * n[10][1]
    assert n[40][2] == "high" and n[40][0] <= 0.2 * n[40][1]
    clock.t += 40 * DAY  # everything ages: the fresh item is now highly compressed
    assert mem.compress_by_age() == {"high": 4}


@pytest.fixture(scope="module")
def filled(tmp_path_factory, shared_transcripts):
    """One memory holding every round of six real transcripts, with provenance."""
    ws = tmp_path_factory.mktemp("mem")
    mem = CompressedMemory(ws, clock=Clock())
    names = ["mini-django-13297.traj.json", "mini-requests-5414.traj.json", "mini-astropy-13398.traj.json",
             "sweagent-pydicom-1458.traj", "oh-ponyc-4593.json", "mini-matplotlib-25311.traj.json"]
    for name in names:
        t = load_transcript(shared_transcripts / name)
        for rnd in t.rounds:
            text = "\n".join(m.full_text() for m in rnd.messages)
            if text.strip():
                mem.add(text, {"transcript": name, "round": rnd.number})
    gt = {json.loads(x)["file"]: json.loads(x) for x in (shared_transcripts / "GROUND_TRUTH.jsonl").read_text().splitlines()}
    return mem, names, gt


def _queries(names, gt):
    """(kind, query, transcript, needle) triples from the ground truth and the transcripts."""
    out = []
    for name in names:
        row = gt[name]
        for f in row["modified_files_from_final_patch"][:2]:
            out.append(("file", Path(f).name, name, Path(f).name))
        words = [w for w in row["task_excerpt"].replace("Consider the following PR description:", "").split()
                 if len(w) > 3][:6]
        if name.startswith("sweagent-"):
            continue  # its excerpt comes from the demonstration stored beside the trajectory, not the transcript
        out.append(("task", " ".join(words), name, None))
    for err, name in [("ERR_PY_InterfaceError", "mini-django-13297.traj.json"),
                      ("ERR_PY_AssertionError", "mini-astropy-13398.traj.json"),
                      ("ERR_PY_LocationParseError", "mini-requests-5414.traj.json"),
                      ("ERR_PY_ValueError", "sweagent-pydicom-1458.traj")]:
        out.append(("error", err, name, err.split("_", 2)[2]))
    return out


def test_retrieval_recall_at_k_on_real_transcripts(filled):
    """A query hits when one of the top-k items comes from the right transcript and holds the needle."""
    mem, names, gt = filled
    recall: dict[int, dict[str, float]] = {}
    for k in (1, 5):
        hits: dict[str, list[int]] = {}
        for kind, query, name, needle in _queries(names, gt):
            items = mem.retrieve_temporal(query, 10**9)[:k]
            ok = any(i.metadata["transcript"] == name and (needle is None or needle in mem.conn.execute(
                "SELECT text FROM memory_items WHERE id=?", (i.id,)).fetchone()[0]) for i in items)
            hits.setdefault(kind, []).append(int(ok))
        recall[k] = {kind: sum(v) / len(v) for kind, v in hits.items()}
        print(f"recall@{k}: " + ", ".join(f"{kind} {r:.2f} ({sum(hits[kind])}/{len(hits[kind])})"
                                         for kind, r in recall[k].items()))
    assert recall[5]["file"] >= 0.9 and recall[5]["error"] >= 0.75 and recall[5]["task"] >= 0.8
    assert recall[1]["file"] >= 0.75


@pytest.mark.parametrize("budget", [256, 1024, 2048, 6000])
def test_combined_retrieval_never_exceeds_budget_and_fills_it(filled, budget):
    mem, names, gt = filled
    for kind, query, _name, _ in _queries(names, gt)[:8]:
        ctx = mem.retrieve(query, budget)
        assert ctx.tokens == tok.count(ctx.text) <= budget, (kind, query)
        assert ctx.fill >= 0.8, (kind, query, ctx.tokens)
        assert ctx.allocation == {"temporal": budget - int(budget * 0.3) - int(budget * 0.2),
                                  "facts": int(budget * 0.3), "gists": int(budget * 0.2)}
        assert len(ctx.facts) <= 10 and len(ctx.gists) <= 5
        assert tok.count("## Facts\n" + "\n".join(f.render() for f in ctx.facts)) <= ctx.allocation["facts"]


def test_retrieval_counts_accesses_for_adaptive_compression(tmp_path: Path):
    mem = CompressedMemory(tmp_path, clock=Clock())
    r = mem.add("The build failed with LinkerError in native/ext.c; fixed by adding -lm.")
    for _ in range(4):
        mem.retrieve("LinkerError", 500)
    count = mem.conn.execute("SELECT access_count FROM memory_items WHERE id=?", (r.item_id,)).fetchone()[0]
    assert count == 4
    assert effective_level(40, count, mem.config) == "medium"


def test_empty_text_is_rejected(tmp_path: Path):
    with pytest.raises(ValueError):
        CompressedMemory(tmp_path).add("   ")


def test_compressed_texts_still_retrieve_for_the_same_queries(filled):
    mem, names, gt = filled
    queries = [q for _, q, _, _ in _queries(names, gt)][:8]
    agreement = {level: sum(mem.retrieval_agreement(q, 5, level) for q in queries) / len(queries)
                 for level in ("low", "medium")}
    print("top-5 agreement compressed vs original: " + ", ".join(f"{k} {v:.2f}" for k, v in agreement.items()))
    assert agreement["low"] >= 0.6 and agreement["medium"] >= 0.4
    assert agreement["low"] >= agreement["medium"] - 0.1
