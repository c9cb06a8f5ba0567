#!/usr/bin/env python3
"""Scripted stub of the Gemini API (generateContent / streamGenerateContent) for driving the real
Gemini CLI offline: `GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:PORT` with a dummy `GEMINI_API_KEY`.

Binds 127.0.0.1 only (STUB_PORT=0: a free port, announced on the first stdout line); bounded
(STUB_MAX_REQUESTS, STUB_MAX_LIFETIME_S). Every request is logged to STUB_LOG_DIR/NNNN-<kind>.json.
Script: "fix … app.py" runs `python3 app.py` (KeyError), edits it, re-runs it; a request whose system
instruction asks for a `<state_snapshot>` (Gemini CLI's compression) gets a short snapshot; a JSON-mode
utility request (routing, next speaker) gets a JSON answer. The file `STUB_LOG_DIR/../fake_tokens`
makes the next main reply report that many prompt tokens (once), which starts Gemini CLI's
automatic compression on the next request.
"""
from __future__ import annotations

import json
import os

from stub_log import LOG_DIR, LoggingHandler, serve

PROJ = os.environ.get("STUB_PROJ", ".")


def _texts(content: dict) -> list[str]:
    return [p["text"] for p in content.get("parts") or [] if isinstance(p, dict) and isinstance(p.get("text"), str)]


def classify(body: dict) -> str:
    system = " ".join(_texts(body.get("systemInstruction") or body.get("system_instruction") or {}))
    if "state_snapshot" in system:
        return "compress"
    config = body.get("generationConfig") or {}
    if config.get("responseMimeType") == "application/json" or config.get("responseJsonSchema"):
        return "json"
    return "main" if body.get("tools") else "side"


def _last_prompt(contents: list[dict]) -> tuple[int, str]:
    """The last user text that is not a function response (the prompt of the current turn)."""
    for i in range(len(contents) - 1, -1, -1):
        c = contents[i]
        parts = c.get("parts") or []
        if c.get("role") == "user" and not any("functionResponse" in p for p in parts):
            text = "\n".join(_texts(c))
            if text.strip():
                return i, text
    return -1, ""


def _tool_names(body: dict) -> dict[str, dict]:
    out = {}
    for tool in body.get("tools") or []:
        for decl in tool.get("functionDeclarations") or []:
            schema = decl.get("parametersJsonSchema") or decl.get("parameters") or {}
            out[decl.get("name", "")] = schema.get("properties") or {}
    return out


def _path_arg(props: dict) -> str:
    return "file_path" if "file_path" in props else ("absolute_path" if "absolute_path" in props else "path")


def script_main(body: dict) -> list[dict]:
    contents = body.get("contents") or []
    pi, prompt = _last_prompt(contents)
    calls = [p["functionCall"]["name"] + ":" + json.dumps(p["functionCall"].get("args", {}))
             for c in contents[pi + 1:] for p in c.get("parts") or [] if "functionCall" in p]
    p = prompt.lower()
    tools = _tool_names(body)
    app = os.path.join(PROJ, "app.py")
    if "fix" in p and "app.py" in p and "run_shell_command" in tools:
        if len(calls) == 0:
            return [{"text": "I'll run the app first to see the crash."},
                    {"functionCall": {"name": "run_shell_command",
                                      "args": {"command": "python3 app.py", "description": "Run the app"}}}]
        if len(calls) == 1 and "replace" in tools:
            props = tools["replace"]
            args = {_path_arg(props): app, "old_string": 'port = config["port"]',
                    "new_string": 'port = config.get("port", 8000)'}
            if "instruction" in props:
                args["instruction"] = "Default the port to 8000 when config.json has none."
            if "expected_replacements" in props:
                args["expected_replacements"] = 1
            return [{"text": "It fails with KeyError: 'port'. config.json has no port; default it to 8000."},
                    {"functionCall": {"name": "replace", "args": args}}]
        if len(calls) == 2:
            return [{"functionCall": {"name": "run_shell_command",
                                      "args": {"command": "python3 app.py", "description": "Re-run the app"}}}]
        return [{"text": "Fixed: app.py crashed with KeyError: 'port'; it now uses config.get(\"port\", 8000). "
                 "TODO: add a test for a custom port."}]
    return [{"text": "STUB-REPLY: acknowledged. (Context restored check.)"}]


SNAPSHOT = ("<state_snapshot>\n<overall_goal>Fix the app.py crash.</overall_goal>\n"
            "<key_knowledge>KeyError 'port' fixed with config.get</key_knowledge>\n</state_snapshot>")


def reply(kind: str, body: dict) -> list[dict]:
    if kind == "compress":
        return [{"text": SNAPSHOT}]
    if kind == "json":
        return [{"text": json.dumps({"reasoning": "stub", "next_speaker": "user", "model_choice": "flash",
                                     "complexity_reasoning": "stub", "complexity_score": 10})}]
    if kind == "side":
        return [{"text": "ok"}]
    return script_main(body)


class Handler(LoggingHandler):
    name = "gemini-stub"

    def do_GET(self):
        self._log("get", None, {})
        self._send(200, b"{}")

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        path = self.path.split("?")[0]
        if path.endswith(":countTokens"):
            self._log("count_tokens", body, {})
            self._send(200, json.dumps({"totalTokens": max(1, len(raw) // 4)}).encode())
            return
        if not (path.endswith(":generateContent") or path.endswith(":streamGenerateContent")):
            self._log("other", body, {})
            self._send(404, json.dumps({"error": {"code": 404, "message": "stub: " + path, "status": "NOT_FOUND"}}).encode())
            return
        kind = classify(body)
        parts = reply(kind, body)
        prompt_tokens = max(1, len(raw) // 4)
        if kind == "main":
            ctl = os.path.join(LOG_DIR, "..", "fake_tokens")
            try:
                with open(ctl, encoding="utf-8") as fh:
                    prompt_tokens = int(fh.read().strip() or prompt_tokens)
                os.remove(ctl)
            except (OSError, ValueError):
                pass
        self._log(kind, body, {"reply": parts, "prompt_tokens": prompt_tokens})
        chunk = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
                 "usageMetadata": {"promptTokenCount": prompt_tokens, "candidatesTokenCount": 20,
                                   "totalTokenCount": prompt_tokens + 20},
                 "modelVersion": "stub"}
        if path.endswith(":streamGenerateContent"):
            self._send(200, f"data: {json.dumps(chunk)}\r\n\r\n".encode(), "text/event-stream")
        else:
            self._send(200, json.dumps(chunk).encode())


def main() -> None:
    serve(Handler, "gemini")


if __name__ == "__main__":
    main()
