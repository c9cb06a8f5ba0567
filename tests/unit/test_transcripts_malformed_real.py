"""Malformed input for the mini-swe-agent, SWE-agent, OpenHands, Aider and Markdown loaders:
truncated JSON, invalid UTF-8, wrong shape, empty files -> TranscriptError naming file and line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from compaction.model import TranscriptError
from compaction.transcripts import aider, load_transcript, markdown, mini_swe_agent, openhands, swe_agent

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("COMPACTION_SHARED") or REPO.parent / "shared") / "transcripts"
DATA = REPO / "tests" / "data" / "transcripts_real"
JSON_REAL = {
    "mini-requests-5414.traj.json": mini_swe_agent,
    "sweagent-pydicom-1458.traj": swe_agent,
    "oh-ponyc-4593.json": openhands,
}


@pytest.mark.parametrize("name", sorted(JSON_REAL))
def test_truncated_real_file(name, tmp_path):
    data = (SHARED / name).read_bytes()
    cut = tmp_path / name
    cut.write_bytes(data[: len(data) // 2])
    for load in (load_transcript, JSON_REAL[name].load):
        with pytest.raises(TranscriptError) as err:
            load(str(cut))
        assert err.value.path == str(cut) and err.value.line is not None
        assert str(cut) in str(err.value) and "invalid JSON" in str(err.value)


@pytest.mark.parametrize("name", sorted(JSON_REAL))
def test_invalid_utf8_in_real_file(name, tmp_path):
    data = (SHARED / name).read_bytes()
    # Pretty-print so the bad byte sits on a known line far from the start.
    pretty = json.dumps(json.loads(data), indent=1).encode()
    pos = pretty.index(b'"', len(pretty) // 2) + 1
    bad = tmp_path / name
    bad.write_bytes(pretty[:pos] + b"\xff\xfe" + pretty[pos:])
    with pytest.raises(TranscriptError) as err:
        JSON_REAL[name].load(str(bad))
    assert "UTF-8" in err.value.reason
    assert err.value.line == pretty.count(b"\n", 0, pos) + 1


@pytest.mark.parametrize("fixture,module", [
    ("mini_wrong_shape.traj.json", mini_swe_agent),
    ("swe_wrong_shape.traj", swe_agent),
    ("openhands_wrong_shape.json", openhands),
])
def test_wrong_shape(fixture, module):
    path = DATA / fixture
    with pytest.raises(TranscriptError) as err:
        load_transcript(path)
    assert err.value.path == str(path) and "unexpected shape" in err.value.reason
    with pytest.raises(TranscriptError):
        module.load(str(path))


def test_wrong_shape_is_still_detected():
    """Detection looks at content; the loader then reports the shape problem (not 'unrecognised')."""
    from compaction.transcripts import detect

    assert detect(DATA / "mini_wrong_shape.traj.json") is mini_swe_agent
    assert detect(DATA / "swe_wrong_shape.traj") is swe_agent
    assert detect(DATA / "openhands_wrong_shape.json") is openhands


@pytest.mark.parametrize("fixture,module,line", [
    ("aider_bad_utf8.md", aider, 6),
    ("markdown_bad_utf8.md", markdown, 7),
])
def test_text_formats_bad_utf8(fixture, module, line):
    path = DATA / fixture
    for load in (load_transcript, module.load):
        with pytest.raises(TranscriptError) as err:
            load(str(path))
        assert err.value.path == str(path) and err.value.line == line and "UTF-8" in err.value.reason


@pytest.mark.parametrize("module", [mini_swe_agent, swe_agent, openhands, aider, markdown])
def test_empty_file(module, tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n")
    with pytest.raises(TranscriptError) as err:
        module.load(str(empty))
    assert err.value.path == str(empty)


def test_wrong_shapes_inline(tmp_path):
    cases = {
        mini_swe_agent: [{"messages": 5}, [1, 2], {"messages": [1]}],
        swe_agent: [{"trajectory": 5}, {"trajectory": [], "history": {}}, {"trajectory": ["x"]}],
        openhands: [{"instruction": "x", "history": 5}, [1, 2], "text", {"instruction": "x", "history": [5]}],
    }
    for module, shapes in cases.items():
        for i, shape in enumerate(shapes):
            path = tmp_path / f"{module.NAME}-{i}.json"
            path.write_text(json.dumps(shape))
            with pytest.raises(TranscriptError) as err:
                module.load(str(path))
            assert "unexpected shape" in err.value.reason, (module.NAME, shape)


def test_markdown_without_headings(tmp_path):
    path = tmp_path / "notes.md"
    path.write_text("# Notes\n\nJust prose, no conversation.\n")
    with pytest.raises(TranscriptError) as err:
        markdown.load(str(path))
    assert "heading" in err.value.reason


def test_unknown_records_are_skipped_not_fatal(tmp_path):
    mini = json.loads((SHARED / "mini-requests-5414.traj.json").read_text())
    mini["messages"].insert(3, {"role": "narrator", "content": "??"})
    path = tmp_path / "mini.traj.json"
    path.write_text(json.dumps(mini))
    t = load_transcript(path)
    assert t.skipped_kinds == {"role:narrator": 1}
    assert len(t.messages) == len(mini["messages"]) - 1
