"""Round grouping follows DESIGN.md §4: one model turn per round; tool results never open one."""

from compaction.model import Message, Role, ToolResult, group_rounds


def _msgs(spec: str) -> list[Message]:
    roles = {"U": Role.USER, "A": Role.ASSISTANT, "T": Role.TOOL, "S": Role.SYSTEM, "H": Role.USER}
    out = []
    for i, tok in enumerate(spec.split()):
        msg = Message(index=i, role=roles[tok[0]], text=tok, harness=tok[0] == "H")
        if tok[0] == "T":
            msg.tool_results.append(ToolResult(content="out"))
        out.append(msg)
    return out


def _shape(spec: str) -> list[list[str]]:
    return [[m.text for m in r.messages] for r in group_rounds(_msgs(spec))]


def test_design_example_three_rounds():
    assert _shape("U1 A1 T1 A2 T2 U2 A3") == [["U1", "A1", "T1"], ["A2", "T2"], ["U2", "A3"]]


def test_split_assistant_records_stay_one_response():
    # Claude Code writes one record per content block; consecutive assistant records are one response.
    assert _shape("U1 A1 A1b T1 A2") == [["U1", "A1", "A1b", "T1"], ["A2"]]


def test_system_and_task_share_the_first_round():
    assert _shape("S0 U1 A1 T1 A2 T2") == [["S0", "U1", "A1", "T1"], ["A2", "T2"]]


def test_harness_echo_belongs_to_the_round_it_interrupts():
    assert _shape("U1 A1 H1 A2 T2") == [["U1", "A1", "H1"], ["A2", "T2"]]


def test_autonomous_run_has_as_many_rounds_as_steps():
    spec = "S0 U1 " + " ".join(f"A{i} T{i}" for i in range(1, 81))
    rounds = group_rounds(_msgs(spec))
    assert len(rounds) == 80
    assert [r.number for r in rounds] == list(range(1, 81))


def test_interactive_chat_counts_each_exchange():
    spec = " ".join(f"U{i} A{i}" for i in range(1, 31))
    assert len(group_rounds(_msgs(spec))) == 30
