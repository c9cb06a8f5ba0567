"""Token budget allocation (seed 003 §4): how a context window is shared between prompt parts.

Shares are kept in whole percent so they always sum to exactly 100: whatever a part gives up
goes to history and whatever a part gains comes from history (DESIGN.md §4).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

PARTS = ("system", "history", "error_memory", "tool_results", "output")
BASE = {"system": 10, "history": 50, "error_memory": 10, "tool_results": 20, "output": 10}
HIGH_UTILIZATION = 0.80  # above: tool results 20% -> 10%, error memory stays 10%
LOW_UTILIZATION = 0.50  # below: output 10% -> 15%; error memory 10% -> 5% without recent errors


@dataclass(frozen=True)
class BudgetShares:
    """Percent of the window per part; `rules` names the dynamic rules that applied."""

    system: int
    history: int
    error_memory: int
    tool_results: int
    output: int
    rules: tuple[str, ...] = ()

    def percent(self) -> dict[str, int]:
        d = asdict(self)
        d.pop("rules")
        return d

    def tokens(self, window: int) -> dict[str, int]:
        """Token budget per part; rounding remainders go to history so the parts sum to `window`."""
        pct = self.percent()
        out = {k: window * v // 100 for k, v in pct.items()}
        out["history"] += window - sum(out.values())
        return out


def allocate(utilization: float, recent_errors: bool = True) -> BudgetShares:
    """The shares for a context `utilization` (0..1 of the window in use before this prompt)."""
    s = dict(BASE)
    rules: list[str] = []

    def move(part: str, to: int) -> None:
        s["history"] += s[part] - to
        s[part] = to

    if utilization > HIGH_UTILIZATION:
        move("tool_results", 10)
        rules.append("utilization>80%: tool results 10%")
    elif utilization < LOW_UTILIZATION:
        move("output", 15)
        rules.append("utilization<50%: output 15%")
        if not recent_errors:
            move("error_memory", 5)
            rules.append("utilization<50%, no recent errors: error memory 5%")
    assert sum(s.values()) == 100
    return BudgetShares(**s, rules=tuple(rules))


def allocate_tokens(window: int, utilization: float, recent_errors: bool = True) -> dict[str, int]:
    return allocate(utilization, recent_errors).tokens(window)
