import { describe, expect, it } from 'vitest';
import { editorStorage } from '../src/editorStorage';
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

describe('editorStorage', () => {
  it("names the workspace storage's chatSessions/ and the globalStorage folder from the extension's own folders", () => {
    expect(
      editorStorage('/u/.config/Code/User/workspaceStorage/abc123/compaction.compaction-vscode', '/u/.config/Code/User/globalStorage/compaction.compaction-vscode'),
    ).toEqual({ chatSessions: '/u/.config/Code/User/workspaceStorage/abc123/chatSessions', globalStorage: '/u/.config/Code/User/globalStorage' });
  });

  it('sends nothing without a workspace or for a relative path', () => {
    expect(editorStorage(undefined, 'relative/x')).toEqual({});
  });
});
