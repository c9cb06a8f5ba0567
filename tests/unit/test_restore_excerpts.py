"""Excerpts within a token budget, cut at whole functions/classes, never mid-line."""

from __future__ import annotations

import ast

from compaction import tokens
from restore.excerpts import make_excerpt


def _py_module(n: int) -> str:
    parts = ['"""Module docstring."""\n\nimport os\n\n']
    for i in range(n):
        parts.append(f"@decorator\ndef func_{i}(a, b):\n    # compute {i}\n" + "".join(
            f"    x{j} = a + b * {j}  # step {j} of func_{i}\n" for j in range(12)) + "    return x0\n\n\n")
    parts.append("class Big:\n" + "".join(
        f"    def method_{k}(self):\n" + "".join(f"        y{j} = {j} * {k}\n" for j in range(15)) +
        "        return y0\n\n" for k in range(20)))
    return "".join(parts)


def _body_lines(excerpt_text: str, marker: str) -> list[str]:
    return [ln for ln in excerpt_text.splitlines() if not ln.lstrip().startswith(f"{marker} …")]


def test_small_file_whole() -> None:
    text = "def f():\n    return 1\n"
    ex = make_excerpt("a.py", text, 5000)
    assert ex.text == text and not ex.truncated and ex.tokens == tokens.count(text)


def test_python_cut_at_whole_functions_within_budget() -> None:
    text = _py_module(40)
    budget = 1200
    ex = make_excerpt("mod.py", text, budget)
    assert ex.truncated and ex.tokens <= budget and ex.file_tokens > budget
    # every kept line is a whole line of the original, in order
    original = text.splitlines()
    body = _body_lines(ex.text, "#")
    pos = 0
    for ln in body:
        pos = original.index(ln, pos) + 1
    # kept functions are complete: each `def func_i` is followed by its return within the excerpt
    tree_text = "\n".join(body)
    tree = ast.parse(tree_text)  # the excerpt minus markers is still valid Python
    funcs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert funcs and all(len(f.body) == 13 for f in funcs)
    assert ex.omitted and "func_" in " ".join(ex.omitted)


def test_python_large_class_split_into_methods() -> None:
    text = "class Only:\n" + "".join(
        f"    def m{k}(self):\n" + "".join(f"        v{j} = {j}\n" for j in range(30)) + "        return v0\n\n"
        for k in range(30))
    ex = make_excerpt("c.py", text, 800)
    assert ex.tokens <= 800
    tree = ast.parse("\n".join(_body_lines(ex.text, "#")))
    cls = tree.body[0]
    assert isinstance(cls, ast.ClassDef) and len(cls.body) >= 2
    assert all(len(m.body) == 31 for m in cls.body if isinstance(m, ast.FunctionDef))


def test_brace_language_whole_blocks() -> None:
    funcs = [f"export function handler{i}(req, res) {{\n" + "".join(
        f"  const v{j} = req.body.x{j} ?? {j};\n" for j in range(10)) + "  res.json({ ok: true });\n}\n\n"
        for i in range(30)]
    text = "import express from 'express';\n\n" + "".join(funcs)
    ex = make_excerpt("routes/api.ts", text, 700)
    assert ex.language == "typescript" and ex.tokens <= 700
    body = "\n".join(_body_lines(ex.text, "//"))
    assert body.count("{") == body.count("}")  # no block cut in half
    assert body.count("export function") >= 2


def test_single_huge_unit_gives_whole_lines_from_the_top() -> None:
    text = "fn main() {\n" + "".join(f"    let v{j} = {j};\n" for j in range(2000)) + "}\n"
    ex = make_excerpt("src/main.rs", text, 300)
    assert ex.tokens <= 300 and ex.truncated
    lines = _body_lines(ex.text, "//")
    assert lines[0] == "fn main() {" and all(ln in text.splitlines() for ln in lines)


def test_zero_budget() -> None:
    ex = make_excerpt("a.py", "x = 1\n", 0)
    assert ex.text == "" and ex.tokens == 0 and ex.truncated


def test_python_column_scanner_matches_ast(monkeypatch) -> None:
    """Above AST_LIMIT the column scanner finds the same units as ast (and skips `def` in strings)."""
    from restore import excerpts

    text = _py_module(12) + 'DOC = """\ndef not_a_function():\n    pass\n"""\n\ndef last():\n    return 1\n'
    lines = text.splitlines(keepends=True)
    monkeypatch.setattr(excerpts, "AST_LIMIT", 10**9)
    by_ast = excerpts.top_chunks(lines, text, "python")
    monkeypatch.setattr(excerpts, "AST_LIMIT", 0)
    by_scan = excerpts.top_chunks(lines, text, "python")
    assert by_scan == by_ast
    assert not any("not_a_function" in label for _, _, label in by_scan)
    ex = make_excerpt("big.py", text, 900)
    assert ex.tokens <= 900
    ast.parse("\n".join(_body_lines(ex.text, "#")))
