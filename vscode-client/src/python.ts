/**
 * Which Python runs the server: the setting `compaction.python.path`, else the Python
 * extension's active interpreter when that extension is installed, else `python3` on PATH.
 * Pure apart from the injected lookups, so each branch is unit-tested.
 */
import * as path from 'path';

export type InterpreterSource = 'setting' | 'python-extension' | 'default';

export interface Interpreter {
  command: string;
  source: InterpreterSource;
}

export interface ResolveInput {
  /** `compaction.python.path` (may hold `${workspaceFolder}`, `~`, or a path relative to the folder). */
  setting?: string;
  /** The Python extension's active interpreter, when that extension answered. */
  pythonExtension?: string;
  workspaceFolder?: string;
  home?: string;
}

export const DEFAULT_PYTHON = 'python3';

/** Expand `${workspaceFolder}`, `${userHome}`, `~` and folder-relative paths. */
export function expandPath(raw: string, workspaceFolder?: string, home?: string): string {
  let p = raw.trim();
  if (workspaceFolder) p = p.split('${workspaceFolder}').join(workspaceFolder);
  if (home) {
    p = p.split('${userHome}').join(home);
    if (p === '~' || p.startsWith('~/')) p = home + p.slice(1);
  }
  // A bare command name ("python3.12") is looked up on PATH; only paths with a separator are made absolute.
  if (workspaceFolder && !path.isAbsolute(p) && /[\\/]/.test(p)) p = path.join(workspaceFolder, p);
  return p;
}

export function resolveInterpreter(input: ResolveInput): Interpreter {
  if (input.setting && input.setting.trim()) {
    return { command: expandPath(input.setting, input.workspaceFolder, input.home), source: 'setting' };
  }
  if (input.pythonExtension && input.pythonExtension.trim()) {
    return { command: input.pythonExtension.trim(), source: 'python-extension' };
  }
  return { command: DEFAULT_PYTHON, source: 'default' };
}

/** The server runs as a module of the chosen interpreter (the same code as `compaction-lsp`). */
export function serverArgs(): string[] {
  return ['-m', 'lsp_server'];
}

/** Exit code of the probe when the interpreter runs but lacks the package. */
export const PROBE_MISSING = 3;

/** A one-liner that tells whether the server package is importable, without importing pygls. */
export function probeArgs(): string[] {
  return ['-c', `import importlib.util,sys; sys.exit(0 if importlib.util.find_spec('lsp_server') else ${PROBE_MISSING})`];
}

export type ProbeOutcome = 'ok' | 'no-python' | 'no-package' | 'failed';

/** Classify the probe: spawn error code (e.g. ENOENT) or exit status. */
export function classifyProbe(exitCode: number | null, spawnError?: string): ProbeOutcome {
  if (spawnError) return spawnError === 'ENOENT' || spawnError === 'EACCES' ? 'no-python' : 'failed';
  if (exitCode === 0) return 'ok';
  if (exitCode === PROBE_MISSING) return 'no-package';
  return 'failed';
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The exact commands that install the server for this interpreter. */
export function installCommands(python: string, repoPath?: string): string[] {
  const py = shellQuote(python);
  return [
    `${py} -m pip install compaction`,
    `${py} -m pip install -e ${repoPath ? shellQuote(repoPath) : '<path to the compaction repository>'}`,
  ];
}

/** The part of the Python extension's API that we use (both the new and the old shapes). */
export interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: unknown): { path: string } | undefined;
    resolveEnvironment?(env: { path: string } | string): Promise<{ executable?: { uri?: { fsPath: string } } } | undefined>;
  };
  settings?: {
    getExecutionDetails?(resource?: unknown): { execCommand?: string[] | undefined };
  };
}

/** Ask the Python extension for its active interpreter; undefined when it cannot say. */
export async function interpreterFromPythonExtension(api: PythonExtensionApi | undefined, resource?: unknown): Promise<string | undefined> {
  if (!api) return undefined;
  try {
    const env = api.environments?.getActiveEnvironmentPath(resource);
    if (env?.path) {
      const resolved = await api.environments?.resolveEnvironment?.(env);
      return resolved?.executable?.uri?.fsPath ?? env.path;
    }
    const exec = api.settings?.getExecutionDetails?.(resource)?.execCommand;
    if (exec && exec.length > 0) return exec[0];
  } catch {
    // An extension in a bad state must not stop ours from starting: fall back to python3.
  }
  return undefined;
}
