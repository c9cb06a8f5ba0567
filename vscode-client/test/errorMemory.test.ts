import { describe, expect, it } from 'vitest';
import { checkWarnings, errorMemoryMarkdown, warningLine } from '../src/errorMemory';

describe('checkWarnings', () => {
  it('passes explicit warnings through', () => {
    expect(checkWarnings({ warnings: [{ id: 'ERR_PY_KeyError', line: 3, reason: 'os.environ[...]' }] })).toEqual([
      { id: 'ERR_PY_KeyError', line: 3, reason: 'os.environ[...]' },
    ]);
  });

  it('turns matching records into the seed warning line', () => {
    const w = checkWarnings({ matches: [{ id: 'ERR_PY_KeyError', avoidance: 'use os.environ.get with a default' }, { id: 'ERR_TOOL_X' }] });
    expect(w).toEqual([
      { id: 'ERR_PY_KeyError', reason: '⚠️ Detected historical error ERR_PY_KeyError, avoidance: use os.environ.get with a default' },
      { id: 'ERR_TOOL_X', reason: '⚠️ Detected historical error ERR_TOOL_X, avoidance: see the error memory' },
    ]);
  });

  it('is empty for no reply or no match', () => {
    expect(checkWarnings(undefined)).toEqual([]);
    expect(checkWarnings({ matches: [] })).toEqual([]);
  });

  it('prefers avoidance, then solution, for the advice', () => {
    expect(warningLine({ id: 'E', solution: 'fixed by X' })).toBe('⚠️ Detected historical error E, avoidance: fixed by X');
  });
});

describe('errorMemoryMarkdown', () => {
  it('shows a placeholder for an empty memory', () => {
    expect(errorMemoryMarkdown('')).toContain('No records yet');
    expect(errorMemoryMarkdown('## Error Memory\n- ERR_PY_KeyError')).toBe('## Error Memory\n- ERR_PY_KeyError');
  });
});
