"""`compaction errors …` through the real argparse tree (compaction.cli.main)."""

from __future__ import annotations

import json

from compaction.cli import main
from tests.conftest import TRANSCRIPTS


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_ingest_list_show_check_json(tmp_path, capsys):
    ws = str(tmp_path)
    code, out, _ = run(capsys, "errors", "ingest", str(TRANSCRIPTS / "mini-pytest-5787.traj.json"), "--workspace", ws,
                       "--json")
    assert code == 0 and json.loads(out)["records"] > 0
    code, out, _ = run(capsys, "errors", "list", "--workspace", ws, "--json")
    records = json.loads(out)["records"]
    assert code == 0 and any(r["id"] == "ERR_PY_TypeError" and r["rounds"] == [41, 55, 60] for r in records)
    code, out, _ = run(capsys, "errors", "list", "--workspace", ws)
    assert out.startswith("## Error Memory") and "#recurring ERR_PY_TypeError (+ERR_LOGIC_TestFailed): occurrences 3 (rounds 41, 55, 60)" in out
    code, out, _ = run(capsys, "errors", "list", "--workspace", ws, "--lang", "zh")
    assert "ERR_PY_TypeError (+ERR_LOGIC_TestFailed): 发生3次 (41,55,60)" in out and "解决:" in out
    code, out, _ = run(capsys, "errors", "show", "ERR_PY_TypeError", "--workspace", ws, "--json")
    shown = json.loads(out)
    assert shown["occurrences"][0]["evidence"] and shown["occurrences"][0]["location"]["path"]
    code, out, _ = run(capsys, "errors", "check", "change _from_json", "--file", "src/_pytest/reports.py",
                       "--workspace", ws, "--json")
    warns = json.loads(out)["warnings"]
    assert code == 0 and 0 < len(warns) <= 3 and all(w["line"].startswith("⚠️ Detected historical error [") for w in warns)
    code, out, _ = run(capsys, "errors", "check", "--file", "src/_pytest/reports.py", "--workspace", ws)
    assert "⚠️ Detected historical error [" in out


def test_add_resolve_ignore_forget_export_import(tmp_path, capsys):
    ws = str(tmp_path / "ws")
    assert run(capsys, "errors", "add", "ERR_LOGIC_OffByOne", "--solution", "use <", "--path", "src/r.py",
               "--workspace", ws)[0] == 0
    code, out, _ = run(capsys, "errors", "resolve", "ERR_LOGIC_OffByOne", "--solution", "range(n)", "--workspace", ws,
                       "--json")
    assert json.loads(out)["solution"] == "range(n)" and json.loads(out)["resolved"]
    code, out, _ = run(capsys, "errors", "ignore", "ERR_LOGIC_OffByOne", "--workspace", ws)
    assert out.strip() == "@decision: ignore_ERR_LOGIC_OffByOne"
    code, out, _ = run(capsys, "errors", "check", "--file", "src/r.py", "--workspace", ws, "--json")
    assert json.loads(out)["warnings"] == []
    target = tmp_path / "CLAUDE.md"
    assert run(capsys, "errors", "export", "-o", str(target), "--workspace", ws)[0] == 0
    exported = target.read_text(encoding="utf-8")
    assert "- ERR_LOGIC_OffByOne: occurrences 1 (rounds 1)" in exported
    ws2 = str(tmp_path / "ws2")
    code, out, _ = run(capsys, "errors", "import", str(target), "--workspace", ws2, "--json")
    assert json.loads(out) == {"imported": ["ERR_LOGIC_OffByOne"]}
    code, out, _ = run(capsys, "errors", "export", "--workspace", ws2)
    assert out == exported.replace("Solution: range", "Solution: (imported from CLAUDE.md) range").replace(
        "Avoidance: re-run", "Avoidance: (imported from CLAUDE.md) re-run")  # advice from elsewhere is marked
    code, _, err = run(capsys, "errors", "forget", "--workspace", ws)
    assert code == 1 and "explicitly" in err
    code, out, _ = run(capsys, "errors", "forget", "--all", "--workspace", ws, "--json")
    assert json.loads(out) == {"forgotten": ["ERR_LOGIC_OffByOne"]}


def test_bad_requests_exit_1(tmp_path, capsys):
    ws = str(tmp_path)
    assert run(capsys, "errors", "show", "ERR_PY_Nope", "--workspace", ws)[0] == 1
    assert run(capsys, "errors", "add", "not-an-id", "--workspace", ws)[0] == 1
    assert run(capsys, "errors", "import", str(tmp_path / "missing.md"), "--workspace", ws)[0] == 1
    assert run(capsys, "errors", "ingest", str(tmp_path / "missing.json"), "--workspace", ws)[0] == 1
