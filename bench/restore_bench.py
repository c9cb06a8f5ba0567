"""Restore-state benchmark: cold (scan + rank + excerpts + render) and warm (one file changed,
`invalidate`, rebuild) on a generated 10,000-file repository and on a real tree (this
environment's site-packages). Prints medians; targets: cold < 300 ms, warm < 30 ms (the seed asks
for < 2 s).

    .venv/bin/python bench/restore_bench.py [--files 10000] [--repeat 7] [--real PATH] [--git]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from compaction import tokens
from restore.render import render_markdown
from restore.state import build_restore_state
from restore.workspace import WorkspaceIndex

LAYOUT = [
    ("src/app/{pkg}/views_{i}.py", "def view_{i}(request):\n    return {i}\n" * 20),
    ("src/app/{pkg}/models.py", "class Model{i}:\n    id: int = {i}\n" * 15),
    ("web/src/routes/{pkg}/r{i}.ts", "export function r{i}() {{\n  return {i};\n}}\n" * 15),
    ("internal/{pkg}/svc_{i}.go", "package {pkg}\n\nfunc F{i}() int {{\n\treturn {i}\n}}\n" * 10),
    ("docs/{pkg}/page_{i}.md", "# page {i}\n\ntext\n" * 10),
    ("tests/{pkg}/test_{i}.py", "def test_{i}():\n    assert {i}\n" * 10),
    ("assets/{pkg}/data_{i}.json", '{{"k": {i}}}\n'),
]


def generate(root: Path, n_files: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    made = 0
    i = 0
    while made < n_files:
        pattern, body = LAYOUT[i % len(LAYOUT)]
        pkg = f"pkg{rng.randrange(200)}"
        rel = pattern.format(pkg=pkg, i=i)
        p = root / rel
        if not p.exists():
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(body.format(pkg=pkg, i=i))
            made += 1
        i += 1
    for rel, text in {"manage.py": "import sys\n", "src/app/urls.py": "urlpatterns = []\n",
                      "pytest.ini": "[pytest]\n", "ARCHITECTURE.md": "# arch\n",
                      ".gitignore": "*.log\n/build/\nassets/**/secret*\n"}.items():
        (root / rel).write_text(text)
    # ignored or skipped bulk that must cost nothing
    nm = root / "node_modules" / "dep"
    nm.mkdir(parents=True)
    for k in range(500):
        (nm / f"f{k}.js").write_text("x\n")


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


def measure(root: Path, repeat: int, use_git: bool | None, change: Path) -> dict:
    cold, cold_cpu, warm, warm_touch = [], [], [], []
    n_files = 0
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        idx = WorkspaceIndex(root, use_git=use_git)
        state = build_restore_state(root, index=idx)
        render_markdown(state)
        cold.append(_ms(t0))
        cold_cpu.append((time.process_time() - c0) * 1000)  # this process only (not git's), less load-sensitive
        n_files = len(idx)
    idx = WorkspaceIndex(root, use_git=use_git)
    build_restore_state(root, index=idx)
    original = change.read_text()
    try:
        for k in range(repeat):
            change.write_text(original + f"\n# edit {k}\n")
            t0 = time.perf_counter()
            idx.invalidate([change])
            state = build_restore_state(root, index=idx)
            render_markdown(state)
            warm.append(_ms(t0))
            assert any(c.path == idx.rel(change) for c in state.core_files), "changed file must enter the five"
            t0 = time.perf_counter()
            idx.touch(change)
            render_markdown(build_restore_state(root, index=idx))
            warm_touch.append(_ms(t0))
    finally:
        change.write_text(original)
    return {
        "files_indexed": n_files,
        "git": "ls-files" if idx.git_used else ("status" if idx.in_git else "no"),
        "cold_ms_median": round(statistics.median(cold), 1),
        "cold_ms_min": round(min(cold), 1),
        "cold_cpu_ms_median": round(statistics.median(cold_cpu), 1),
        "warm_ms_median": round(statistics.median(warm), 2),
        "warm_touch_ms_median": round(statistics.median(warm_touch), 2),
    }


def pick_change(root: Path) -> Path:
    """A core source file of the real tree to edit (a copy, so the environment is not modified)."""
    idx = WorkspaceIndex(root, use_git=False).ensure_scanned()
    for e in idx.core():
        if e.rel.endswith(".py") and e.size > 500 and e.cls is not None:
            return root / e.rel
    raise SystemExit(f"no Python core file under {root}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--real", default=sysconfig.get_paths()["purelib"], help="a real tree (copied to a temp dir)")
    ap.add_argument("--git", action="store_true",
                    help="also measure the generated repo as a git repository: our walk + `git ls-files -m` "
                         "(the default) and git's own file list (use_git=True)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    tokens.count("warm up the tokenizer")  # loading the BPE ranks is a one-off cost of the process
    results = {}
    with tempfile.TemporaryDirectory(prefix="restore-bench-") as tmp:
        gen = Path(tmp) / "generated"
        gen.mkdir()
        generate(gen, args.files)
        results["generated"] = measure(gen, args.repeat, False, gen / "src/app/urls.py")
        if args.git and shutil.which("git"):
            subprocess.run(["git", "-C", str(gen), "init", "-q"], check=True)
            subprocess.run(["git", "-C", str(gen), "add", "-A"], check=True)
            subprocess.run(["git", "-C", str(gen), "-c", "user.email=b@b", "-c", "user.name=b", "commit", "-qm", "x"],
                           check=True)
            results["gen_git_walk"] = measure(gen, args.repeat, None, gen / "src/app/urls.py")  # the default
            results["gen_git_lsfiles"] = measure(gen, args.repeat, True, gen / "src/app/urls.py")
        real = Path(tmp) / "real"
        shutil.copytree(args.real, real, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
        results["real"] = measure(real, args.repeat, False, pick_change(real))
        results["real"]["source"] = args.real
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"restore benchmark (cpu count {os.cpu_count()}, load {load:.1f}, python {sys.version.split()[0]}); "
              f"targets: cold < 300 ms, warm < 30 ms")
        for name, r in results.items():
            print(f"{name:15} files={r['files_indexed']:>6} git={r['git']:8} cold median {r['cold_ms_median']:7.1f} ms "
                  f"(min {r['cold_ms_min']:.1f}, cpu {r['cold_cpu_ms_median']:.1f})  warm median {r['warm_ms_median']:6.2f} ms  "
                  f"touch-only {r['warm_touch_ms_median']:6.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
