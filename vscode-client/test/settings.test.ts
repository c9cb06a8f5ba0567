import { describe, expect, it } from 'vitest';
import { affectsServer, clientSettings, needsRestart, serverSettings, SERVER_KEYS, type ConfigLike } from '../src/settings';

function cfg(values: Record<string, unknown>): ConfigLike {
  return { get: <T>(key: string) => values[key] as T | undefined };
}

describe('serverSettings', () => {
  it('nests dotted keys in camelCase like the server model', () => {
    const out = serverSettings(
      cfg({
        contextWindow: 200000,
        triggerRatio: 0.8,
        keepRecent: 3,
        role: 'tester',
        lang: 'zh',
        'restore.coreFiles': 7,
        'restore.totalTokens': 12000,
        'llm.enabled': true,
        'llm.baseUrl': 'http://localhost:11434/v1',
        'diagnostics.recurring': 'error',
        'watch.exclude': ['build'],
      }),
    );
    expect(out).toEqual({
      contextWindow: 200000,
      triggerRatio: 0.8,
      keepRecent: 3,
      role: 'tester',
      lang: 'zh',
      restore: { coreFiles: 7, totalTokens: 12000 },
      llm: { enabled: true, baseUrl: 'http://localhost:11434/v1' },
      diagnostics: { recurring: 'error' },
      watch: { exclude: ['build'] },
    });
  });

  it('leaves out unset, null and blank values so the server defaults apply', () => {
    expect(serverSettings(cfg({ model: null, contextWindow: undefined, 'llm.baseUrl': '  ' }))).toEqual({});
  });

  it('keeps false and zero (they are real choices)', () => {
    expect(serverSettings(cfg({ redactSecrets: false, keepRecent: 0 }))).toEqual({ redactSecrets: false, keepRecent: 0 });
  });

  it('never sends client-only keys to the server', () => {
    const out = serverSettings(
      cfg({ 'python.path': '/x/python', openRestoredFiles: true, markdownPreview: true, 'trace.server': 'verbose', role: 'pm' }),
    );
    expect(out).toEqual({ role: 'pm' });
  });

  it('covers every server key declared in package.json', async () => {
    const pkg = (await import('../package.json')).default as { contributes: { configuration: { properties: Record<string, unknown> } } };
    const declared = Object.keys(pkg.contributes.configuration.properties).map((k) => k.replace(/^compaction\./, ''));
    const clientOnly = ['python.path', 'openRestoredFiles', 'markdownPreview', 'trace.server'];
    expect(declared.filter((k) => !clientOnly.includes(k)).sort()).toEqual([...SERVER_KEYS].sort());
  });
});

describe('clientSettings and restarts', () => {
  it('reads the client options with defaults', () => {
    expect(clientSettings(cfg({}))).toEqual({ pythonPath: undefined, openRestoredFiles: false, markdownPreview: false, triggerRatio: 0.7 });
    expect(clientSettings(cfg({ 'python.path': ' ', triggerRatio: 1.5 })).pythonPath).toBeUndefined();
    expect(clientSettings(cfg({ triggerRatio: 1.5 })).triggerRatio).toBe(0.7);
    expect(clientSettings(cfg({ 'python.path': '/v/bin/python', markdownPreview: true })).markdownPreview).toBe(true);
  });

  it('restarts only for the interpreter (the server command)', () => {
    const only = (key: string) => (section: string) => section === key;
    expect(needsRestart(only('compaction.python.path'))).toBe(true);
    expect(needsRestart(only('compaction.triggerRatio'))).toBe(false);
    expect(needsRestart(only('compaction.llm.model'))).toBe(false);
    expect(needsRestart(only('compaction.markdownPreview'))).toBe(false);
    expect(needsRestart(only('editor.fontSize'))).toBe(false);
  });

  it('forwards server keys as a configuration change, not client-only keys', () => {
    const only = (key: string) => (section: string) => section === key;
    expect(affectsServer(only('compaction.triggerRatio'))).toBe(true);
    expect(affectsServer(only('compaction.llm.model'))).toBe(true);
    expect(affectsServer(only('compaction.diagnostics.recurring'))).toBe(true);
    expect(affectsServer(only('compaction.python.path'))).toBe(false);
    expect(affectsServer(only('compaction.markdownPreview'))).toBe(false);
    expect(affectsServer(only('compaction.trace.server'))).toBe(false);
    expect(affectsServer(only('editor.fontSize'))).toBe(false);
  });
});
