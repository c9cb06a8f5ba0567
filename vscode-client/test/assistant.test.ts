import { describe, expect, it } from 'vitest';
import { assistantBlock, compactedMessage, coreFilePaths, coreFilesFromRestoreMarkdown, writtenRestorePath } from '../src/assistant';

describe('assistantBlock', () => {
  it('puts the summary and the restore state in one tagged block, in that order', () => {
    const block = assistantBlock('# Summary\n\n- goal\n', '# Restore\ncwd: /w\n');
    expect(block).toBe('<compaction-summary>\n# Summary\n\n- goal\n</compaction-summary>\n\n<restore-state>\n# Restore\ncwd: /w\n</restore-state>\n');
  });
});

describe('compactedMessage', () => {
  it('reports tokens saved and time from camelCase or snake_case stats', () => {
    const msg = 'Compacted 48,210 → 3,120 tokens (−94%) in 85 ms. Summary and restore state opened.';
    expect(compactedMessage({ tokensBefore: 48210, tokensAfter: 3120, elapsedMs: 85.2 })).toBe(msg);
    expect(compactedMessage({ tokens_before: 48210, tokens_after: 3120, elapsed_ms: 85.2 })).toBe(msg);
  });

  it('says a document that grew grew, with a plus sign', () => {
    expect(compactedMessage({ tokensBefore: 1112, tokensAfter: 1178 })).toBe(
      'Compacted 1,112 → 1,178 tokens (+6%). Summary and restore state opened.',
    );
  });

  it('appends the server note (e.g. too few rounds)', () => {
    expect(compactedMessage(undefined, 'Only 4 rounds: returned unchanged.')).toBe(
      'Compacted. Summary and restore state opened. Only 4 rounds: returned unchanged.',
    );
  });
});

describe('coreFilePaths', () => {
  it('accepts strings or objects with a path, deduplicated', () => {
    expect(coreFilePaths({ coreFiles: ['a.py', { path: 'b.py' }, { absPath: '/w/c.py', path: 'c.py' }, 'a.py'] })).toEqual(['a.py', 'b.py', '/w/c.py']);
    expect(coreFilePaths({ core_files: [{ path: 'x.ts' }] })).toEqual(['x.ts']);
    expect(coreFilePaths(null)).toEqual([]);
    expect(coreFilePaths({ coreFiles: 'nope' })).toEqual([]);
  });
});

describe('writtenRestorePath', () => {
  it('is the restore document the compaction wrote (paths.restore of the compact reply)', () => {
    expect(writtenRestorePath({ paths: { restore: '/w/.compaction/restore.md' } })).toBe('/w/.compaction/restore.md');
  });

  it('is undefined when the reply names none, so the client asks compaction.restore instead', () => {
    expect(writtenRestorePath(undefined)).toBeUndefined();
    expect(writtenRestorePath({})).toBeUndefined();
    expect(writtenRestorePath({ paths: { restore: ' ' } })).toBeUndefined();
  });
});

describe('coreFilesFromRestoreMarkdown', () => {
  // As restore/render.py writes it (from an end-to-end run).
  const md = [
    '# Restore state',
    '',
    '**Working directory:** `/w/proj` (recorded in the transcript as `/home/someone/proj`)',
    '',
    '## Open files (from the editor)',
    '- `app/main.py`',
    '',
    '## Core files (the 5 most recently modified)',
    '1. `app/main.py` — entry point (modified 2026-11-30 03:07 UTC; changed (watcher))',
    '2. `app/config.py` — core business logic (modified 2026-11-30 03:07 UTC; edited in round 4)',
    '',
    '## Unfinished tasks',
    '1. `docs/x.md` — not a core file',
    '',
  ].join('\n');

  it('lists the core files in order and nothing from the sections after them', () => {
    expect(coreFilesFromRestoreMarkdown(md)).toEqual(['app/main.py', 'app/config.py']);
  });

  it('reads the Chinese document too (same line shape) and is empty without core files', () => {
    expect(coreFilesFromRestoreMarkdown('## 核心文件（最近修改的 5 个）\n1. `a.py` — 入口\n')).toEqual(['a.py']);
    expect(coreFilesFromRestoreMarkdown('## Core files\n(none)\n')).toEqual([]);
  });
});
