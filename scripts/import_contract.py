"""The layering contract of DESIGN.md §2, checked on the import graph (run by `make lint`).

Every import counts — at module level, inside a function, under `TYPE_CHECKING` — since each is a
dependency a reader must follow. Three rules:
  1. a module imports only its own layer or the layers below it (LAYERS, bottom first);
  2. nothing outside `lsp_server` imports `lsp_server`; in `compaction/` only the interfaces
     (`compaction.cli`, `compaction.mcp_server`) import `restore` (rule 1 says as much; named here
     because DESIGN.md names it);
  3. no import cycle between modules.
Why a script and not import-linter: the graph of ~150 modules is read with `ast` in a second, with
no dependency and no network; the rules above are all the contract needs.

    python scripts/import_contract.py [ROOT]     # exit 1 and one line per violation
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable
from pathlib import Path

PACKAGES = ("compaction", "restore", "lsp_server")
# Bottom first. A unit is a top-level module of `compaction` (`compaction.events`), a sub-package
# of it (`compaction.history`) or another top-level package (`restore`).
LAYERS: list[set[str]] = [
    {"compaction", "compaction.memo", "compaction.model", "compaction.atomic", "compaction.redact", "compaction.memory_config",
     "compaction.config", "compaction.transcripts", "compaction.trust", "compaction.statedir",
     "compaction.escape", "compaction.mdsafe"},
    {"compaction.shell", "compaction.git_output", "compaction.literal_heads", "compaction.edits", "compaction.line_views", "compaction.data_leaves",
     "compaction.edit_owner", "compaction.events", "compaction.tokens", "compaction.store",
     "compaction.cache",
     "compaction.lexical", "compaction.budget", "compaction.llm", "compaction.shipped", "compaction.discovery",
     "compaction.confine", "compaction.agent_compaction", "compaction.answer_options", "compaction.template_noise",
     "compaction.command_diff"},
    {"compaction.errors", "compaction.summarize"},
    {"compaction.summary", "compaction.history", "compaction.blocks", "compaction.memory"},
    {"restore"},
    {"compaction.cli", "compaction.mcp_server", "lsp_server"},
]
INTERFACES = {"compaction.cli", "compaction.mcp_server", "lsp_server"}


def modules(root: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The module an imported name lives in (`compaction.errors.fit_budget` -> `compaction.errors`)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
                pkg = pkg[: len(pkg) - (node.level - 1)]
                base = ".".join([*pkg, *([node.module] if node.module else [])])
            names = [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        out.update(r for r in (_resolve(n, known) for n in names) if r and r != module)
    return out


def unit(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "compaction" else parts[0]


def layer_of(u: str) -> int | None:
    return next((i for i, layer in enumerate(LAYERS) if u in layer), None)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on:
                    low[v] = min(low[v], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def violations(root: Path) -> list[str]:
    known = modules(root)
    graph = {m: imports(m, p, known) for m, p in known.items()}
    out: list[str] = []
    for m, targets in sorted(graph.items()):
        src = unit(m)
        src_layer = layer_of(src)
        if src_layer is None:
            out.append(f"{m}: its unit {src} has no layer in scripts/import_contract.py LAYERS")
            continue
        for t in sorted(targets):
            dst = unit(t)
            if dst == src:
                continue
            dst_layer = layer_of(dst)
            if dst_layer is None:
                out.append(f"{m}: imports {t}, whose unit {dst} has no layer")
            elif dst == "lsp_server" or (dst in INTERFACES and src not in INTERFACES):
                out.append(f"{m}: imports the interface {t} (nothing imports an interface)")
            elif dst_layer > src_layer:
                out.append(f"{m} (layer {src_layer}) imports {t} (layer {dst_layer}): dependencies point down")
    out += [f"import cycle: {' -> '.join(c)}" for c in _cycles(graph)]
    return out


def main(argv: Iterable[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    root = Path(args[0]) if args else Path(__file__).resolve().parents[1]
    found = violations(root)
    for line in found:
        print(line)
    print(f"import contract: {len(found)} violation(s)", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
