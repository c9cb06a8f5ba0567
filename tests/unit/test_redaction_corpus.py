"""Redaction that holds: every secret kind of the corpus (tests/unit/secret_corpus.py, generated in code),
in four places of a session (user text, assistant text, tool output, tool-call arguments) and in three
transcript formats (Claude Code JSONL, OpenAI chat JSON, Aider Markdown, read by the project's loaders),
must appear in NO output channel: the loaded transcript, the compaction document (Markdown and --json),
the store (`.compaction/` bytes: state.db and its WAL included), restore documents with excerpts of
workspace files, the hooks' output, MCP replies and the language server's command replies. Manual
entries (`errors add --path/--symbol`, memory metadata) and a workspace `settings.py`/`.env` are fed
their own secrets.

The same run with `redactSecrets: false` counts what each channel would carry without redaction, so a
channel that drops a secret for another reason is not mistaken for one that redacts it.
`python -m tests.unit.test_redaction_corpus` prints the caught/total table.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from compaction.cli import main as cli
from compaction.transcripts import load_transcript
from tests.unit.secret_corpus import SecretCase, build

FORMATS = ("claude-code", "openai-chat", "aider")
PLACES = ("user", "assistant", "tool_output", "tool_args")
EXTRA = ("manual", "workspace_file")  # errors add / memory metadata; a file restore excerpts
SUFFIX = {"claude-code": "session.jsonl", "openai-chat": "chat.json", "aider": ".aider.chat.history.md"}


@dataclass(frozen=True)
class Instance:
    fmt: str
    place: str
    case: SecretCase


def corpus(fmt: str) -> dict[str, list[SecretCase]]:
    """Other secrets (same kinds) for each place, so a leak names the place it came from."""
    return {place: build(seed=1000 * FORMATS.index(fmt) + i) for i, place in enumerate(PLACES + EXTRA)}


def _failing_output(i: int, text: str) -> str:
    first = text.splitlines()[0] if text.strip() else text
    return (f"Traceback (most recent call last):\n  File \"app/settings.py\", line {i + 1}, in <module>\n"
            f"ValueError: bad setting {first}\n{text}\n")


def _command(text: str) -> str:
    return f"python app/settings.py --check '{text}'"


def write_claude(path: Path, c: dict[str, list[SecretCase]]) -> None:
    base = {"sessionId": "s1", "cwd": str(path.parent), "isSidechain": False, "userType": "external",
            "version": "2.1.0"}
    recs: list[dict[str, Any]] = []
    parent = None

    def add(rec: dict[str, Any]) -> None:
        nonlocal parent
        uid = f"u{len(recs)}"
        recs.append({**base, **rec, "uuid": uid, "parentUuid": parent, "timestamp": "2026-01-01T00:00:00Z"})
        parent = uid

    for i, (u, a, o, g) in enumerate(zip(*(c[p] for p in PLACES), strict=True)):
        add({"type": "user", "message": {"role": "user", "content": f"Use this in the config: {u.text}"}})
        add({"type": "assistant", "message": {"id": f"m{i}", "role": "assistant", "content": [
            {"type": "text", "text": f"Noted, the value {a.text} goes in app/settings.py."},
            {"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": _command(g.text)}}]}})
        add({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{i}", "is_error": True, "content": _failing_output(i, o.text)}]}})
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")


def write_openai(path: Path, c: dict[str, list[SecretCase]]) -> None:
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent with a bash tool."}]
    for i, (u, a, o, g) in enumerate(zip(*(c[p] for p in PLACES), strict=True)):
        msgs.append({"role": "user", "content": f"Use this in the config: {u.text}"})
        msgs.append({"role": "assistant", "content": f"Noted, the value {a.text} goes in app/settings.py.",
                     "tool_calls": [{"id": f"call_{i}", "type": "function", "function": {
                         "name": "bash", "arguments": json.dumps({"command": _command(g.text)})}}]})
        msgs.append({"role": "tool", "tool_call_id": f"call_{i}", "content": _failing_output(i, o.text)})
    path.write_text(json.dumps(msgs, indent=1), encoding="utf-8")


def write_aider(path: Path, c: dict[str, list[SecretCase]]) -> None:
    out = ["# aider chat started at 2026-01-01 10:00:00\n"]
    for i, (u, a, o, g) in enumerate(zip(*(c[p] for p in PLACES), strict=True)):
        user = f"Use this in the config: {u.text}".rstrip("\n")
        out.append("\n".join(f"#### {ln}".rstrip() for ln in user.splitlines()) + "\n")
        out.append(f"Noted, the value {a.text} goes in app/settings.py.\n")
        out.append(f"app/settings.py\n```python\n<<<<<<< SEARCH\nCHECK_{i} = None\n=======\n"
                   f"CHECK_{i} = '''{g.text}'''\n>>>>>>> REPLACE\n```\n")
        out.append("> Applied edit to app/settings.py\n> Running python app/settings.py\n"
                   + "\n".join(f"> {ln}".rstrip() for ln in _failing_output(i, o.text).splitlines()) + "\n")
    path.write_text("\n".join(out), encoding="utf-8")


WRITERS = {"claude-code": write_claude, "openai-chat": write_openai, "aider": write_aider}


def _run_cli(argv: list[str]) -> str:
    buf, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
        code = cli(argv)
    assert code == 0, (argv[:3], err.getvalue()[-2000:])
    return buf.getvalue() + err.getvalue()


def _flat_transcript(t: Any) -> str:
    return json.dumps([[m.text, m.meta, [(c.name, c.arguments, c.command, c.path) for c in m.tool_calls],
                        [r.content for r in m.tool_results]] for m in t.messages] + [t.meta, t.warnings],
                      default=str)


def run_channels(tmp: Path, fmt: str, c: dict[str, list[SecretCase]], *, redact: bool) -> dict[str, str]:
    """Every output channel's text for one format, with redaction on or off (the user's setting: a
    workspace cannot turn it off)."""
    from compaction.cli.integrations import claude_hooks as ch
    from compaction.mcp_server import build_server
    from lsp_server.features import commands as lsp

    ws = tmp / f"{fmt}-{'on' if redact else 'off'}"
    (ws / "app").mkdir(parents=True)
    (ws / ".compaction").mkdir()
    user = Path(os.environ["XDG_CONFIG_HOME"]) / "compaction" / "config.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(json.dumps({"redactSecrets": redact}), encoding="utf-8")
    files = c["workspace_file"]
    (ws / "app" / "settings.py").write_text(
        '"""Settings."""\n' + "".join(f"CASE_{i} = '''\n{s.text}\n'''\n" for i, s in enumerate(files)), encoding="utf-8")
    (ws / "app" / "main.py").write_text("from app import settings\n\n\ndef main():\n    return settings\n",
                                        encoding="utf-8")
    path = ws / SUFFIX[fmt]
    WRITERS[fmt](path, c)
    out: dict[str, str] = {}

    t = load_transcript(path, redact=redact)
    assert t.format == fmt, t.format
    out["loaded transcript"] = _flat_transcript(t)
    out["compact --json"] = _run_cli(["compact", str(path), "--json", "--workspace", str(ws)])
    out["compact (Markdown)"] = _run_cli(["compact", str(path), "--workspace", str(ws), "--restore"])
    _run_cli(["errors", "ingest", str(path), "--workspace", str(ws)])
    for i, s in enumerate(c["manual"]):
        _run_cli(["errors", "add", f"ERR_TOOL_Manual{i:03d}", "--path", f"deploy/{s.text}", "--symbol", s.text,
                  "--evidence", s.text, "--cmd", _command(s.text), "--workspace", str(ws)])
        _run_cli(["memory", "add", f"deployment note {i}", "--meta", f"note={s.text}", "--meta", f"{s.text}=k",
                  "--workspace", str(ws)])
    out["errors list/show"] = _run_cli(["errors", "list", "--json", "--workspace", str(ws)]) + "".join(
        _run_cli(["errors", "show", f"ERR_TOOL_Manual{i:03d}", "--json", "--workspace", str(ws)]) for i in range(3))
    restore_md = _run_cli(["restore", "--transcript", str(path), "--workspace", str(ws), "--open", "app/settings.py"])
    out["restore (Markdown, excerpts)"] = restore_md
    out["restore --json"] = _run_cli(["restore", "--transcript", str(path), "--workspace", str(ws), "--json",
                                      "--open", "app/settings.py"])

    payload = {"session_id": "s1", "transcript_path": str(path), "cwd": str(ws), "hook_event_name": "PreCompact",
               "trigger": "auto", "custom_instructions": ""}
    ch.pre_compact(ch.HookPayload.model_validate(payload), ws)
    block = ch.session_start(ch.HookPayload.model_validate({**payload, "hook_event_name": "SessionStart",
                                                            "source": "compact"}), ws) or ""
    out["hooks"] = ch.hook_output(block)

    server = build_server(ws)

    async def mcp_calls() -> str:
        replies = []
        for name, args in (("compact", {"transcript_path": path.name}),
                           ("restore", {"transcript_path": path.name, "open_files": ["app/settings.py"]}),
                           ("error_memory_list", {}),
                           ("memory_add", {"text": "mcp note", "metadata": {"k": c["manual"][0].text,
                                                                              c["manual"][1].text: "v"}}),
                           ("memory_retrieve", {"query": "deployment note mcp note"})):
            res = await server.call_tool(name, args)
            replies.append(res.model_dump_json() if hasattr(res, "model_dump_json") else str(res))
        return "\n".join(replies)

    out["MCP replies"] = asyncio.run(mcp_calls())

    from compaction.config import load_settings

    job = lsp.Job(workspace=ws, settings=load_settings(ws), open_files=[str(ws / "app" / "settings.py")])
    replies = [lsp.compact(job, lsp.CompactParams(transcript=str(path))),
               lsp.restore(job, lsp.RestoreParams(open_files=[str(ws / "app" / "settings.py")])),
               lsp.errors_list(job, lsp.ErrorListParams()),
               lsp.errors_add(job, lsp.ErrorAddParams(id="ERR_TOOL_Lsp", path=c["manual"][2].text,
                                                      symbol=c["manual"][3].text, evidence=c["manual"][4].text))]
    out["LSP replies"] = json.dumps(replies, default=str)

    store = b"".join(p.read_bytes() for p in sorted((ws / ".compaction").rglob("*")) if p.is_file()
                     and p.name != "config.json")
    out["store (.compaction/ bytes)"] = store.decode("latin-1")
    return out


def instances(fmt: str, c: dict[str, list[SecretCase]]) -> list[Instance]:
    return [Instance(fmt, place, case) for place in PLACES + EXTRA for case in c[place]]


def leaked(inst: Instance, text: str) -> bool:
    """The secret's distinctive part anywhere in the text (also once Markdown backslash escapes are removed)."""
    plain = text.replace("\\", "")
    return any(d in text or d in plain for d in inst.case.distinct)


def measure(tmp: Path, fmt: str) -> tuple[dict[str, dict[str, int]], list[str]]:
    """Per channel: total instances, carried without redaction, leaked with it; and the leaks named."""
    c = corpus(fmt)
    insts = instances(fmt, c)
    on = run_channels(tmp, fmt, c, redact=True)
    off = run_channels(tmp, fmt, c, redact=False)
    table: dict[str, dict[str, int]] = defaultdict(dict)
    leaks = []
    for channel, text in on.items():
        carried = sum(leaked(i, off[channel]) for i in insts)
        bad = [i for i in insts if leaked(i, text)]
        table[channel] = {"total": len(insts), "carried_without_redaction": carried, "leaked": len(bad)}
        leaks += [f"{fmt} / {channel} / {i.place} / {i.case.name}" for i in bad]
    return table, leaks


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_secret_reaches_any_channel(tmp_path: Path, fmt: str) -> None:
    table, leaks = measure(tmp_path, fmt)
    assert len(build()) >= 40
    assert not leaks, "\n".join(leaks[:40])
    # the channels really carry the corpus when redaction is off (else "no leak" would prove nothing)
    assert table["loaded transcript"]["carried_without_redaction"] >= len(build()) * len(PLACES)
    for channel in ("compact --json", "store (.compaction/ bytes)", "restore (Markdown, excerpts)", "MCP replies",
                    "LSP replies", "hooks"):
        assert table[channel]["carried_without_redaction"] > 0, (channel, table[channel])


def main() -> int:
    import tempfile

    kinds = len(build())
    print(f"corpus: {kinds} secret kinds x {len(PLACES)} places ({', '.join(PLACES)}) x {len(FORMATS)} formats, "
          f"+ {kinds} manual entries (errors add --path/--symbol/--evidence/--cmd, memory --meta) and {kinds} in a "
          "workspace settings.py, per format")
    print(f"{'format':12} {'channel':30} {'caught/total':>13} {'carried w/o redaction':>22}")
    total_leaks = 0
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in FORMATS:
            table, leaks = measure(Path(tmp), fmt)
            total_leaks += len(leaks)
            for channel, row in table.items():
                print(f"{fmt:12} {channel:30} {row['total'] - row['leaked']:>6}/{row['total']:<6} "
                      f"{row['carried_without_redaction']:>22}")
            for leak in leaks:
                print("LEAK", leak)
    print(f"leaks: {total_leaks}")
    return 1 if total_leaks else 0


if __name__ == "__main__":
    sys.exit(main())
