"""A workspace and a Claude Code transcript recorded on another machine (`/home/someone/proj`)
with a Python traceback pointing into `app/config.py` — for the LSP and Neovim tests."""

from __future__ import annotations

import json
from pathlib import Path

FOREIGN_CWD = "/home/someone/proj"
CONFIG_PY = '''"""Configuration loading."""
import os


def load_config():
    url = os.environ["DATABASE_URL"]
    return {"url": url}
'''
KEYERROR_LINE = 6  # 1-based line of `url = os.environ[...]` in app/config.py

MAIN_PY = '''from app.config import load_config


def main():
    print(load_config())


if __name__ == "__main__":
    main()
'''

TRACEBACK = f"""Traceback (most recent call last):
  File "{FOREIGN_CWD}/app/__main__.py", line 9, in <module>
    main()
  File "{FOREIGN_CWD}/app/__main__.py", line 5, in main
    print(load_config())
  File "{FOREIGN_CWD}/app/config.py", line {KEYERROR_LINE}, in load_config
    url = os.environ["DATABASE_URL"]
KeyError: 'DATABASE_URL'
"""


def make_workspace(root: Path) -> Path:
    (root / "app").mkdir(parents=True, exist_ok=True)
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "config.py").write_text(CONFIG_PY)
    (root / "app" / "__main__.py").write_text(MAIN_PY)
    return root


def _rec(kind: str, n: int, content, **extra) -> dict:
    return {
        "type": kind,
        "sessionId": "s-1",
        "uuid": f"u{n}",
        "parentUuid": f"u{n - 1}" if n else None,
        "isSidechain": False,
        "userType": "external",
        "cwd": FOREIGN_CWD,
        "timestamp": f"2025-10-01T10:{n // 60:02d}:{n % 60:02d}Z",
        "message": {"role": "user" if kind == "user" else "assistant", "content": content, **extra},
    }


def make_transcript(path: Path, rounds: int = 14, fail_rounds: tuple[int, ...] = (2, 9)) -> Path:
    """A Claude Code session: the app crashes with KeyError in the given rounds, then is fixed."""
    records = []
    n = 0
    for r in range(1, rounds + 1):
        text = "Run the app and fix the crash." if r == 1 else f"Continue with step {r}."
        records.append(_rec("user", n, text))
        n += 1
        if r in fail_rounds:
            cmd, output, err = "python -m app", TRACEBACK, True
        else:
            cmd, output, err = f"ls app  # step {r}", "__init__.py\n__main__.py\nconfig.py\n", False
        tool_id = f"toolu_{r:03d}"
        records.append(_rec("assistant", n, [
            {"type": "text", "text": f"Round {r}: running `{cmd}`."},
            {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": cmd}},
        ], id=f"msg_{r:03d}"))  # fmt: skip
        n += 1
        records.append(_rec("user", n, [{"type": "tool_result", "tool_use_id": tool_id, "content": output,
                                          "is_error": err}]))  # fmt: skip
        n += 1
    records.append(_rec("assistant", n, [{"type": "text", "text": (
        "The crash came from a missing DATABASE_URL; fixed by using os.environ.get with a default. "
        "@decision: config reads optional env vars with defaults.")}], id="msg_end"))  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path
