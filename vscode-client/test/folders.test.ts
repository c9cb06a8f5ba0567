import { describe, expect, it } from 'vitest';
import { withWorkspaceFolder } from '../src/folders';

describe('withWorkspaceFolder', () => {
  it('names the active editor folder when the window has several folders', () => {
    expect(withWorkspaceFolder({ id: 'ERR_PY_KeyError' }, 2, '/w/second')).toEqual({ id: 'ERR_PY_KeyError', workspaceFolder: '/w/second' });
  });

  it('leaves single-folder windows and commands without an active editor alone', () => {
    const args = { transcript: 't.jsonl' };
    expect(withWorkspaceFolder(args, 1, '/w/only')).toBe(args);
    expect(withWorkspaceFolder(args, 3, undefined)).toBe(args);
  });

  it('keeps a folder the caller chose (a hover link names the record’s own store)', () => {
    const args = { id: 'ERR_PY_KeyError', workspaceFolder: '/w/first' };
    expect(withWorkspaceFolder(args, 2, '/w/second')).toBe(args);
  });
});
