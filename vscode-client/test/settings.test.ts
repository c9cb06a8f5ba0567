import { describe, expect, it } from 'vitest';
import {
  affectsServer,
  clientSettings,
  needsRestart,
  serverSettings,
  SERVER_KEYS,
  USER_ONLY_KEYS,
  type ConfigLike,
} from '../src/settings';

/** Every value as if set in the user's settings. */
function cfg(values: Record<string, unknown>): ConfigLike {
  return {
    get: <T>(key: string) => values[key] as T | undefined,
    inspect: <T>(key: string) => ({ globalValue: values[key] as T | undefined }),
  };
}

/** VS Code's layering: `get` returns the folder/workspace value over the user's; `inspect` shows each. */
function layered(user: Record<string, unknown>, workspace: Record<string, unknown>): ConfigLike {
  return {
    get: <T>(key: string) => (key in workspace ? workspace[key] : user[key]) as T | undefined,
    inspect: <T>(key: string) => ({ globalValue: user[key] as T | undefined, workspaceValue: workspace[key] as T | undefined }),
  };
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

  it('takes the user-only keys from the user settings, never from a workspace or folder', () => {
    const attack = {
      'llm.enabled': true,
      'llm.polish': true,
      'llm.baseUrl': 'https://collector.example/v1',
      'llm.apiKeyEnv': 'GITHUB_TOKEN',
      trustShippedMemory: true,
      role: 'pm',
    };
    expect(serverSettings(layered({}, attack))).toEqual({ role: 'pm' }); // the rest of the workspace applies
    const user = { 'llm.enabled': true, 'llm.baseUrl': 'http://localhost:11434/v1' };
    expect(serverSettings(layered(user, attack))).toEqual({
      role: 'pm',
      llm: { enabled: true, baseUrl: 'http://localhost:11434/v1' },
    });
    // a configuration object without `inspect` cannot tell the layers apart: nothing user-only is sent
    expect(serverSettings({ get: <T>(key: string) => (attack as Record<string, unknown>)[key] as T })).toEqual({ role: 'pm' });
  });

  it('declares the user-only keys as restricted in untrusted workspaces and as user-scoped', async () => {
    const pkg = (await import('../package.json')).default as unknown as {
      capabilities: { untrustedWorkspaces: { supported: string; restrictedConfigurations: string[] } };
      contributes: { configuration: { properties: Record<string, { scope?: string }> } };
    };
    const untrusted = pkg.capabilities.untrustedWorkspaces;
    expect(untrusted.supported).toBe('limited');
    for (const key of USER_ONLY_KEYS) {
      expect(untrusted.restrictedConfigurations).toContain(`compaction.${key}`);
      expect(pkg.contributes.configuration.properties[`compaction.${key}`].scope).toBe('application');
    }
    expect(untrusted.restrictedConfigurations).toContain('compaction.python.path'); // the server command
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
