"""Cline "Export task" Markdown: files changed by write_to_file / replace_in_file calls that succeeded.

The export renders each tool's result as a user turn, `[write_to_file for 'X'] Result:` followed by
"The content was successfully saved to X" (or "The user denied this operation", or, for a second
tool in one message, "Tool [...] was not executed"), so success is read from the result, not the
call. The task is the `<task>` block of the first user turn.
"""

from __future__ import annotations

import re
from pathlib import Path

from bench.ground_truth.common import Derived, excerpt, unique

RESULT = re.compile(r"^\[(write_to_file|replace_in_file) for '(.+?)'\] Result:\s*\n(.*)$", re.M)
TASK = re.compile(r"<task>\s*(.*?)\s*</task>", re.S)
CWD = re.compile(r"^# Current Working Directory \((.+?)\) Files", re.M)


def derive(path: Path) -> Derived:
    text = path.read_text(encoding="utf-8")
    changed = [target for _tool, target, first in RESULT.findall(text) if first.startswith("The content was successfully saved")]
    task = TASK.search(text)
    return Derived(changed=unique(changed), task=excerpt(task.group(1) if task else ""),
                   how="cline '[write_to_file|replace_in_file for X] Result:' + 'successfully saved'",
                   roots=unique(CWD.findall(text)))
