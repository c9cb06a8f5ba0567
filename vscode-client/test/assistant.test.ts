import { describe, expect, it } from 'vitest';
import { assistantBlock, compactedMessage, coreFilePaths } from '../src/assistant';

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
