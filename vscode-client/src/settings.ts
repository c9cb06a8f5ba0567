/**
 * VS Code settings (`compaction.*`) -> the server's settings object (camelCase, nested like the
 * Python `Settings` model). One mapping serves both `initializationOptions` and the replies to
 * `workspace/configuration`, so the server sees the same shape either way; client-only keys
 * (interpreter, trace, how documents open) never reach it.
 */

/** The part of `vscode.WorkspaceConfiguration` this module needs (mockable). */
export interface ConfigLike {
  get<T>(key: string): T | undefined;
  inspect?<T>(key: string): { globalValue?: T } | undefined;
}

/**
 * Keys only the user may set: they send data elsewhere (the LLM switch, endpoint and key
 * variable), widen what the server reads, turn redaction off, or trust content a repository
 * ships. Read from the user (global) value only, never a workspace or folder value — a cloned repository's `.vscode/settings.json` could set those. The
 * server drops them from `.compaction/config.json` for the same reason (`compaction.trust`).
 */
export const USER_ONLY_KEYS = [
  'llm.enabled',
  'llm.polish',
  'llm.baseUrl',
  'llm.apiKeyEnv',
  'trustShippedMemory',
  'allowRead',
  'redactSecrets',
] as const;

/** A key's value as the server may see it: the user's own for the user-only keys. */
export function settingValue(cfg: ConfigLike, key: string): unknown {
  if ((USER_ONLY_KEYS as readonly string[]).includes(key)) return cfg.inspect?.<unknown>(key)?.globalValue;
  return cfg.get<unknown>(key);
}

/** Keys read by the server, as `compaction.<key>`; nested keys map to nested objects. */
export const SERVER_KEYS = [
  'model',
  'contextWindow',
  'triggerRatio',
  'keepRecent',
  'minRounds',
  'role',
  'lang',
  'redactSecrets',
  'trustShippedMemory',
  'restore.coreFiles',
  'restore.tokensPerFile',
  'restore.totalTokens',
  'llm.enabled',
  'llm.baseUrl',
  'llm.model',
  'llm.apiKeyEnv',
  'llm.timeoutS',
  'llm.maxRetries',
  'llm.polish',
  'diagnostics.enabled',
  'diagnostics.single',
  'diagnostics.recurring',
  'hover',
  'watch.enabled',
  'watch.debounceMs',
  'watch.exclude',
  'allowRead',
] as const;

/** Keys only the client reads; changing them never restarts the server. */
export const CLIENT_KEYS = ['openRestoredFiles', 'markdownPreview', 'trace.server'] as const;

/**
 * Only the interpreter (it is the server command) restarts the server; the server pulls its own
 * keys through `workspace/configuration` when told they changed.
 */
export const RESTART_KEYS = ['python.path'] as const;

export type ServerSettings = Record<string, unknown>;

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/**
 * Build the nested settings object. Unset or empty values are left out so the server's own
 * layers (user config, `.compaction/config.json`, defaults) decide them; the user-only keys come
 * from the user's settings alone.
 */
export function serverSettings(cfg: ConfigLike): ServerSettings {
  const out: ServerSettings = {};
  for (const key of SERVER_KEYS) {
    const value = settingValue(cfg, key);
    if (isEmpty(value)) continue;
    const parts = key.split('.');
    let node = out;
    for (const part of parts.slice(0, -1)) {
      if (typeof node[part] !== 'object' || node[part] === null) node[part] = {};
      node = node[part] as ServerSettings;
    }
    node[parts[parts.length - 1]] = value;
  }
  return out;
}

/** What the client itself reads from the settings. */
export interface ClientSettings {
  pythonPath: string | undefined;
  openRestoredFiles: boolean;
  markdownPreview: boolean;
  triggerRatio: number;
}

export function clientSettings(cfg: ConfigLike): ClientSettings {
  const python = cfg.get<string>('python.path');
  const ratio = cfg.get<number>('triggerRatio');
  return {
    pythonPath: isEmpty(python) ? undefined : python,
    openRestoredFiles: cfg.get<boolean>('openRestoredFiles') ?? false,
    markdownPreview: cfg.get<boolean>('markdownPreview') ?? false,
    triggerRatio: typeof ratio === 'number' && ratio > 0 && ratio <= 1 ? ratio : 0.7,
  };
}

/**
 * Whether a configuration change needs a server restart; `affects` is
 * `ConfigurationChangeEvent.affectsConfiguration`.
 */
export function needsRestart(affects: (section: string) => boolean): boolean {
  return RESTART_KEYS.some((key) => affects(`compaction.${key}`));
}

/** Whether a configuration change touches a key the server reads (send `workspace/didChangeConfiguration`). */
export function affectsServer(affects: (section: string) => boolean): boolean {
  return SERVER_KEYS.some((key) => affects(`compaction.${key}`));
}
