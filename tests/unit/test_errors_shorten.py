"""A solution cut to fit keeps both sides of its change, its paths whole, its fix before its guess."""

from __future__ import annotations

import pytest

from compaction.errors.budget import solution_info
from compaction.errors.shorten import cut, fit, split_clauses

CHANGE = ("edited `TeamCreatorWizard.tsx` (r34): `<Text color={theme.text.secondary} marginTop={teamProviders.length"
          " > 0 ? 0 : 1}>` → `<Box marginTop={teamProviders.length > 0 ? 0 : 1}>`; then `npm run build -w"
          " @google/gemini-cli` passed (r35)")


def test_a_text_that_fits_is_untouched() -> None:
    assert fit(CHANGE, len(CHANGE)) == CHANGE


@pytest.mark.parametrize("width", [200, 160, 140, 120])
def test_a_change_keeps_its_new_side_and_its_file(width: int) -> None:
    short = fit(CHANGE, width, solution_info)
    assert len(short) <= width
    assert "`TeamCreatorWizard.tsx`" in short
    assert "→ `<Box marginTop" in short  # the new side: what the fix wrote
    assert short.count("`") % 2 == 0


def test_the_words_both_sides_share_go_first() -> None:
    short = fit(CHANGE, 210, solution_info)
    assert "`<Text color={theme.text.secondary} marginTop={teamProviders.length …` → " \
           "`<Box marginTop={teamProviders.length …`" in short
    assert short.endswith("then `npm run build -w @google/gemini-cli` passed (r35)")


def test_a_guess_goes_before_the_check_and_the_fix() -> None:
    text = ("edited `update_offsetbox_v2.py` (r51); then `python update_offsetbox_v2.py` passed (r52); "
            "the agent's guess: This is because I'm searching in lines which I already modified in place")
    short = fit(text, 100, solution_info)
    assert short == "edited `update_offsetbox_v2.py` (r51); then `python update_offsetbox_v2.py` passed (r52)"


def test_a_path_is_never_elided() -> None:
    text = ("re-read it with `read_file packages/cli/src/ui/components/TeamCreatorWizard.tsx` (r43), then edited "
            "`packages/cli/src/ui/components/TeamCreatorWizard.tsx` (r44): `{teamProviders.length > 0 && (` → "
            "`<Box marginTop={1}>`")
    short = fit(text, 150, solution_info)
    assert "`packages/cli/src/ui/components/TeamCreatorWizard.tsx`" in short
    assert len(short) <= 150


def test_semicolons_inside_code_or_quotes_separate_nothing() -> None:
    text = "edited `a.py` (r2): `x = 1; y = 2` → `x = 1`; the user said: “no; keep y”; then `make` passed (r3)"
    assert split_clauses(text) == ["edited `a.py` (r2): `x = 1; y = 2` → `x = 1`", "the user said: “no; keep y”",
                                   "then `make` passed (r3)"]


def test_a_cut_falls_between_words_and_outside_code() -> None:
    assert cut("Simplified the reader into a minimal parser of sessions", 40) == "Simplified the reader into a minimal…"
    assert cut("edited `a.py`: added `some_long_function_name(argument)`", 30) == "edited `a.py`: added…"


def test_a_short_change_is_read_whole_and_an_assignment_keeps_its_name() -> None:
    text = ("edited `config.py` (r3): `MAX_RETRIES = 3` → `MAX_RETRIES = 5`; then `pytest tests/test_config.py -q "
            "--maxfail=1` passed (r4); cause: the retries ran out before the service came up")
    assert "`MAX_RETRIES = 3` → `MAX_RETRIES = 5`" in fit(text, 110, solution_info)
    long_pair = ("edited `a.py` (r2): `self.timeout_seconds = compute_timeout(base, attempts, jitter=True)` → "
                 "`self.timeout_seconds = compute_timeout(base, attempts, jitter=False)`")
    assert "self.timeout_seconds" in fit(long_pair, 120, solution_info)


@pytest.mark.parametrize("path", ["C:\\Users\\me\\source\\repos\\app\\src\\WizardDialog.tsx",
                                  "/Users/me/My Projects/app/src/components/Wizard Dialog.tsx",
                                  "packages/cli/src/ui/components/TeamCreatorWizard.tsx", ".github/workflows/ci.yml"])
def test_windows_paths_and_paths_with_a_space_are_never_elided(path: str) -> None:
    text = f"re-read it with `cat {path}` (r4), then edited `{path}` (r5): `const a = 1;` → `const a = 2;`"
    assert f"`{path}`" in fit(text, len(text) - 10, solution_info)


def test_a_word_cut_never_leaves_a_code_span_open() -> None:
    short = cut("worked around it: “ran `git stash pop`, then rebuilt the index from scratch”", 39)
    assert short.count("`") % 2 == 0 and short.endswith("…")
