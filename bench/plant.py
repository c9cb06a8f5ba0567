"""Planted markers for the sessions of `more-agents/`: one marker line in each kind of place the
model saw text, written into an evaluation copy at the JSON string-leaf or Markdown line level.

Places: the user's text, the assistant's text just before AND just after a code block, a tool's
output, and a tool call's arguments (a todo item where the format has one). Kinds: @important,
@decision, @warning, @todo, so all four survive or not by where they sit, not by their keyword.
A place the session does not have is reported as not planted, never faked. Originals are never
touched; each copy stays a file of its format.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

from bench.copies import Marker

PLACES = ("user", "assistant_before_code", "assistant_after_code", "tool_output", "tool_args")
KIND_OF = {"user": "important", "assistant_before_code": "decision", "assistant_after_code": "decision",
           "tool_output": "warning", "tool_args": "todo"}
WORDS = {"user": "keep the public API unchanged", "assistant_before_code": "we write the fix in one module",
         "assistant_after_code": "the change above stays behind a flag", "tool_output": "the staging database must not be touched",
         "tool_args": "also update the changelog before finishing"}


@dataclass
class PlantedCopy:
    original: Path
    path: Path
    markers: list[Marker] = field(default_factory=list)  # those really planted
    missing: dict[str, str] = field(default_factory=dict)  # place -> why it could not be planted
    notes: list[str] = field(default_factory=list)


def make_markers(seed: str) -> dict[str, Marker]:
    """One marker per place, tokens reproducible from the file name."""
    rng = random.Random(f"more-agents:{seed}")
    out = {}
    for place in PLACES:
        kind = KIND_OF[place]
        token = f"BMK-{kind[:3].upper()}-{rng.getrandbits(40):010x}"
        out[place] = Marker(kind, place, f"@{kind} {token} {WORDS[place]}", token)
    return out


def family(fmt: str) -> str:
    """The planting family of a ground-truth `format` value."""
    for prefix, fam in (("claude-code", "claude-code"), ("codex", "codex"), ("gemini", "gemini"), ("pi-", "pi"),
                        ("antigravity", "antigravity"), ("cline", "cline"), ("aider", "aider"), ("specstory", "specstory")):
        if fmt.startswith(prefix):
            return fam
    raise ValueError(f"no marker planting for format {fmt!r}")


def prepare(original: Path, fmt: str, dest_dir: Path) -> PlantedCopy:
    """Write the planted evaluation copy of `original` into `dest_dir`."""
    from bench import plant_json, plant_markdown

    fam = family(fmt)
    markers = make_markers(original.name)
    dest = dest_dir / original.name
    copy = PlantedCopy(original, dest)
    text = original.read_text(encoding="utf-8")
    planter = plant_markdown.PLANTERS.get(fam) or plant_json.PLANTERS[fam]
    new_text, planted, notes = planter(text, markers)
    dest.write_text(new_text, encoding="utf-8")
    copy.markers = [markers[p] for p in PLACES if p in planted]
    copy.missing = {p: "no such place in this session" for p in PLACES if p not in planted}
    copy.notes = notes
    return copy
