"""Antigravity trajectory JSONL: files named by CODE_ACTION steps (`Created file file:///…`, `Edited file …`).

The task is the first USER_INPUT step, without its `<USER_REQUEST>` wrapper.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from bench.ground_truth.common import Derived, excerpt, unique

ACTION = re.compile(r"^(Created|Edited|Modified|Overwrote|Updated) file (file:///\S+)", re.M)
_WRAPPER = re.compile(r"</?USER_REQUEST>")


def derive(path: Path) -> Derived:
    changed: list[str] = []
    task = ""
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            step = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{n}: not JSON ({exc.msg})") from exc
        content = step.get("content") if isinstance(step.get("content"), str) else ""
        if step.get("type") == "USER_INPUT" and not task:
            task = _WRAPPER.sub("", content)
        elif step.get("type") == "CODE_ACTION":
            changed += [url for _verb, url in ACTION.findall(content)]
    return Derived(changed=unique(changed), task=excerpt(task), how="antigravity CODE_ACTION 'Created/Edited file file:///…' lines")
