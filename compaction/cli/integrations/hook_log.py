"""`.compaction/hooks.log`: one line per hook run. Standard library, `compaction.statedir` and
`compaction.escape` only, so the session-start fast path (hook_fastpath) can log without importing
the compaction engine or pydantic.

Nothing is written through a link (a repository can ship `.compaction/hooks.log -> ~/.bashrc`), and
every entry is one physical line: control characters a repository controls (config keys, paths)
are escaped, so they cannot add lines to a file a shell might read.
"""

from __future__ import annotations

import datetime as _dt
import sys
import traceback
from pathlib import Path

from compaction import statedir
from compaction.escape import escape_control

LOG_FILE = "hooks.log"
_LOG_MAX = 512 * 1024
_warned_unsafe: set[str] = set()


def escape_line(text: str) -> str:
    """One physical line whatever the text (compaction.escape)."""
    return escape_control(text)


def log(workspace: Path, event: str, message: str) -> None:
    """Append one line to `.compaction/hooks.log` (rotated at 512 KB); never raises. When the state
    folder or the log is unsafe (a link, see compaction.statedir) nothing is written and the reason
    goes to stderr, once per process (Claude Code shows a hook's stderr in its transcript view)."""
    try:
        statedir.state_file(workspace, LOG_FILE)  # refused here, with the reason, when it is a link
        if statedir.size(workspace, LOG_FILE) > _LOG_MAX:
            statedir.rotate(workspace, LOG_FILE, LOG_FILE + ".1")
        stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        statedir.append_text(workspace, LOG_FILE, f"{stamp} {escape_line(event)} {escape_line(message.rstrip())}\n")
    except statedir.UnsafeStateError as exc:
        _warn_unsafe(exc, "nothing logged")
    except Exception:  # noqa: BLE001 - logging must never fail the agent
        pass


def _warn_unsafe(exc: statedir.UnsafeStateError, outcome: str) -> None:
    if exc.path not in _warned_unsafe:
        _warned_unsafe.add(exc.path)
        try:
            print(f"compaction hook: {outcome}: {escape_line(str(exc))}", file=sys.stderr)
        except Exception:  # noqa: BLE001 - a closed stderr must not fail the agent
            pass


def log_exception(workspace: Path, event: str) -> None:
    exc = sys.exc_info()[1]
    if isinstance(exc, statedir.UnsafeStateError):
        _warn_unsafe(exc, f"{event} refused")  # the log is likely refused for the same reason: say it where it is seen
    log(workspace, event, "error: " + traceback.format_exc().strip())
