"""Avoidance replay over the real transcripts (issue 3): walk the rounds in order, record errors as
they happen, and before each round call `check` with that round's files and commands (at most 3
warnings). Reports the share of second occurrences that got a warning naming them beforehand
(target >= 80%), the same for every repeat, and the precision (warnings whose error did recur within
10 rounds, over all warnings). Target bugs (errors provoked on purpose) are not mistakes to avoid
and are left out of the recall figures. Prints figures; asserts nothing.

    .venv/bin/python bench/avoidance_replay.py [--shared ../shared]
"""

from __future__ import annotations

import argparse
import copy
import os
import re
import sys
import time
from pathlib import Path

from compaction.errors import scan_transcript
from compaction.errors.check import index, rank
from compaction.model import ToolKind
from compaction.transcripts import load_transcript

HORIZON = 10
_PATHISH = re.compile(r"[\w./\-]+\.[A-Za-z]{1,5}\b")


def round_query(rnd) -> tuple[list[str], list[str], list[str]]:
    """The files, commands and edited files of a round, as an agent hook would pass them before
    running its tool calls (a PreToolUse hook sees exactly these)."""
    files: list[str] = []
    commands: list[str] = []
    edits: list[str] = []
    for msg in rnd.messages:
        for call in msg.tool_calls:
            if call.path:
                files.append(call.path)
                if call.kind in (ToolKind.EDIT, ToolKind.WRITE):
                    edits.append(call.path)
            if call.command:
                commands.append(call.command)
                files.extend(_PATHISH.findall(call.command))
            elif call.kind == ToolKind.SHELL and call.arguments.get("command"):
                commands.append(str(call.arguments["command"]))
    return files, commands, edits


def known_before(records, r: int):
    out = []
    for rec in records:
        occ = [o for o in rec.occurrences if o.round < r]
        if occ:
            k = copy.copy(rec)
            k.occurrences = occ
            out.append(k)
    return out


def replay(path: Path) -> dict:
    t = load_transcript(path)
    records = scan_transcript(t)
    rounds_of = {rec.id: rec.rounds for rec in records}
    target = {rec.id for rec in records if rec.target_bug}
    warned: dict[int, set[str]] = {}
    n_warn = n_good = 0
    for rnd in t.rounds:
        known = known_before(records, rnd.number)
        if not known:
            continue
        files, commands, edits = round_query(rnd)
        warns = rank(index(known), files=files, commands=commands, edits=edits, limit=3)
        warned[rnd.number] = {w.id for w in warns}
        for w in warns:
            n_warn += 1
            if any(rnd.number <= r < rnd.number + HORIZON for r in rounds_of[w.id]):
                n_good += 1
    second = second_hit = repeat = repeat_hit = 0
    for rec in records:
        if rec.id in target or rec.count < 2:
            continue
        for i, occ in enumerate(rec.occurrences[1:], start=1):
            if occ.target:
                continue  # a reproduction of the bug under repair is not a repeated mistake
            r = occ.round
            hit = rec.id in warned.get(r, set())
            repeat += 1
            repeat_hit += hit
            if i == 1:
                second += 1
                second_hit += hit
    return {"file": path.name, "rounds": len(t.rounds), "records": len(records), "second": second,
            "second_warned": second_hit, "repeat": repeat, "repeat_warned": repeat_hit, "warnings": n_warn,
            "warnings_recurred": n_good}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=os.environ.get("COMPACTION_SHARED") or
                    str(Path(__file__).resolve().parents[1].parent / "shared"))
    args = ap.parse_args()
    folder = Path(args.shared) / "transcripts"
    skip = {"README.md", "MANIFEST.tsv", "GROUND_TRUTH.jsonl"}
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.name not in skip)
    t0 = time.perf_counter()
    rows = [replay(p) for p in files]
    print(f"{'transcript':36} {'rounds':>6} {'recs':>5} {'2nd warned':>11} {'repeats warned':>15} {'precision':>10}")
    for r in rows:
        prec = f"{r['warnings_recurred']}/{r['warnings']}"
        print(f"{r['file']:36} {r['rounds']:6} {r['records']:5} {r['second_warned']:>5}/{r['second']:<5} "
              f"{r['repeat_warned']:>7}/{r['repeat']:<7} {prec:>10}")
    tot = {k: sum(r[k] for r in rows) for k in ("second", "second_warned", "repeat", "repeat_warned", "warnings",
                                                  "warnings_recurred")}
    share = tot["second_warned"] / tot["second"] if tot["second"] else 0.0
    rshare = tot["repeat_warned"] / tot["repeat"] if tot["repeat"] else 0.0
    prec = tot["warnings_recurred"] / tot["warnings"] if tot["warnings"] else 0.0
    print(f"\nsecond occurrences warned beforehand: {tot['second_warned']}/{tot['second']} = {share:.1%} (target >= 80%)")
    print(f"all repeat occurrences warned:        {tot['repeat_warned']}/{tot['repeat']} = {rshare:.1%}")
    print(f"precision (recurred within {HORIZON} rounds): {tot['warnings_recurred']}/{tot['warnings']} = {prec:.1%}")
    print(f"replay time: {time.perf_counter() - t0:.2f}s for {len(rows)} transcripts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
