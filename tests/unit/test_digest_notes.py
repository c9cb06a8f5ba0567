"""What a written file says it does, in its own words: its docstrings' first lines, the comment atop a
definition or atop the file; never a directive, a licence, commented-out code or a line comment inside a
body (issue 14 item 1: a change record says what the new code does, not only what it defines)."""

from __future__ import annotations

from compaction.edits import digest

PY = '''#!/usr/bin/env python3
# Sync the AFI repositories into one workspace
# -*- coding: utf-8 -*-
import os


class AIFallbackManager:
    def __init__(self):
        # Read keys from settings
        self.providers = ['openai', 'groq']

    def generate_content(self, prompt):
        """
        Attempts to generate content using providers in order of fallback.
        """
        # self.cache = build_cache(prompt, 3)
        return prompt


def parse_years(text):
    """Extracts the years of experience a job asks for."""
    query = """SELECT years FROM jobs"""
    return 0
'''

JS = '''// SPDX-License-Identifier: MIT
/* eslint-disable no-console */
const x = 1;

/**
 * Cryptographically secure random, from the OS's entropy via Web Crypto.
 */
function randomInRange(min, max) {
  // clamp first
  return min;
}
'''


def test_docstrings_then_the_comment_atop_the_file_are_what_the_code_says_of_itself():
    d = digest(PY.splitlines())
    assert d.notes == ("Attempts to generate content using providers in order of fallback.",
                       "Extracts the years of experience a job asks for.",
                       "Sync the AFI repositories into one workspace")
    assert "parse_years" in d.names and "SELECT years FROM jobs" not in d.notes


def test_a_doc_comment_above_a_definition_counts_and_directives_and_inner_comments_do_not():
    d = digest(JS.splitlines())
    assert d.notes == ("Cryptographically secure random, from the OS's entropy via Web Crypto.",)


def test_a_document_has_no_notes_its_headings_say_it():
    assert digest(["# Title", "", "<!-- a comment of the page -->", "## Usage"], document=True).notes == ()



def test_a_triple_quoted_string_that_is_no_docstring_hides_no_definition():
    query = 'QUERY = """\nSELECT 1\n"""\ndef run():\n    """Runs the query."""\n    pass\n'
    d = digest(query.splitlines())
    assert d.names == ("QUERY", "run") and d.notes == ("Runs the query.",)
    two = 'def a():\n    """First line of a\n    across lines."""\n    return 1\n\ndef b():\n    """Docstring of b says so."""\n'
    assert digest(two.splitlines()).notes == ("First line of a", "Docstring of b says so.")
