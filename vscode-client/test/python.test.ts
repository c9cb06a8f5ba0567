import { describe, expect, it } from 'vitest';
import {
  classifyProbe,
  expandPath,
  installCommands,
  interpreterFromPythonExtension,
  PROBE_MISSING,
  probeArgs,
  resolveInterpreter,
  serverArgs,
} from '../src/python';

describe('resolveInterpreter', () => {
  it('prefers the setting over the Python extension', () => {
    expect(resolveInterpreter({ setting: '/opt/py/bin/python', pythonExtension: '/venv/bin/python' })).toEqual({
      command: '/opt/py/bin/python',
      source: 'setting',
    });
  });

  it("uses the Python extension's interpreter when the setting is empty", () => {
    expect(resolveInterpreter({ setting: '  ', pythonExtension: '/venv/bin/python' })).toEqual({ command: '/venv/bin/python', source: 'python-extension' });
  });

  it('falls back to python3 on PATH', () => {
    expect(resolveInterpreter({})).toEqual({ command: 'python3', source: 'default' });
  });

  it('expands ${workspaceFolder}, ~ and folder-relative paths but leaves bare commands for PATH', () => {
    expect(expandPath('${workspaceFolder}/.venv/bin/python', '/w')).toBe('/w/.venv/bin/python');
    expect(expandPath('~/venv/bin/python', '/w', '/home/me')).toBe('/home/me/venv/bin/python');
    expect(expandPath('.venv/bin/python', '/w')).toBe('/w/.venv/bin/python');
    expect(expandPath('python3.12', '/w')).toBe('python3.12');
  });
});

describe('probe and install help', () => {
  it('runs the server as a module and probes without importing it', () => {
    expect(serverArgs()).toEqual(['-m', 'lsp_server']);
    expect(probeArgs()[1]).toContain("find_spec('lsp_server')");
  });

  it('classifies the probe outcome', () => {
    expect(classifyProbe(0)).toBe('ok');
    expect(classifyProbe(PROBE_MISSING)).toBe('no-package');
    expect(classifyProbe(null, 'ENOENT')).toBe('no-python');
    expect(classifyProbe(1)).toBe('failed');
  });

  it('shows the exact install commands for the chosen interpreter', () => {
    expect(installCommands('python3')).toEqual(['python3 -m pip install compaction', 'python3 -m pip install -e <path to the compaction repository>']);
    expect(installCommands('/my venv/bin/python', '/src/compaction')).toEqual([
      "'/my venv/bin/python' -m pip install compaction",
      "'/my venv/bin/python' -m pip install -e /src/compaction",
    ]);
  });
});

describe('interpreterFromPythonExtension', () => {
  it('reads the environments API and resolves the executable', async () => {
    const api = {
      environments: {
        getActiveEnvironmentPath: () => ({ path: '/venv' }),
        resolveEnvironment: async () => ({ executable: { uri: { fsPath: '/venv/bin/python' } } }),
      },
    };
    expect(await interpreterFromPythonExtension(api)).toBe('/venv/bin/python');
  });

  it('falls back to the older settings API, then to nothing', async () => {
    const old = { settings: { getExecutionDetails: () => ({ execCommand: ['/usr/bin/python3.11'] }) } };
    expect(await interpreterFromPythonExtension(old)).toBe('/usr/bin/python3.11');
    expect(await interpreterFromPythonExtension(undefined)).toBeUndefined();
    const broken = {
      environments: {
        getActiveEnvironmentPath: () => {
          throw new Error('not ready');
        },
      },
    };
    expect(await interpreterFromPythonExtension(broken)).toBeUndefined();
  });
});
