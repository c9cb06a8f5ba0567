/**
 * Owns the language client: finds the interpreter, checks that the server package is installed
 * (and says how to install it when not), starts `python -m lsp_server` on stdio, restarts it
 * when the interpreter changes, forwards other setting changes as `workspace/didChangeConfiguration`,
 * and sends `workspace/executeCommand`.
 */
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as os from 'os';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  ResponseError,
  State,
  WorkDoneProgress,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import { withWorkspaceFolder } from './folders';
import {
  classifyProbe,
  installCommands,
  interpreterFromPythonExtension,
  probeArgs,
  resolveInterpreter,
  serverArgs,
  type Interpreter,
  type PythonExtensionApi,
} from './python';
import { TRUST, trustHover } from './hover';
import { AGENT_COMPACTED, type AgentCompactedParams } from './agentCompacted';
import type { EditorStorage } from './editorStorage';
import { affectsServer, needsRestart, serverSettings } from './settings';

const LSP_REQUEST_CANCELLED = -32800;
const LSP_SERVER_CANCELLED = -32802;

export class CancelledError extends Error {
  constructor() {
    super('cancelled');
  }
}

export class ServerManager implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<boolean> | undefined;
  private interpreter: Interpreter | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly stateEmitter = new vscode.EventEmitter<boolean>();
  /** Fires true when the server is running, false when it stopped. */
  readonly onDidChangeRunning = this.stateEmitter.event;
  private readonly agentCompactedEmitter = new vscode.EventEmitter<AgentCompactedParams>();
  /** The server saw an agent compact its own conversation and refreshed the restore state. */
  readonly onAgentCompacted = this.agentCompactedEmitter.event;
  readonly activatedAt = Date.now();

  constructor(
    readonly log: vscode.LogOutputChannel,
    /** The editor's chatSessions/ and globalStorage folders, for discovery (see editorStorage.ts). */
    private readonly storage: EditorStorage = {},
  ) {
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        const affects = (s: string) => e.affectsConfiguration(s);
        if (needsRestart(affects)) {
          this.log.info('The interpreter setting changed: restarting the server');
          void this.restart();
        } else if (affectsServer(affects)) {
          void this.notifyConfigurationChanged();
        }
      }),
    );
  }

  get running(): boolean {
    return this.client?.state === State.Running;
  }

  private workspaceFolder(): vscode.WorkspaceFolder | undefined {
    return vscode.workspace.workspaceFolders?.[0];
  }

  private async pythonExtensionApi(): Promise<PythonExtensionApi | undefined> {
    const ext = vscode.extensions.getExtension<PythonExtensionApi>('ms-python.python');
    if (!ext) return undefined;
    try {
      return ext.isActive ? ext.exports : await ext.activate();
    } catch (err) {
      this.log.warn(`The Python extension did not activate: ${String(err)}`);
      return undefined;
    }
  }

  private watchingPython = false;

  /** Follow the Python extension's interpreter changes (only when that is where ours came from). */
  private async watchPythonExtension(): Promise<void> {
    if (this.watchingPython) return;
    this.watchingPython = true;
    const api = (await this.pythonExtensionApi()) as
      | (PythonExtensionApi & { environments?: { onDidChangeActiveEnvironmentPath?: vscode.Event<unknown> } })
      | undefined;
    const event = api?.environments?.onDidChangeActiveEnvironmentPath;
    if (!event) return;
    this.disposables.push(
      event(() => {
        if (this.interpreter?.source === 'python-extension') {
          this.log.info('The Python extension changed its interpreter: restarting the server');
          void this.restart();
        }
      }),
    );
  }

  async resolve(): Promise<Interpreter> {
    const folder = this.workspaceFolder();
    const cfg = vscode.workspace.getConfiguration('compaction', folder?.uri);
    const setting = cfg.get<string>('python.path');
    let fromExtension: string | undefined;
    if (!setting) fromExtension = await interpreterFromPythonExtension(await this.pythonExtensionApi(), folder?.uri);
    return resolveInterpreter({ setting, pythonExtension: fromExtension, workspaceFolder: folder?.uri.fsPath, home: os.homedir() });
  }

  private probe(python: string, cwd: string | undefined): Promise<ReturnType<typeof classifyProbe>> {
    return new Promise((resolve) => {
      execFile(python, probeArgs(), { cwd, timeout: 20000 }, (err) => {
        if (!err) return resolve('ok');
        const e = err as NodeJS.ErrnoException & { code?: string | number };
        resolve(classifyProbe(typeof e.code === 'number' ? e.code : null, typeof e.code === 'string' ? e.code : undefined));
      });
    });
  }

  private async reportMissing(interp: Interpreter, outcome: string): Promise<void> {
    // Offer `pip install -e <folder>` with a real path only when the open folder is this repository.
    const folder = this.workspaceFolder()?.uri.fsPath;
    const isRepo = !!folder && fs.existsSync(path.join(folder, 'lsp_server')) && fs.existsSync(path.join(folder, 'pyproject.toml'));
    const cmds = installCommands(interp.command, isRepo ? folder : undefined);
    const where = interp.source === 'setting' ? 'compaction.python.path' : interp.source === 'python-extension' ? 'the Python extension' : 'PATH';
    const msg =
      outcome === 'no-python'
        ? `Compaction: Python interpreter "${interp.command}" (from ${where}) was not found.`
        : `Compaction: the server package is not installed for "${interp.command}" (from ${where}).`;
    this.log.error(`${msg} Install it with: ${cmds.join('  or  ')}`);
    const choice = await vscode.window.showErrorMessage(msg, 'Show Install Command', 'Open Settings');
    if (choice === 'Show Install Command') {
      const copy = await vscode.window.showInformationMessage(
        'Install the Compaction server',
        { modal: true, detail: `Run one of:\n\n${cmds[0]}\n\nor, from a checkout of the repository:\n\n${cmds[1]}\n\nthen run "Compaction: Restart Server".` },
        'Copy Command',
      );
      if (copy === 'Copy Command') await vscode.env.clipboard.writeText(cmds[0]);
    } else if (choice === 'Open Settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'compaction.python.path');
    }
  }

  /** Start the server once; concurrent callers share the same attempt. Returns whether it runs. */
  start(): Promise<boolean> {
    if (this.running) return Promise.resolve(true);
    this.starting ??= this.doStart().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async doStart(): Promise<boolean> {
    const t0 = Date.now();
    const folder = this.workspaceFolder();
    const interp = await this.resolve();
    this.interpreter = interp;
    this.log.info(`Interpreter: ${interp.command} (from ${interp.source})`);
    if (interp.source === 'python-extension') void this.watchPythonExtension();
    const outcome = await this.probe(interp.command, folder?.uri.fsPath);
    if (outcome !== 'ok') {
      void this.reportMissing(interp, outcome);
      this.stateEmitter.fire(false);
      return false;
    }
    const serverOptions: ServerOptions = {
      command: interp.command,
      args: serverArgs(),
      options: { cwd: folder?.uri.fsPath, env: { ...process.env, PYTHONUNBUFFERED: '1' } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
      outputChannel: this.log,
      traceOutputChannel: this.log,
      workspaceFolder: folder,
      initializationOptions: () => ({ ...serverSettings(vscode.workspace.getConfiguration('compaction', folder?.uri)), editorStorage: this.storage }),
      markdown: { isTrusted: TRUST, supportHtml: false },
      middleware: {
        provideHover: async (document, position, token, next) => trustHover(await next(document, position, token)),
        workspace: {
          configuration: async (params, token, next) => {
            const result = await next(params, token);
            if (!Array.isArray(result)) return result;
            return params.items.map((item, i) =>
              item.section === 'compaction'
                ? serverSettings(vscode.workspace.getConfiguration('compaction', item.scopeUri ? vscode.Uri.parse(item.scopeUri) : folder?.uri))
                : result[i],
            );
          },
        },
      },
    };
    const client = new LanguageClient('compaction', 'Compaction', serverOptions, clientOptions);
    this.client = client;
    client.onDidChangeState((e) => this.stateEmitter.fire(e.newState === State.Running));
    client.onNotification(AGENT_COMPACTED, (p: AgentCompactedParams) => this.agentCompactedEmitter.fire(p));
    try {
      await client.start();
    } catch (err) {
      this.log.error(`The server did not start: ${String(err)}`);
      void vscode.window.showErrorMessage(`Compaction: the server did not start (${String(err)}). See the Compaction output.`, 'Show Output').then(
        (c) => c && this.log.show(),
      );
      return false;
    }
    this.log.info(`Server started in ${Date.now() - t0} ms (${Date.now() - this.activatedAt} ms after activation)`);
    return true;
  }

  /**
   * Server settings changed: tell the running server, which pulls them again through
   * `workspace/configuration` (the values are sent too, for a server that does not pull).
   */
  private async notifyConfigurationChanged(): Promise<void> {
    const client = this.client;
    if (!client || !this.running) return;
    const settings = serverSettings(vscode.workspace.getConfiguration('compaction', this.workspaceFolder()?.uri));
    try {
      await client.sendNotification(DidChangeConfigurationNotification.type, { settings: { compaction: settings } });
      this.log.info('Server settings changed: sent workspace/didChangeConfiguration');
    } catch (err) {
      this.log.warn(`workspace/didChangeConfiguration: ${String(err)}`);
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      try {
        await client.stop(5000);
      } catch (err) {
        this.log.warn(`Stopping the server: ${String(err)}`);
      }
      await client.dispose();
    }
  }

  async restart(): Promise<boolean> {
    await this.starting?.catch(() => false);
    await this.stop();
    return this.start();
  }

  /**
   * Run a server command with one object argument. With a cancellation token the request is
   * cancelled on the server too; work-done progress from the server is passed to `progress`.
   */
  async execute<T = unknown>(
    command: string,
    args: object,
    token?: vscode.CancellationToken,
    progress?: vscode.Progress<{ message?: string; increment?: number }>,
  ): Promise<T> {
    if (!(await this.start()) || !this.client) throw new Error('The Compaction server is not running.');
    const client = this.client;
    const active = vscode.window.activeTextEditor?.document.uri;
    const activeFolder = active ? vscode.workspace.getWorkspaceFolder(active)?.uri.fsPath : undefined;
    args = withWorkspaceFolder(args, vscode.workspace.workspaceFolders?.length ?? 0, activeFolder);
    const workDoneToken = `compaction-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    let last = 0;
    const sub = progress
      ? client.onProgress(WorkDoneProgress.type, workDoneToken, (v) => {
          if (v.kind === 'end') return;
          const pct = typeof v.percentage === 'number' ? v.percentage : undefined;
          progress.report({ message: v.message, increment: pct !== undefined ? Math.max(0, pct - last) : undefined });
          if (pct !== undefined) last = pct;
        })
      : undefined;
    try {
      const request = client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [args], workDoneToken }, token);
      if (!token) return (await request) as T;
      const cancelled = new Promise<never>((_, reject) => token.onCancellationRequested(() => reject(new CancelledError())));
      return (await Promise.race([request, cancelled])) as T;
    } catch (err) {
      if (err instanceof ResponseError && (err.code === LSP_REQUEST_CANCELLED || err.code === LSP_SERVER_CANCELLED)) throw new CancelledError();
      if (err instanceof vscode.CancellationError) throw new CancelledError();
      throw err;
    } finally {
      sub?.dispose();
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.stateEmitter.dispose();
    this.agentCompactedEmitter.dispose();
    void this.stop();
  }
}
