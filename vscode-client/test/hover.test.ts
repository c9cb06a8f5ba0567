import { describe, expect, it } from 'vitest';
import { MarkdownString } from 'vscode';
import { trustHover, TRUSTED_COMMANDS } from '../src/hover';

describe('trustHover', () => {
  it('trusts Markdown for the error-memory commands only', () => {
    const md = new MarkdownString('**ERR_PY_KeyError** [Resolve](command:compaction.errorMemory.resolve?%5B%5D)');
    const hover = trustHover({ contents: [md, 'plain'] as never });
    expect(hover?.contents[0]).toBe(md);
    expect(md.isTrusted).toEqual({ enabledCommands: TRUSTED_COMMANDS });
    expect([...TRUSTED_COMMANDS].sort()).toEqual(['compaction.errorMemory.forget', 'compaction.errorMemory.resolve']);
  });

  it('does not trust commands that change state or run work from a link', () => {
    for (const id of ['compaction.errorMemory.add', 'compaction.client.compact', 'compaction.client.addErrorNote', 'compaction.compact']) {
      expect(TRUSTED_COMMANDS).not.toContain(id);
    }
  });

  it('passes an empty hover through', () => {
    expect(trustHover(null)).toBeNull();
    expect(trustHover(undefined)).toBeUndefined();
  });
});
