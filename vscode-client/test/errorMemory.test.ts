import { describe, expect, it } from 'vitest';
import { checkArgs, checkWarnings, errorMemoryMarkdown } from '../src/errorMemory';

describe('checkWarnings', () => {
  it('maps the server matches: id, why it matched, and the warning text from `line`', () => {
    // The shape compaction/errors/check.py Warning_.as_dict() sends.
    const reply = {
      matches: [
        {
          id: 'ERR_PY_KeyError',
          score: 8,
          reason: 'file config.py, symbol environ',
          advice: 'use os.environ.get with a default',
          line: '⚠️ Detected historical error ERR_PY_KeyError, avoidance: use os.environ.get with a default',
          rounds: [3, 7],
        },
      ],
    };
    expect(checkWarnings(reply)).toEqual([
      {
        id: 'ERR_PY_KeyError',
        reason: 'file config.py, symbol environ',
        message: '⚠️ Detected historical error ERR_PY_KeyError, avoidance: use os.environ.get with a default',
      },
    ]);
  });

  it('keeps the order the server ranked them in and drops entries without an id', () => {
    const w = checkWarnings({ matches: [{ id: 'B', line: 'b' }, { line: 'no id' } as never, { id: 'A', line: 'a' }] });
    expect(w.map((x) => x.id)).toEqual(['B', 'A']);
  });

  it('never treats `line` as a line number and falls back to the id when the text is missing', () => {
    const [w] = checkWarnings({ matches: [{ id: 'ERR_TOOL_X' }] });
    expect(w).toEqual({ id: 'ERR_TOOL_X', reason: '', message: 'ERR_TOOL_X' });
    expect(w).not.toHaveProperty('line');
  });

  it('is empty for no reply, no match, or a reply without matches', () => {
    expect(checkWarnings(undefined)).toEqual([]);
    expect(checkWarnings({ matches: [] })).toEqual([]);
    expect(checkWarnings({ warnings: [{ id: 'E', line: 3 }] } as never)).toEqual([]);
  });
});

describe('errorMemoryMarkdown', () => {
  it('shows a placeholder for an empty memory', () => {
    expect(errorMemoryMarkdown('')).toContain('No records yet');
    expect(errorMemoryMarkdown('## Error Memory\n- ERR_PY_KeyError')).toBe('## Error Memory\n- ERR_PY_KeyError');
  });
});

describe('checkArgs', () => {
  it('sends the selection as text and the file in files, never the language id as code', () => {
    const args = checkArgs('db = os.environ["DATABASE_URL"]', '/w/app/config.py');
    expect(args).toEqual({ text: 'db = os.environ["DATABASE_URL"]', files: ['/w/app/config.py'] });
    expect(args).not.toHaveProperty('code');
  });

  it('sends no file for an untitled document', () => {
    expect(checkArgs('x', undefined)).toEqual({ text: 'x', files: [] });
  });
});
