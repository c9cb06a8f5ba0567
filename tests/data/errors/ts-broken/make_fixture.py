"""Regenerate the TypeScript fixture: run the real tsc (npm `typescript`, pinned in package.json)
on this deliberately broken project and wrap both output styles in an OpenAI-chat transcript.

    cd tests/data/errors/ts-broken && npm install && python make_fixture.py
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent


def tsc(*extra: str) -> str:
    proc = subprocess.run(["npx", "tsc", "-p", ".", "--noEmit", *extra], cwd=HERE, capture_output=True, text=True)
    return proc.stdout + proc.stderr


def main() -> None:
    plain = tsc("--pretty", "false")
    pretty = tsc("--pretty", "true")
    (HERE / "tsc-output.txt").write_text(plain, encoding="utf-8")
    (HERE / "tsc-output-pretty.txt").write_text(pretty, encoding="utf-8")
    messages = [
        {"role": "system", "content": "You are a coding assistant with a shell tool."},
        {"role": "user", "content": "Please make the ts-broken project type-check."},
        {"role": "assistant", "content": "Let me run the type checker first.",
         "tool_calls": [{"id": "call_1", "type": "function",
                         "function": {"name": "shell", "arguments": json.dumps({"command": "npx tsc -p . --noEmit"})}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": plain},
        {"role": "assistant", "content": "Same run with pretty output to see the code frames.",
         "tool_calls": [{"id": "call_2", "type": "function",
                         "function": {"name": "shell",
                                      "arguments": json.dumps({"command": "npx tsc -p . --noEmit --pretty true"})}}]},
        {"role": "tool", "tool_call_id": "call_2", "content": pretty},
        {"role": "assistant", "content": "There are many errors; I will fix them file by file."},
    ]
    (HERE.parent / "ts-broken-transcript.json").write_text(json.dumps({"messages": messages}, indent=1) + "\n",
                                                          encoding="utf-8")


if __name__ == "__main__":
    main()
