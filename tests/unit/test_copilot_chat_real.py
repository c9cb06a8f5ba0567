"""The Copilot Chat loader on real sessions: the two GitHub Copilot agent-mode sessions in
../shared/transcripts/more-agents were published as SpecStory renderings (MIT, destyler/destyler),
not as VS Code's files. This test rebuilds both chatSessions shapes from them at run time (nothing
is stored): requests from the User sections, Markdown parts from the Agent text, one
`toolInvocationSerialized` per <tool-use> block with the `toolSpecificData` SpecStory kept (terminal
command lines) or the file the summary names — then loads, compares and compacts them."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from compaction.config import Settings
from compaction.history import compact
from compaction.model import ToolKind
from compaction.transcripts import load_transcript
from tests.conftest import TRANSCRIPTS

SESSIONS = sorted((TRANSCRIPTS / "more-agents").glob("specstory-copilot-*.md"))
_HEADER = re.compile(r"^_\*\*(User|Agent)\b.*\*\*_\s*$")
_TOOL = re.compile(r'<tool-use data-tool-type="[^"]*" data-tool-name="([^"]+)">(.*?)</tool-use>', re.S)
_PARAMS = re.compile(r"Parameters:\s*```json\n(.*?)\n```", re.S)
_FILE = re.compile(r"\(file://([^)\s]+)\)")


def _agent_parts(text: str, n: int) -> list[dict]:
    parts, pos = [], 0
    for i, m in enumerate(_TOOL.finditer(text)):
        prose = text[pos:m.start()].replace("\n---\n", "\n").strip()
        if prose:
            parts.append({"value": prose})
        name, body = m.group(1), m.group(2)
        data: dict = {}
        params = _PARAMS.search(body)
        if params:
            try:
                data = json.loads(html.unescape(params.group(1)))
            except ValueError:
                data = {}
        if data.get("kind") != "terminal":
            file = _FILE.search(body)
            data = {"kind": "input", "rawInput": {"filePath": file.group(1)}} if file else {}
        parts.append({"kind": "toolInvocationSerialized", "toolId": name, "toolCallId": f"t{n}-{i}",
                      "isComplete": True, "invocationMessage": name, "toolSpecificData": data or None})
        pos = m.end()
    rest = text[pos:].replace("\n---\n", "\n").strip()
    if rest:
        parts.append({"value": rest})
    return parts


def session_from_specstory(md: str) -> dict:
    requests: list[dict] = []
    sections: list[tuple[str, list[str]]] = []
    for line in md.splitlines():
        m = _HEADER.match(line)
        if m:
            sections.append((m.group(1), []))
        elif sections:
            sections[-1][1].append(line)
    for who, lines in sections:
        text = "\n".join(lines).strip().strip("-").strip()
        if who == "User":
            requests.append({"requestId": f"request_{len(requests)}", "message": {"text": text, "parts": []},
                             "response": [], "result": {"metadata": {}}})
        elif requests:
            requests[-1]["response"] += _agent_parts(text, len(requests))
    return {"version": 3, "responderUsername": "GitHub Copilot", "sessionId": "s", "requests": requests}


def change_log(session: dict) -> str:
    """The same session as VS Code's *.jsonl change log: an empty initial state, then pushes and sets."""
    lines = [{"kind": 0, "v": {**session, "requests": []}}]
    for i, req in enumerate(session["requests"]):
        lines.append({"kind": 2, "k": ["requests"], "v": [{**req, "response": [], "result": None}]})
        for j in range(0, len(req["response"]), 5):
            lines.append({"kind": 2, "k": ["requests", i, "response"], "v": req["response"][j:j + 5]})
        lines.append({"kind": 1, "k": ["requests", i, "result"], "v": req["result"]})
    return "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines)


def shape(t) -> list[tuple]:
    return [(m.role, m.text, [(c.name, c.kind, c.command, c.path) for c in m.tool_calls]) for m in t.messages]


@pytest.mark.parametrize("source", SESSIONS, ids=lambda p: p.name)
def test_real_copilot_session_in_both_shapes_loads_alike_and_compacts(source: Path, tmp_path: Path):
    md = source.read_text(encoding="utf-8")
    session = session_from_specstory(md)
    as_json = tmp_path / "chatSessions" / "s.json"
    as_json.parent.mkdir()
    as_json.write_text(json.dumps(session, indent=2, ensure_ascii=False), encoding="utf-8")
    as_log = tmp_path / "chatSessions" / "s.jsonl"
    as_log.write_text(change_log(session), encoding="utf-8")
    a, b = load_transcript(as_json), load_transcript(as_log)
    assert a.format == b.format == "copilot-chat"
    assert shape(a) == shape(b)  # the replayed change log is the serialized model
    calls = [c for m in a.messages for c in m.tool_calls]
    assert len(calls) == md.count("<tool-use ")
    assert len(a.rounds) > 10
    if "run_in_terminal" in md:
        commands = [c.command for c in calls if c.kind == ToolKind.SHELL]
        assert "pnpm --filter @destyler/svelte run build" in commands  # toolEdited wins over original
    reads = {c.path for c in calls if c.kind == ToolKind.READ and c.path}
    assert reads and all(p.startswith("/Users/elonehoo/") for p in reads)
    for t in (a, b):
        result = compact(t, Settings())
        assert result.compacted and result.stats.tokens_after < result.stats.tokens_before / 2
        print(f"{source.name} ({t.path.rsplit('.', 1)[1]}): {len(t.rounds)} rounds, {result.stats.tokens_before} -> "
              f"{result.stats.tokens_after} tokens in {result.stats.elapsed_ms:.0f} ms")
