"""Completed key actions: state-changing commands, test runs (with their counts) and commits; a
re-run command is one line with each distinct outcome and its round. A state-changing command that
succeeded says its closing summary line when it prints one ("2 files changed, 393 insertions(+)",
"Successfully installed …"): what was done, with what result."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from compaction.events import Event, EventKind, results_of_calls
from compaction.history.facts import Fact, cite, first_line
from compaction.history.sections import Section
from compaction.history.sources.findings import summary_line
from compaction.history.sources.registry import FactContext, fact_source
from compaction.model import Transcript


@dataclass(slots=True)
class _Runs:
    """One command line's runs, while they are folded."""

    fact: Fact
    command: str
    count: int = 1
    outcomes: list[tuple[int, str]] = field(default_factory=list)


@fact_source(Section.COMPLETED)
def completed_facts(ctx: FactContext) -> list[Fact]:
    code = ctx.preset.code
    facts: list[Fact] = []
    folded: OrderedDict[str, _Runs] = OrderedDict()
    outputs: dict[int, dict[str, str]] = {}  # round -> command -> output, paired once per round asked
    for e in ctx.events:
        if e.kind is EventKind.COMMIT:
            own = " (the user's edits)" if e.path else ""  # the file changed under the agent
            facts.append(Fact(Section.COMPLETED, f"Commit {(e.commit_hash or '')[:10]} “{e.text}”{own}", [e.round],
                              score=70))
        if e.kind is not EventKind.COMMAND or not e.command or e.search:
            continue
        is_test = e.test
        if not (e.state_changing or is_test):
            continue
        key = first_line(e.command)
        outcome = ""
        if is_test:
            summary = e.test_summary
            outcome = f" → {summary}" if summary else (f" → exit {e.exit_code}" if e.exit_code not in (None,) else "")
        elif e.exit_code not in (None, 0):
            outcome = f" → exit {e.exit_code}"
        elif e.state_changing and not e.failed:
            line = _summary_of(ctx.transcript, e, outputs)
            outcome = f" → {line}" if line else ""
        if key in folded:
            runs = folded[key]
            runs.fact.rounds.append(e.round)
            runs.count += 1
            if outcome and (not runs.outcomes or runs.outcomes[-1][1] != outcome):
                runs.outcomes.append((e.round, outcome))
            continue
        score = 60 if e.state_changing else 45
        if is_test and e.test_summary:
            score = 65
        folded[key] = _Runs(Fact(Section.COMPLETED, key, [e.round], score=score, test=bool(is_test)), e.command,
                            outcomes=[(e.round, outcome)] if outcome else [])
    for key, runs in folded.items():
        f = runs.fact
        times = f" ×{runs.count}" if runs.count > 1 else ""
        if len(runs.outcomes) > 1:  # every distinct result of a re-run command, each with its round
            outcome = "".join(f"{o} (r{r})" for r, o in runs.outcomes[-6:])
        else:
            outcome = runs.outcomes[0][1] if runs.outcomes else ""
        text = f"`{key}`{times}{outcome}" if code else f"Ran a {'test' if f.test else 'command'}{outcome}"
        f.text = f"{text} {cite(f.rounds)}"
        f.short = f"`{first_line(runs.command, 80)}` {cite(f.rounds[-1:])}" if code else None
        facts.append(f)
    facts.sort(key=lambda f: min(f.rounds))
    return facts


def _summary_of(transcript: Transcript, e: Event, outputs: dict[int, dict[str, str]]) -> str:
    """The closing summary line of the output of event `e`'s command (its round's calls paired with
    their results once, only for rounds with a state-changing command)."""
    by_command = outputs.get(e.round)
    if by_command is None:
        by_command = outputs[e.round] = {}
        rnd = transcript.rounds[e.round - 1] if 0 < e.round <= len(transcript.rounds) else None
        if rnd is not None and rnd.number == e.round:
            results = results_of_calls(rnd.messages)
            for msg in rnd.messages:
                for call in msg.tool_calls:
                    res = results.get(id(call))
                    if call.command and res is not None and res.content:
                        by_command[call.command.strip()] = res.content
    output = by_command.get((e.command or "").strip())
    return summary_line(output) if output else ""
