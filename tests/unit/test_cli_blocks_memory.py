"""`compaction blocks compress` and `compaction memory add|retrieve` through the CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

from compaction.blocks import blocks_from_transcript
from compaction.cli import main
from compaction.transcripts import load_transcript


def test_blocks_compress_json(tmp_path: Path, shared_transcripts: Path, capsys):
    blocks = [b.to_dict() for b in blocks_from_transcript(load_transcript(shared_transcripts / "oh-ponyc-4593.json"))]
    f = tmp_path / "blocks.json"
    f.write_text(json.dumps({"blocks": blocks, "target_tokens": 2000}))
    assert main(["blocks", "compress", str(f), "--strategy", "freshness_based", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["strategy"] == "freshness_based" and out["target_tokens"] == 2000 and out["tokens_after"] <= 2000
    assert len(out["outcomes"]) == len(blocks)
    f.write_text(json.dumps(blocks))  # a bare list works too; flags give the target
    assert main(["blocks", "compress", str(f), "--ratio", "0.1", "--weights", "1,0,0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["strategy"] == "composite" and out["tokens_after"] <= out["target_tokens"]


def test_blocks_compress_bad_input_exits_1(tmp_path: Path, capsys):
    f = tmp_path / "bad.json"
    f.write_text('[{"source": "nowhere", "priority": "HIGH", "content": "x"}]')
    assert main(["blocks", "compress", str(f)]) == 1
    assert "block 0" in capsys.readouterr().err
    f.write_text("{not json")
    assert main(["blocks", "compress", str(f)]) == 1


def test_memory_add_and_retrieve(tmp_path: Path, capsys):
    ws = str(tmp_path)
    assert main(["memory", "add", "ValueError in pydicom/pixel_data_handlers/numpy_handler.py: wrong dtype.",
                 "--meta", "source=test", "--workspace", ws, "--json"]) == 0
    added = json.loads(capsys.readouterr().out)
    assert added["duplicate"] is False and added["facts_added"] >= 1
    assert main(["memory", "retrieve", "numpy_handler dtype", "--token-budget", "120", "--workspace", ws,
                 "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["tokens"] <= 120 and "numpy_handler.py" in got["text"]
    assert main(["memory", "add", "x", "--meta", "novalue", "--workspace", ws]) == 2
