import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOOL_NAMES, TOOL_SPECS, compactCall, compactText, errorMemoryCall, errorMemoryText, restoreCall, restoreText } from '../src/agentRequests';

const manifest = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));

describe('language model tools in package.json', () => {
  const tools: { name: string; modelDescription: string; inputSchema: { properties: Record<string, unknown> } }[] = manifest.contributes.languageModelTools;

  it('declares exactly the tools the extension registers, each with a schema', () => {
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(TOOL_SPECS).sort());
    for (const t of tools) expect(t.inputSchema.properties).toBeTypeOf('object');
  });

  it('tells the model when to call each tool', () => {
    const by = Object.fromEntries(tools.map((t) => [t.name, t.modelDescription]));
    expect(by[TOOL_NAMES.restore]).toMatch(/after your conversation was compacted/);
    expect(by[TOOL_NAMES.errorMemory]).toMatch(/BEFORE you edit a file/);
    expect(by[TOOL_NAMES.compact]).toMatch(/when the user asks to compact/);
  });

  it('names only input properties that the mapping reads', () => {
    const compactProps = Object.keys(tools.find((t) => t.name === TOOL_NAMES.compact)!.inputSchema.properties).sort();
    expect(compactProps).toEqual(['instructions', 'role', 'targetTokens', 'transcript']);
  });

  it('requires VS Code 1.95 (stable lm tools) and no newer than 1.100', () => {
    expect(manifest.engines.vscode).toBe('^1.95.0');
    expect(manifest.devDependencies['@types/vscode']).toBe('1.95.0');
  });
});

describe('tool input → server command', () => {
  it("restore: the model's files win over the editor tabs; none at all sends no list", () => {
    expect(restoreCall({ openFiles: ['a.py', ''] }, ['/w/b.py'])).toEqual({ command: 'compaction.restore', args: { openFiles: ['a.py'] } });
    expect(restoreCall({}, ['/w/b.py']).args).toEqual({ openFiles: ['/w/b.py'] });
    expect(restoreCall(undefined, []).args).toEqual({});
  });

  it('error memory: files/text/commands are checked; nothing asks for the whole memory', () => {
    expect(errorMemoryCall({ files: ['src/app.py'], text: 'retry loop' })).toEqual({
      command: 'compaction.errorMemory.check',
      args: { text: 'retry loop', files: ['src/app.py'], commands: [], limit: 5 },
    });
    expect(errorMemoryCall({ text: '  ' })).toEqual({ command: 'compaction.errorMemory.export', args: {} });
  });

  it('compact: always confined (the path comes from a model), bad role and budget dropped', () => {
    expect(compactCall({ transcript: 's.jsonl', instructions: 'keep the API', role: 'tester', targetTokens: 2000 })).toEqual({
      command: 'compaction.compact',
      args: { confined: true, transcript: 's.jsonl', instructions: 'keep the API', role: 'tester', targetTokens: 2000 },
    });
    expect(compactCall({ role: 'boss' as never, targetTokens: -1 }).args).toEqual({ confined: true });
  });
});

describe('server reply → tool text', () => {
  it('quotes the warning lines with why each matched', () => {
    const text = errorMemoryText({ matches: [{ id: 'ERR_PY_KeyError', reason: 'file app.py', line: '⚠️ Detected historical error [ERR_PY_KeyError], avoidance: use .get' }] });
    expect(text).toContain('- ⚠️ Detected historical error [ERR_PY_KeyError], avoidance: use .get (matched: file app.py)');
    expect(errorMemoryText({ matches: [] })).toMatch(/No recorded error resembles/);
    expect(errorMemoryText({ markdown: '' })).toContain('_No records yet._');
  });

  it('compact names where the documents were written; restore never answers empty', () => {
    expect(compactText({ markdown: '# Summary\n', paths: { latest: '/w/.compaction/latest.md', restore: '/w/.compaction/restore.md' } })).toBe(
      '# Summary\n\n_Written to /w/.compaction/latest.md and /w/.compaction/restore.md._\n',
    );
    expect(restoreText({ markdown: '' })).toMatch(/No restore state/);
  });
});
