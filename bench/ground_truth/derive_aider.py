"""Aider chat history Markdown: files named by aider's own `> Applied edit to X` confirmations.

Aider prints those paths relative to the git working dir, with the platform's separators; the
task is the first `#### ` (user input) line group of the history.
"""

from __future__ import annotations

import re
from pathlib import Path

from bench.ground_truth.common import Derived, excerpt, unique

APPLIED = re.compile(r"^> Applied edit to (.+?)\s*$", re.M)
GIT_DIR = re.compile(r"^> Git working dir: (.+?)\s*$", re.M)


def derive(path: Path) -> Derived:
    text = path.read_text(encoding="utf-8")
    changed = [m.replace("\\", "/") for m in APPLIED.findall(text)]
    task_lines: list[str] = []
    for line in text.splitlines():
        if line.startswith("#### "):
            task_lines.append(line[5:])
        elif task_lines:
            break
    return Derived(changed=unique(changed), task=excerpt("\n".join(task_lines)),
                   how="aider '> Applied edit to X' lines", roots=unique(GIT_DIR.findall(text)))
