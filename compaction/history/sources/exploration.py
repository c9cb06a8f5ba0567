"""How the agent explored before its first change: the files it read, the lookups it ran (and which
found nothing), and the work it delegated to a sub-agent with the headings of the report it got back.

Why a decision: where the agent looked, and where it stopped looking, is the path that led to the
edit target ("searched src/libponyc, found nothing, then the whole repository"); a successor that
does not know it repeats it. Built from the events (reads, searches) and the tool results already
paired by `events.results_of_calls`: no further pass over the transcript's text.
"""

from __future__ import annotations

import re

from compaction.events import EventKind
from compaction.history.echo import output_of
from compaction.history.facts import WS_RE, Fact, cite, display_path
from compaction.history.lookups import FAILED_RE, LOOKUP_RE, PATH_LINE_RE, found_nothing_in, lookup_hits, lookup_text
from compaction.history.sections import Section
from compaction.history.sources.decisions import AHEAD
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Role, ToolKind
from compaction.shell import pipeline_heads, raw_words, unredirected

_HEADING_RE = re.compile(r"^\s{0,3}(?:#{1,6}\s++([A-Z0-9](?:.*[^\s#])?)\s*+#*+\s*+$|(?:\d+\.\s+)?\*\*([^*]{3,80})\*\*\s*[-–:]\s*(.*))")
_FILE_RE = re.compile(r"\.\w{1,8}$")
_OPTION_ARGS = frozenset({"-name", "-iname", "-path", "-ipath", "-type", "-e", "-g", "--glob", "--include", "--exclude",
                          "-maxdepth", "-mindepth", "-t", "--type", "-A", "-B", "-C", "-m"})
MAX_READS = 12
MAX_LOOKUPS = 8
MAX_HEADINGS = 12


def _report_headings(report: str) -> list[str]:
    """The section headings (and bold-led items) of a sub-agent's report, in order, once each: the
    report's outline is what it found, without its pages of quoted code."""
    out: list[str] = []
    for line in report[:20000].splitlines():  # often wrapped in one fence itself: headings are read anywhere
        m = _HEADING_RE.match(line)
        if not m:
            continue
        text = m.group(1) or (m.group(2) + (f" – {m.group(3).strip()}" if m.group(3) and m.group(3).strip() else ""))
        text = WS_RE.sub(" ", text.replace("**", "")).strip(" :")
        if 3 <= len(text) <= 140 and text not in out:
            out.append(text)
        if len(out) >= MAX_HEADINGS:
            break
    return out


def _first_change_round(ctx: FactContext) -> int | None:
    """The round of the first change to a file the session did not create: the end of the search
    for what to change (a reproduction script or a plan written first is part of the search)."""
    created: set[str] = set()
    for e in ctx.events:
        if e.kind is EventKind.WRITE and e.path:
            created.add(e.path)
        elif e.kind is EventKind.EDIT and not e.failed and e.path not in created:
            return e.round
    return None


@fact_source(Section.DECISIONS)
def exploration_facts(ctx: FactContext) -> list[Fact]:
    if not ctx.preset.code:
        return []
    until = _first_change_round(ctx) or ctx.n_rounds + 1
    by_index = {m.index: m for m in ctx.transcript.messages}
    reads: list[str] = []
    delegated_reads: list[str] = []
    rounds: set[int] = set()
    for e in ctx.events:
        if e.round > until:
            break
        if e.kind is EventKind.READ and e.path:
            p = display_path(e.path, ctx.cwd)
            msg = by_index.get(e.message_index)
            target = delegated_reads if msg is not None and msg.harness else reads
            if p not in target and len(target) < MAX_READS:
                target.append(p)
            rounds.add(e.round)
    found: list[str] = []
    hits: list[tuple[str, list[str], int]] = []  # each lookup with output: the paths it listed, its round
    empty: list[str] = []  # lookups that found nothing, in order
    where: list[str] = []  # the places those searched
    dead: list[tuple[str, int]] = []  # those look-ups with their rounds
    delegations: list[str] = []
    reports: list[str] = []  # the outline of each delegated report: rendered last, the longest part
    for rnd in ctx.transcript.rounds:
        if rnd.number > until:
            break
        if not any(m.tool_calls for m in rnd.messages):
            continue
        results = ctx.results_of(rnd)
        for msg in rnd.messages:
            if msg.role is not Role.ASSISTANT or msg.harness:
                continue
            for call in msg.tool_calls:
                res = results.get(id(call))
                lookup = lookup_text(call)
                if lookup is not None:
                    out = output_of(res, call).strip() if res is not None else ""  # not the export's echo of it
                    if out and call.kind == ToolKind.SHELL and call.command.lstrip().startswith("ls") \
                            and not FAILED_RE.search(out[:300]):
                        continue  # a listing browsed: not a search with an outcome
                    places = _searched(call.command or "", ctx.cwd)
                    # a look inside files already known (`grep -n x a.py`) is no search for where the work is
                    inside = bool(places) and all(_FILE_RE.search(p) for p in places)
                    if found_nothing_in(out) or FAILED_RE.search(out[:200]) and len(out) < 300:
                        empty.append(lookup)
                        if not inside:
                            dead.append((lookup, rnd.number))
                            where.extend(places)
                    else:
                        found.append(f"{lookup} → {lookup_hits(out, ctx.cwd)}")
                        listed = _listed(out, ctx.cwd)
                        if listed or not inside:
                            hits.append((_relative_command(lookup, ctx.cwd), listed or places, rnd.number))
                    rounds.add(rnd.number)
                elif call.kind == ToolKind.OTHER and res is not None and _reported(call.arguments, res.content) \
                        and _delegated(call.arguments, rnd.messages):
                    label = call.arguments.get("description") if isinstance(call.arguments.get("description"), str) \
                        else None
                    heads = _report_headings(res.content)
                    delegations.append(f"delegated to a sub-agent ({call.name}{f' “{label}”' if label else ''})")
                    if heads:
                        reports.append("its report: " + "; ".join(heads))
                    rounds.add(rnd.number)
    parts: list[str] = []
    if delegations:
        if delegated_reads:
            delegations[0] += ", which read " + ", ".join(delegated_reads)
        parts.extend(delegations)
    if empty:
        more = f" (+{len(empty) - MAX_LOOKUPS} more)" if len(empty) > MAX_LOOKUPS else ""
        parts.append("found nothing: " + ", ".join(empty[:MAX_LOOKUPS]) + more)
    if found:
        parts.append("found: " + "; ".join(found[-MAX_LOOKUPS:]))
    if reads:
        parts.append("read " + ", ".join(reads))
    parts.extend(reports)
    changed = until <= ctx.n_rounds
    if len(reads) + len(delegated_reads) + len(empty) + len(found) + 2 * len(delegations) < 2 \
            or not (changed or delegations or empty):
        return []  # one file read, or reading with no change it led to: nothing worth retelling
    head = "Explored before the first change" if changed else "Explored"
    text = f"{head} {cite(sorted(rounds))}: " + "; ".join(parts)
    text = text if len(text) <= 1600 else text[:1599] + "…"
    path, cited = _path_line(ctx, until, dead, where, hits) if changed and (empty or hits) else (None, [])
    short = path or (text if len(text) <= 400 else text[:399] + "…")
    # How the file was found after dead ends is what a successor would otherwise search again: it
    # weighs like the agent's stated decisions. Searches that led to no file the work changed are
    # context, not a decision (bastion's count of test files took the decisions' first place).
    located = bool(path) and path.startswith("Located")
    return [Fact(Section.DECISIONS, short, cited or sorted(rounds), score=56 if located and empty else 41,
                 priority=AHEAD if located and empty or delegations else None,
                 full_text=None if short == text else text, short=_shortest_path(short) if located else None)]


def _path_line(ctx: FactContext, until: int, empty: list[tuple[str, int]], where: list[str],
               hits: list[tuple[str, list[str], int]]) -> tuple[str | None, list[int]]:
    """The search as one line: where it found nothing (the places, the last two commands), then each
    look-up whose output named a file the agent went on to read or change, with those files: "Located
    `x.pony` (r2-r17): nothing under src/ (`find src …`, `grep -r … src`, +4) → `find . -name …` →
    a/cli.pony → `grep -r "class X" .` → a/x.pony", and the rounds it spans (the first and the last)."""
    worked: dict[str, int] = {}  # path → first round read or changed
    target = None
    for e in ctx.events:
        if e.path and e.kind in (EventKind.READ, EventKind.EDIT, EventKind.WRITE):
            p = display_path(e.path, ctx.cwd)
            worked.setdefault(p, e.round)
            if target is None and e.kind is EventKind.EDIT and e.round == until:
                target = p
    chain: list[str] = []
    cited = [empty[0][1]] if empty else []
    reached = False  # a look-up listed the file the first change went to
    for cmd, listed, rnd in hits:
        used = [p for p in listed if worked.get(p, 0) >= rnd]
        reached = reached or target in used
        if used:
            more = len(listed) - len(used)
            chain.append(f"{cmd} → {', '.join(used[:2])}{f' (+{more})' if more > 0 else ''}")
            cited.append(rnd)
    if not chain and not empty:
        return None, []
    parts: list[str] = []
    if empty:
        places = _roots(where)
        shown = [cmd for cmd, _ in empty[-1:]]
        more = len(empty) - len(shown)
        parts.append(f"nothing{' under ' + ', '.join(places[:3]) if places else ''} "
                     f"({', '.join(shown)}{f', +{more}' if more else ''})")
    parts.extend(chain[-3:])
    head = f"Located `{target}`" if target and chain and reached else "Searched"
    return f"{head}: " + " → ".join(parts), sorted({cited[0], cited[-1]})


def _shortest_path(line: str) -> str | None:
    """A located file's search line with its first step and its last only (where nothing was found, the
    look-up that found the file): the path a successor must not walk again, in half the room."""
    head, _, rest = line.partition(": ")
    steps = rest.split(" → ")
    if not head.startswith("Located") or len(steps) <= 3:
        return None
    return f"{head}: {steps[0]} → … → {' → '.join(steps[-2:])}"




def _searched(command: str, cwd: str | None) -> list[str]:
    """The places a look-up searched: in each look-up of the line (`which x; ls dir/*.icns`, not an
    `echo` after `||`), the arguments of its pipeline's first stage shaped like paths (not options,
    patterns or globs)."""
    return [p for head in pipeline_heads(command) if LOOKUP_RE.match(head) for p in _places(raw_words(head), cwd)]


def _places(words: list[str], cwd: str | None) -> list[str]:
    """The place arguments of one simple command's words; for grep-like commands the first plain
    argument is the pattern."""
    if not words or words[0] == "which":  # `which` searches PATH for the programs it names
        return []
    out: list[str] = []
    pattern_first = words[0] in ("grep", "rg", "ag", "git")
    skip = False
    for w in unredirected(words[1:])[0]:  # where output goes is not a place searched
        if w in ("-exec", "-execdir", "-ok", "-okdir"):  # the command `find` runs on what it found: no place
            break
        if skip:
            skip = False
            continue
        if w.startswith("-"):
            skip = w in _OPTION_ARGS
            continue
        if w[0] in "\"'" or any(c in w for c in "*?[]{}$"):
            pattern_first = False  # a quoted or glob word is the pattern: the words after it are places
            continue
        if pattern_first and w != "grep":
            pattern_first = False
            if "/" not in w:
                continue
        out.append(display_path(w, cwd).rstrip("/") or w)
    return out


def _roots(places: list[str]) -> list[str]:
    """The places without those inside another one (`src`, not `src/lib` and `src/libponyc`)."""
    uniq = sorted(dict.fromkeys(places), key=len)  # first seen first among equals: the same line every run
    out: list[str] = []
    for p in uniq:
        if not any(p == r or p.startswith(r.rstrip("/") + "/") for r in out):
            out.append(p)
    return [p if p in (".", "/") or _FILE_RE.search(p) else p + "/" for p in out]


def _relative_command(lookup: str, cwd: str | None) -> str:
    """A look-up as run, the project's absolute root shown as `.`."""
    if cwd and len(cwd) > 1 and cwd in lookup:
        return lookup.replace(cwd.rstrip("/") + "/", "").replace(cwd.rstrip("/"), ".")
    return lookup


def _listed(output: str, cwd: str | None) -> list[str]:
    """The paths a look-up's output lists (the path of each `path:line:` match), relative, once each."""
    return list(dict.fromkeys(display_path(m.group(0).split(":", 1)[0].strip(), cwd)
                              for m in PATH_LINE_RE.finditer(output[:4000])))


def _reported(arguments: dict, result: str) -> bool:
    """A call whose result is a report (headings over several sections), not a file or an output."""
    return len(result) > 1500 and result.count("\n#") >= 3 or (
        isinstance(arguments.get("prompt"), str) and len(result) > 400)


def _delegated(arguments: dict, messages: list) -> bool:
    """Another agent did the work: the call passed it a prompt, or its own tool calls are echoed in
    the round (a client that inlines the sub-agent's trace marks those messages as the harness's)."""
    if isinstance(arguments.get("prompt"), str) and len(arguments["prompt"]) > 40:
        return True
    return any(m.harness and m.tool_calls for m in messages)
