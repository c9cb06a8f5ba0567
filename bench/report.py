"""The report: results.json, report.md (tables + per-transcript losses), retention.png, time_by_size.png,
and a short README table."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from bench.harness import CLASSES, METHODS
from compaction.atomic import write_text_atomic

LABEL = {"modified_files": "modified files", "error_ids": "error identifiers", "commands": "state-changing commands",
         "numbers": "reported numbers", "task": "task request", "markers": "planted markers", "todos": "todos / next steps",
         "error_evidence": "error evidence (id or raw name)", "task_opening": "task opening (20 words)",
         "patch_files": "modified files, whole final patch"}
METHOD_LABEL = {"ours": "ours", "recent": "recent tokens", "head_tail": "head+tail", "tfidf": "TF-IDF (seed)"}
INFO = ("patch_files", "error_evidence", "task_opening")


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{x * 100:.1f}%"


def _cell(agg: dict[str, Any], method: str, b: int, cls: str) -> float | None:
    entry = agg.get(f"{method}@{b}")
    return None if entry is None else entry["classes"][cls]["pooled"]


def _budgets(results: dict[str, Any]) -> list[int]:
    return [int(round(b * 100)) for b in results["budgets"]]


def main_table(results: dict[str, Any]) -> str:
    agg = results["aggregate"]
    head = "| fact class | budget | expected | " + " | ".join(METHOD_LABEL[m] for m in METHODS) + " | ours ≥ all |"
    lines = [head, "|" + "---|" * (len(METHODS) + 4)]
    for cls in CLASSES + INFO:
        for b in _budgets(results):
            vals = [_cell(agg, m, b, cls) for m in METHODS]
            expected = agg[f"ours@{b}"]["classes"][cls]["expected"]
            best = vals[0] is not None and all(v is None or vals[0] >= v - 1e-9 for v in vals[1:])
            name = LABEL[cls] + (" *(info)*" if cls in INFO else "")
            lines.append(f"| {name} | {b}% | {expected} | " + " | ".join(_pct(v) for v in vals)
                         + f" | {'yes' if best else '**no**'} |")
    for b in _budgets(results):
        vals = [agg[f"{m}@{b}"]["loss_total"] for m in METHODS]
        lines.append(f"| **information loss, all classes** | {b}% | "
                     f"{sum(agg[f'ours@{b}']['classes'][c]['expected'] for c in CLASSES)} | "
                     + " | ".join(_pct(v) for v in vals) + f" | {'yes' if vals[0] <= min(vals) + 1e-9 else '**no**'} |")
    return "\n".join(lines)


def budget_table(results: dict[str, Any]) -> str:
    agg = results["aggregate"]
    lines = ["| method | budget | within budget | mean output/input | modified-files precision | median seconds |",
             "|---|---|---|---|---|---|"]
    for m in METHODS:
        for b in _budgets(results):
            e = agg[f"{m}@{b}"]
            lines.append(f"| {METHOD_LABEL[m]} | {b}% | {e['within_budget']}/{e['n']} | {e['ratio_mean']:.3f} | "
                         f"{_pct(e['precision_mean']) if e['precision_mean'] is not None else '–'} | "
                         f"{e['seconds_median']:.3f} |")
    return "\n".join(lines)


def timing_table(results: dict[str, Any]) -> str:
    rows = results.get("timings") or []
    lines = ["| transcript | tokens | load ms | compact ms | one encode ms | compact/encode | (load+compact)/encode |",
             "|---|---|---|---|---|---|---|"]
    for t in sorted(rows, key=lambda t: t["tokens"]):
        lines.append(f"| {t['transcript']} | {t['tokens']:,} | {t['load_s'] * 1000:.0f} | {t['compact_s'] * 1000:.0f} | "
                     f"{t['encode_s'] * 1000:.0f} | {t['ratio_compact']:.2f} | {t['ratio_end_to_end']:.2f} |")
    if rows:
        lines.append(f"| **median** | | {statistics.median(t['load_s'] for t in rows) * 1000:.0f} | "
                     f"{statistics.median(t['compact_s'] for t in rows) * 1000:.0f} | "
                     f"{statistics.median(t['encode_s'] for t in rows) * 1000:.0f} | "
                     f"**{statistics.median(t['ratio_compact'] for t in rows):.2f}** | "
                     f"**{statistics.median(t['ratio_end_to_end'] for t in rows):.2f}** |")
    syn = results.get("synthetic")
    if syn and "error" not in syn:
        lines.append(f"| synthetic (1M) | {syn['tokens']:,} | {syn['load_s'] * 1000:.0f} | {syn['compact_s'] * 1000:.0f} | "
                     f"{syn['encode_s'] * 1000:.0f} | {syn['ratio_compact']:.2f} | "
                     f"{(syn['load_s'] + syn['compact_s']) / syn['encode_s']:.2f} |")
    return "\n".join(lines)


def losses_section(results: dict[str, Any]) -> str:
    out = []
    for r in sorted((r for r in results["runs"] if r["method"] == "ours"), key=lambda r: (r["transcript"], r["budget"])):
        lost = {c: s["lost"] for c, s in r["scores"].items() if s["lost"] and c in CLASSES}
        if not lost and r["within_budget"]:
            continue
        out.append(f"- **{r['transcript']} @ {int(round(r['budget'] * 100))}%** "
                   f"({r['tokens_after']:,}/{r['target']:,} tokens{'' if r['within_budget'] else ', OVER BUDGET'}):")
        if r["diagnosis"].get("crash"):
            out.append(f"  - engine crashed: {r['diagnosis']['crash'][0]}")
        for cls, items in lost.items():
            why = r["diagnosis"].get(cls) or items
            shown = "; ".join(str(x) for x in why[:6]) + (f"; … (+{len(why) - 6})" if len(why) > 6 else "")
            out.append(f"  - {LABEL[cls]} ({len(items)}/{r['scores'][cls]['expected']} lost): {shown}")
    return "\n".join(out) or "(none)"


def readme_table(results: dict[str, Any], budget: int = 10) -> str:
    agg = results["aggregate"]
    lines = [f"| kept at {budget}% of the tokens | " + " | ".join(METHOD_LABEL[m] for m in METHODS) + " |",
             "|---|" + "---|" * len(METHODS)]
    for cls in CLASSES:
        lines.append(f"| {LABEL[cls]} | " + " | ".join(_pct(_cell(agg, m, budget, cls)) for m in METHODS) + " |")
    lines.append("| **information loss (all)** | " + " | ".join(
        _pct(agg[f"{m}@{budget}"]["loss_total"]) for m in METHODS) + " |")
    timings = results.get("timings") or []
    tail = []
    if timings:
        tail.append(f"Median compaction time / one tiktoken encode of the same text: "
                    f"{statistics.median(t['ratio_compact'] for t in timings):.2f}×")
    syn = results.get("synthetic")
    if syn and "error" not in syn:
        tail.append(f"1M-token synthetic transcript: {syn['load_s'] + syn['compact_s']:.2f} s, "
                    f"peak {syn['peak_rss_mb']:.0f} MB")
    n = len({r["transcript"] for r in results["runs"]})
    return "\n".join(lines) + f"\n\n{n} real transcripts; " + "; ".join(tail) + ". Regenerate: `make bench`."


def charts(results: dict[str, Any], out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    agg = results["aggregate"]
    budgets = _budgets(results)
    panels = ["__total__", *CLASSES]
    fig, axes = plt.subplots(2, 4, figsize=(15, 7), sharex=True, sharey=True)
    for ax, cls in zip(axes.flat, panels, strict=True):
        for m in METHODS:
            if cls == "__total__":
                ys = [1 - agg[f"{m}@{b}"]["loss_total"] for b in budgets]
            else:
                ys = [_cell(agg, m, b, cls) for b in budgets]
                ys = [float("nan") if y is None else y for y in ys]
            ax.plot(budgets, [y * 100 for y in ys], marker="o", label=METHOD_LABEL[m], lw=2.2 if m == "ours" else 1.2)
        ax.set_title("all fact classes" if cls == "__total__" else LABEL[cls], fontsize=10)
        ax.set_xticks(budgets)
        ax.set_ylim(-3, 103)
        ax.grid(alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("budget (% of transcript tokens)")
    for ax in axes[:, 0]:
        ax.set_ylabel("facts retained (%)")
    axes.flat[0].legend(fontsize=8, loc="lower right")
    fig.suptitle("Retention by budget: our compaction vs baselines (real transcripts)")
    fig.tight_layout()
    p1 = out / "retention.png"
    fig.savefig(p1, dpi=110)
    plt.close(fig)

    timings = results.get("timings") or []
    syn = results.get("synthetic")
    if not timings and not (syn and "error" not in syn):
        return [p1]  # timing skipped (--no-timing --no-synthetic): no time chart
    fig, ax = plt.subplots(figsize=(7.5, 5))
    xs = [t["tokens"] for t in timings]
    ax.scatter(xs, [t["compact_s"] for t in timings], label="compaction (ours)", zorder=3)
    ax.scatter(xs, [t["encode_s"] for t in timings], marker="x", label="one tiktoken encode", zorder=3)
    ax.scatter(xs, [t["load_s"] + t["compact_s"] for t in timings], marker="^", s=18, label="load + compaction")
    if syn and "error" not in syn:
        ax.scatter([syn["tokens"]], [syn["compact_s"]], color="C0", edgecolor="k", s=70, label="synthetic 1M: compaction")
        ax.scatter([syn["tokens"]], [syn["encode_s"]], color="C1", marker="x", s=70)
        ax.scatter([syn["tokens"]], [syn["load_s"] + syn["compact_s"]], color="C2", marker="^", s=40)
        ax.axhline(3.0, color="r", ls="--", lw=1, label="3 s target for load + compaction of 1M tokens")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("transcript tokens")
    ax.set_ylabel("seconds (best of 5)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    ax.set_title("Time by transcript size")
    fig.tight_layout()
    p2 = out / "time_by_size.png"
    fig.savefig(p2, dpi=110)
    plt.close(fig)
    return [p1, p2]


def write(results: dict[str, Any], out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "results.json", "md": out / "report.md", "readme": out / "README_table.md"}
    write_text_atomic(paths["json"], json.dumps(results, indent=1, default=str))
    meta = results.get("meta", {})
    notes = meta.get("notes") or []
    md = [
        "# Compaction evaluation",
        "",
        f"Generated {meta.get('generated', '')} by `python -m bench` (`make bench`) on {len(results['copies'])} real "
        "transcripts from `../shared/transcripts`, each compacted at 5%, 10% and 20% of its tokens. "
        "Scored on copies with the harness-appended patches removed and three markers planted in the first third "
        "(assistant text, user text, tool output). Expected facts come from an independent scan (`bench/facts.py`). "
        "Percentages are pooled: facts retained / facts expected over all transcripts.",
        "",
        *[f"> {n}" for n in notes],
        "",
        "## Retention by fact class and budget",
        "",
        main_table(results),
        "",
        "Scoring: *ours* counts a modified file only when it is listed in the summary's modified-files section "
        "(baselines have no sections: anywhere in their text); markers only in the summary part (before the "
        "verbatim tail); every other class anywhere in the output. *(info)* rows are not part of the total: "
        "'whole final patch' also counts files that no agent action wrote (environment set-up), 'error evidence' "
        "accepts the raw exception name instead of the ERR_* id (fairer to the baselines).",
        "",
        "## Budgets, compression and precision",
        "",
        budget_table(results),
        "",
        "## Timing (compaction vs one tiktoken encode of the same text, same run)",
        "",
        timing_table(results),
        "",
        "## Where ours still loses facts",
        "",
        "Per transcript and budget, with the harness's automatic reading (engine never detected the fact, or "
        "detected it and dropped it). The hand-written diagnosis and proposed engine changes are in "
        "`diagnosis.md` (dated; not regenerated).",
        "",
        losses_section(results),
        "",
        "## README table",
        "",
        readme_table(results),
        "",
    ]
    if results.get("more_agents"):
        md += [more_agents_section(results["more_agents"]), ""]
    write_text_atomic(paths["md"], "\n".join(md))
    write_text_atomic(paths["readme"], readme_table(results) + "\n")
    try:
        for p in charts(results, out):
            paths[p.stem] = p
    except ImportError:  # matplotlib is a bench-only extra
        pass
    return paths


README_BEGIN, README_END = "<!-- results:begin -->", "<!-- results:end -->"


def update_readme(readme: Path, table: str) -> bool:
    """Put the short results table between the README's results markers (atomically); False when the
    README has no markers."""
    from compaction.atomic import write_text_atomic

    text = readme.read_text(encoding="utf-8")
    start, end = text.find(README_BEGIN), text.find(README_END)
    if start < 0 or end < start:
        return False
    write_text_atomic(readme, text[: start + len(README_BEGIN)] + "\n" + table.strip() + "\n" + text[end:])
    return True


# --------------------------------------------------------------------------- the 17 of more-agents

def _frac(kept: int, total: int) -> str:
    return "–" if not total else f"{kept}/{total} ({kept / total * 100:.0f}%)"


def _budget_cells(s: dict[str, Any], budgets: list[float]) -> list[str]:
    cells = []
    for b in budgets:
        sc = next((x for x in s["budgets"] if abs(x["budget"] - b) < 1e-9), None)
        if sc is None:
            cells.append("–")
        elif sc["error"]:
            cells.append("crash")
        else:
            cells.append(f"{'yes' if sc['within'] else '**no**'} ({sc['tokens']:,}/{sc['target']:,})")
    return cells


def _scored(s: dict[str, Any], budget: float) -> dict[str, Any] | None:
    return next((x for x in s["budgets"] if abs(x["budget"] - budget) < 1e-9), None)


def _session_rows(sessions: list[dict[str, Any]], budgets: list[float], scored: float) -> list[str]:
    pct = int(round(scored * 100))
    lines = [f"| session | format | read | messages | rounds | modified files kept @{pct}% | task opening @{pct}% | "
             f"markers kept @{pct}% | " + " | ".join(f"within {int(round(b * 100))}%" for b in budgets) + " |",
             "|---|---|---|---|---|---|---|---|" + "---|" * len(budgets)]
    for s in sessions:
        sc = _scored(s, scored)
        read = "yes" if s["read"] else f"**no** ({s['error']})"
        if s["read"] and s["error"]:
            read = f"yes; {s['error']}"
        files = _frac(len(sc["files_kept"]) if sc else 0, s["files_expected"])  # not read: nothing kept
        task = "yes" if sc and sc["task_kept"] else "**no**"
        markers = _frac(len(sc["markers_kept"]) if sc else 0, len(s["planted"]))
        lines.append(f"| {s['file']} | {s['format']} | {read} | {s['messages']} | {s['rounds']} | {files} | {task} | "
                     f"{markers} | " + " | ".join(_budget_cells(s, budgets)) + " |")
    return lines


def _format_rows(sessions: list[dict[str, Any]], budgets: list[float], scored: float) -> list[str]:
    pct = int(round(scored * 100))
    lines = [f"| format | sessions | read | messages | rounds | modified files kept @{pct}% | task opening @{pct}% | "
             f"markers kept @{pct}% | " + " | ".join(f"within {int(round(b * 100))}%" for b in budgets) + " |",
             "|---|---|---|---|---|---|---|---|" + "---|" * len(budgets)]
    for fmt in sorted({s["format"] for s in sessions}):
        rs = [s for s in sessions if s["format"] == fmt]
        sc = [x for x in (_scored(s, scored) for s in rs) if x]
        files = _frac(sum(len(x["files_kept"]) for x in sc), sum(s["files_expected"] for s in rs))
        within = [sum(1 for s in rs if (x := _scored(s, b)) and x["within"]) for b in budgets]
        lines.append(f"| {fmt} | {len(rs)} | {sum(s['read'] for s in rs)}/{len(rs)} | {sum(s['messages'] for s in rs)} | "
                     f"{sum(s['rounds'] for s in rs)} | {files} | {_frac(sum(x['task_kept'] for x in sc), len(rs))} | "
                     f"{_frac(sum(len(x['markers_kept']) for x in sc), sum(len(s['planted']) for s in rs))} | "
                     + " | ".join(f"{w}/{len(rs)}" for w in within) + " |")
    return lines


def _losses(sessions: list[dict[str, Any]], scored: float) -> list[str]:
    out = []
    for s in sessions:
        sc = _scored(s, scored)
        bits = []
        if sc and sc["error"]:
            bits.append(f"engine crashed: {sc['error']}")
        if sc and sc["files_lost"]:
            bits.append("files lost: " + ", ".join(sc["files_lost"][:8]) + (" …" if len(sc["files_lost"]) > 8 else ""))
        if sc and not sc["task_kept"]:
            bits.append(f"task opening lost: “{s['task_opening'][:80]}”")
        if sc and sc["markers_lost"]:
            bits.append("markers lost at: " + ", ".join(sc["markers_lost"]))
        if s["not_planted"]:
            bits.append("not planted (no such place): " + ", ".join(s["not_planted"]))
        if s["planting_notes"]:
            bits.append("; ".join(s["planting_notes"]))
        if bits:
            out.append(f"- **{s['file']}**: " + "; ".join(bits))
    return out


def more_agents_section(ma: dict[str, Any]) -> str:
    """The 17 sessions beside the 13: development sessions per format and per session, then each
    set-aside group in its own table (never in the development totals)."""
    budgets, scored = ma["budgets"], ma["scored_budget"]
    sessions = ma["sessions"]
    from bench.more_agents import DEVELOPMENT, GROUP_LABEL

    out = ["## The sessions of more-agents (`bench/ground_truth/more_agents.jsonl`)", "",
           "Each session is read as it is (read = at least one message), then a copy with five planted markers "
           "(user text, assistant text before and after a code block, tool output, tool-call arguments) is compacted "
           "at 5%, 10% and 20% of its tokens. A modified file is kept when its path, or its basename where no other "
           "file of the session shares it, appears in the document; the task opening is the first 20 words of the "
           "ground truth's excerpt, in order; a marker is kept when `@kind TOKEN` survives; within = document tokens "
           "≤ target."]
    if ma.get("without_set_aside"):
        out += ["", "> Run with `--without-set-aside`: the set-aside sessions were not read."]
    groups = [DEVELOPMENT] + sorted(g for g in {s["group"] for s in sessions} if g != DEVELOPMENT)
    for group in groups:
        rs = [s for s in sessions if s["group"] == group]
        if not rs:
            continue
        agg = ma["groups"][group]
        out += ["", f"### {GROUP_LABEL.get(group, group)}", ""]
        if group == DEVELOPMENT:
            out += _format_rows(rs, budgets, scored) + [""]
        out += _session_rows(rs, budgets, scored)
        within = ", ".join(f"{agg['within'][str(int(round(b * 100)))]}/{agg['sessions']} at {int(round(b * 100))}%"
                           for b in budgets)
        out += ["", f"Total ({GROUP_LABEL.get(group, group)} only): read {agg['read']}/{agg['sessions']}; modified files "
                f"kept {_frac(agg['files_kept'], agg['files_expected'])}; task opening kept "
                f"{_frac(agg['task_kept'], agg['sessions'])}; markers kept {_frac(agg['markers_kept'], agg['markers_planted'])}; "
                f"within budget {within}."]
        losses = _losses(rs, scored)
        if losses:
            out += ["", *losses]
    return "\n".join(out)
