#!/usr/bin/env python3
"""Scripted stub of the OpenAI Responses API for driving the real Codex CLI offline
(`[model_providers.<id>] base_url = "http://127.0.0.1:PORT/v1"`, `wire_api = "responses"`).

Binds 127.0.0.1 only (STUB_PORT=0: a free port, announced on the first stdout line); bounded
(STUB_MAX_REQUESTS, STUB_MAX_LIFETIME_S). Every request is logged to STUB_LOG_DIR/NNNN-<kind>.json.
`POST /v1/responses` streams SSE; a request whose input carries a compaction prompt (ours, or Codex's
own) is a local compaction and gets a short summary. OpenAI's own provider compacts remotely: Codex
0.171 sends `POST /v1/responses` ending in a `compaction_trigger` item and expects one opaque
`compaction` item back (older releases: `POST /v1/responses/compact`); both are logged and answered.
Script: "fix … app.py" runs `python3 app.py` (KeyError), patches app.py with a shell command, re-runs.
The file `STUB_LOG_DIR/../fake_tokens` makes the next main reply report that many total tokens (once), so
Codex's auto-compaction (`model_auto_compact_token_limit`) starts.
"""
from __future__ import annotations

import json
import os
import uuid

from stub_log import LOG_DIR, LoggingHandler, serve

OUR_PROMPT = "You are compacting a coding-assistant conversation"
CODEX_PROMPTS = ("CONTEXT CHECKPOINT COMPACTION", "handoff summary", "create a handoff")
SUMMARY = "STUB-SUMMARY: fixed KeyError 'port' in app.py (config.get default 8000). Read .compaction/restore.md."


def _texts(item) -> list[str]:
    out = []
    if isinstance(item, dict):
        c = item.get("content")
        if isinstance(c, str):
            out.append(c)
        elif isinstance(c, list):
            out += [p.get("text", "") for p in c if isinstance(p, dict) and isinstance(p.get("text"), str)]
        if isinstance(item.get("output"), str):
            out.append(item["output"])
    return out


def classify(body: dict) -> str:
    items = body.get("input") if isinstance(body.get("input"), list) else []
    if items and isinstance(items[-1], dict) and items[-1].get("type") == "compaction_trigger":
        return "compact-remote"  # Codex 0.171's remote compaction (v2) with OpenAI's own provider
    last_user = next((" ".join(_texts(i)) for i in reversed(items) if isinstance(i, dict) and i.get("role") == "user"), "")
    if OUR_PROMPT in last_user:
        return "compact-ours"
    if any(p.lower() in last_user.lower() for p in CODEX_PROMPTS):
        return "compact-codex"
    return "main" if body.get("tools") else "side"


def _prompt_and_calls(items: list) -> tuple[str, list[dict]]:
    """The last user prompt and the function calls made since."""
    idx, prompt = -1, ""
    for i in range(len(items) - 1, -1, -1):
        it = items[i]
        if isinstance(it, dict) and it.get("role") == "user":
            text = " ".join(_texts(it))
            if text.strip() and not text.lstrip().startswith("<"):
                idx, prompt = i, text
                break
    calls = [it for it in items[idx + 1:] if isinstance(it, dict) and it.get("type") in ("function_call", "custom_tool_call")]
    return prompt, calls


def _shell(body: dict, command: str) -> dict:
    """A call of whichever shell tool this Codex offers."""
    names = {t.get("name"): t for t in body.get("tools") or [] if isinstance(t, dict)}
    if "shell_command" in names:
        name, args = "shell_command", {"command": command}
    elif "exec_command" in names:
        name, args = "exec_command", {"cmd": command}
    else:
        name, args = "shell", {"command": ["bash", "-lc", command]}
    return {"type": "function_call", "name": name, "arguments": json.dumps(args), "call_id": "call_" + uuid.uuid4().hex[:12]}


def _message(text: str) -> dict:
    return {"type": "message", "role": "assistant", "id": "msg_" + uuid.uuid4().hex[:12],
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def script_main(body: dict) -> list[dict]:
    prompt, calls = _prompt_and_calls(body.get("input") or [])
    p = prompt.lower()
    if "fix" in p and "app.py" in p:
        if len(calls) == 0:
            return [_message("I'll run the app first."), _shell(body, "python3 app.py")]
        if len(calls) == 1:
            return [_shell(body, "sed -i 's/port = config\\[\"port\"\\]/port = config.get(\"port\", 8000)/' app.py")]
        if len(calls) == 2:
            return [_shell(body, "python3 app.py")]
        return [_message("Fixed: app.py crashed with KeyError: 'port'; it now uses config.get(\"port\", 8000).")]
    return [_message("STUB-REPLY: acknowledged. (Context restored check.)")]


class Handler(LoggingHandler):
    name = "codex-stub"

    def do_GET(self):
        self._log("get", None, {})
        self._send(200, json.dumps({"data": [], "models": []}).encode())

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.headers.get("Content-Encoding") == "zstd":
            self._log("zstd", None, {})
            self._send(400, b'{"error": {"message": "stub: no zstd"}}')
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        path = self.path.split("?")[0]
        usage = {"input_tokens": max(1, len(raw) // 4), "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0}}
        usage["total_tokens"] = usage["input_tokens"] + 20
        if path.endswith("/responses/compact"):
            output = [{"type": "message", "role": "user",
                       "content": [{"type": "input_text", "text": "STUB-REMOTE-SUMMARY: " + SUMMARY}]}]
            self._log("compact-remote", body, {"reply": output})
            self._send(200, json.dumps({"id": "resp_" + uuid.uuid4().hex[:8], "object": "response.compaction",
                                        "output": output, "usage": usage}).encode())
            return
        if not path.endswith("/responses"):
            self._log("other", body, {})
            self._send(404, json.dumps({"error": {"message": "stub: " + path}}).encode())
            return
        kind = classify(body)
        if kind == "main":
            try:
                ctl = os.path.join(LOG_DIR, "..", "fake_tokens")
                with open(ctl, encoding="utf-8") as fh:
                    usage["total_tokens"] = usage["input_tokens"] = int(fh.read().strip())
                os.remove(ctl)
            except (OSError, ValueError):
                pass
        if kind == "compact-remote":
            items = [{"type": "compaction", "id": "cmp_" + uuid.uuid4().hex[:12],
                      "encrypted_content": "STUB-OPAQUE-COMPACTION"}]
        else:
            items = [_message(SUMMARY)] if kind.startswith("compact") else (
                script_main(body) if kind == "main" else [_message("ok")])
        self._log(kind, body, {"reply": items})
        rid = "resp_" + uuid.uuid4().hex[:12]
        events = [("response.created", {"type": "response.created", "response": {"id": rid}})]
        events += [("response.output_item.done", {"type": "response.output_item.done", "output_index": i, "item": it})
                   for i, it in enumerate(items)]
        events.append(("response.completed", {"type": "response.completed",
                                              "response": {"id": rid, "usage": usage, "output": items}}))
        data = "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in events).encode()
        self._send(200, data, "text/event-stream")


def main() -> None:
    serve(Handler, "codex")


if __name__ == "__main__":
    main()
