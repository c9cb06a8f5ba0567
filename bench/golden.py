"""Golden outputs for behaviour-preserving refactors: save what the current code prints, compare later.

    python -m bench.golden --save /tmp/golden-before      # before the refactor
    python -m bench.golden --compare /tmp/golden-before   # after each step: 0 differences expected

For each real transcript the current loaders read, it records `compaction compact` (Markdown and
`--json` at 5%, 10% and 20% of the session's tokens; `--role tester`, `--lang zh` and with
instructions at 10%), `compaction restore --transcript`'s document and the Claude Code hooks'
block (pre-compact then session-start). Run in-process, one fresh workspace per run at a fixed temporary path;
the only values masked are those that change from run to run: timings and the workspace's path.

Sessions set aside (bench/holdout/SET_ASIDE.md, issue 13's list) are never opened here.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import hashlib
import io
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

# Issue 13's set-aside sessions: not opened, not run (bench/holdout/SET_ASIDE.md).
NEVER_OPEN = frozenset({
    "antigravity-applysense.jsonl", "gemini-cli-agent-teams.json", "cline-export-image-describer2.md",
    "cline-export-pip-module.md", "specstory-cursor-chefchopsky-e2e.md",
})
BUDGETS = (0.05, 0.10, 0.20)
INSTRUCTIONS = "keep the test results and decisions, ignore styling"
_MS_RE = re.compile(r'("elapsed_ms": )[0-9.]+')


def transcripts_root() -> Path:
    env = os.environ.get("COMPACTION_SHARED")
    return (Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared") / "transcripts"


def sessions(root: Path) -> list[Path]:
    """The 13 sessions, then those of more-agents/ (minus the never-open ones); sorted, so stable."""
    files = [p for p in sorted(root.iterdir()) if p.is_file() and p.suffix in (".json", ".traj", ".md")
             and p.name not in ("README.md",) and not p.name.isupper()]
    more = root / "more-agents"
    if more.is_dir():
        files += [p for p in sorted(more.iterdir()) if p.is_file() and p.name not in NEVER_OPEN
                  and p.suffix in (".json", ".jsonl", ".md") and p.name != "README.md"]
    return files


@contextlib.contextmanager
def _captured() -> Iterator[io.StringIO]:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
        yield buf


def _cli(argv: list[str]) -> str:
    from compaction.cli import main

    with _captured() as out:
        code = main(argv)
    return f"{out.getvalue()}\n[exit {code}]\n"


def _workspace_dir() -> Path:
    """A fixed path per checkout: outputs that hash the workspace's path (the hooks block) compare exactly,
    while two worktrees running the golden at once never share a directory."""
    tag = hashlib.sha1(str(Path(__file__).resolve().parents[1]).encode()).hexdigest()[:10]
    return Path(tempfile.gettempdir()) / f"compaction-golden-{tag}" / "ws"


def _in_workspace(run: Callable[[str], str]) -> str:
    ws_path = _workspace_dir()
    shutil.rmtree(ws_path, ignore_errors=True)
    ws_path.mkdir(parents=True)
    ws = str(ws_path)
    try:
        return run(ws).replace(ws, "<WS>")
    finally:
        shutil.rmtree(ws_path, ignore_errors=True)


def _hooks(path: Path, ws: str) -> str:
    from compaction.cli.integrations import claude_hooks as ch

    payload = ch.parse_payload(json.dumps({"session_id": "golden", "transcript_path": str(path), "cwd": ws,
                                           "hook_event_name": "PreCompact", "trigger": "manual"}))
    ch.pre_compact(payload, Path(ws))
    start = payload.model_copy(update={"hook_event_name": "SessionStart", "source": "compact", "trigger": None})
    return ch.session_start(start, Path(ws)) or "<none>"


def outputs(path: Path) -> Iterator[tuple[str, str]]:
    """(name, text) of every recorded output of one session."""
    from compaction import tokens
    from compaction.transcripts import load_transcript

    total = tokens.count_messages(load_transcript(path).messages)
    p = str(path)
    for share in BUDGETS:
        n = str(max(200, int(total * share)))
        pct = f"{int(share * 100):02d}"
        yield f"compact-{pct}.md", _in_workspace(lambda ws, n=n: _cli(["compact", p, "--workspace", ws, "--target-tokens", n]))
        yield f"compact-{pct}.json", _in_workspace(
            lambda ws, n=n: _cli(["compact", p, "--workspace", ws, "--target-tokens", n, "--json"]))
    n10 = str(max(200, int(total * 0.10)))
    for name, extra in (("tester", ["--role", "tester"]), ("zh", ["--lang", "zh"]),
                        ("instructions", ["--instructions", INSTRUCTIONS])):
        yield f"compact-10-{name}.md", _in_workspace(
            lambda ws, extra=extra: _cli(["compact", p, "--workspace", ws, "--target-tokens", n10, *extra]))
    yield "compact-default.json", _in_workspace(lambda ws: _cli(["compact", p, "--workspace", ws, "--json"]))
    yield "restore.md", _in_workspace(lambda ws: _cli(["restore", "--workspace", ws, "--transcript", p, "--no-write"]))
    yield "hooks-block.md", _in_workspace(lambda ws: _hooks(path, ws))


def _mask(text: str) -> str:
    return _MS_RE.sub(r"\g<1>0", text)


def collect(root: Path, only: str | None = None) -> Iterator[tuple[str, str]]:
    from compaction.model import TranscriptError
    from compaction.transcripts import load_transcript

    for path in sessions(root):
        if only and only not in path.name:
            continue
        try:
            load_transcript(path)
        except TranscriptError as exc:
            yield f"{path.name}/UNREADABLE.txt", f"{type(exc).__name__}\n"
            continue
        for name, text in outputs(path):
            yield f"{path.name}/{name}", _mask(text)


def save(root: Path, dest: Path, only: str | None = None) -> int:
    n = 0
    for rel, text in collect(root, only):
        out = dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(text.encode("utf-8"))
        n += 1
    print(f"saved {n} outputs under {dest}")
    return 0


def compare(root: Path, golden: Path, only: str | None = None, show: int = 40) -> int:
    """Differences with the saved outputs (a unified diff of the first lines of each); 1 if any."""
    seen, differ = 0, []
    for rel, text in collect(root, only):
        seen += 1
        ref = golden / rel
        before = ref.read_bytes().decode("utf-8") if ref.exists() else "<missing>\n"  # keeps any \r
        if before != text:
            differ.append(rel)
            diff = difflib.unified_diff(before.split("\n"), text.split("\n"), f"before/{rel}", f"after/{rel}",
                                        lineterm="", n=1)
            print("\n".join(list(diff)[:show]))
    print(f"compared {seen} outputs: {len(differ)} differ" + (f" ({', '.join(differ)})" if differ else ""))
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--save", metavar="DIR", type=Path)
    mode.add_argument("--compare", metavar="DIR", type=Path)
    ap.add_argument("--only", help="only sessions whose file name contains this")
    ap.add_argument("--transcripts", type=Path, default=None, help="default: $COMPACTION_SHARED/transcripts")
    args = ap.parse_args(argv)
    root = args.transcripts or transcripts_root()
    if args.save:
        return save(root, args.save, args.only)
    return compare(root, args.compare, args.only)


if __name__ == "__main__":
    sys.exit(main())
