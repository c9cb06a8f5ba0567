/**
 * Opening what a compaction produced: the summary (`.compaction/latest.md`) and the restore
 * document (`.compaction/restore.md`) side by side, as text or as Markdown previews, the
 * restored core files when asked, and the "Copy for Assistant" action.
 */
import * as fs from 'fs/promises';
import * as path from 'path';
import * as vscode from 'vscode';
import { assistantBlock, compactedMessage, coreFilePaths, coreFilesFromRestoreMarkdown, type CompactStats } from './assistant';
import type { ServerManager } from './server';
import { clientSettings } from './settings';

export interface CompactReply {
  markdown?: string;
  stats?: CompactStats;
  note?: string | null;
  compacted?: boolean;
  paths?: { latest?: string; restore?: string };
}

export interface RestoreReply {
  markdown?: string;
  state?: unknown;
  path?: string;
}

function workspaceRoot(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

/** Where the server writes its documents when a reply names no path. */
export function defaultPaths(): { latest?: string; restore?: string } {
  const root = workspaceRoot();
  if (!root) return {};
  return { latest: path.join(root, '.compaction', 'latest.md'), restore: path.join(root, '.compaction', 'restore.md') };
}

/** Files open in editor tabs (for the restore state's "open files"), our own outputs excluded. */
export function openFilePaths(): string[] {
  const out: string[] = [];
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      const input = tab.input;
      if (input instanceof vscode.TabInputText && input.uri.scheme === 'file') {
        const p = input.uri.fsPath;
        if (!p.split(path.sep).includes('.compaction')) out.push(p);
      }
    }
  }
  return [...new Set(out)];
}

async function showMarkdown(file: string, column: vscode.ViewColumn, preview: boolean, preserveFocus: boolean): Promise<void> {
  const uri = vscode.Uri.file(file);
  if (preview) {
    await vscode.commands.executeCommand('vscode.openWith', uri, 'vscode.markdown.preview.editor', { viewColumn: column, preserveFocus });
    return;
  }
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc, { viewColumn: column, preview: false, preserveFocus });
}

async function readOr(file: string | undefined, fallback: string | undefined): Promise<string> {
  if (fallback) return fallback;
  if (!file) return '';
  try {
    return await fs.readFile(file, 'utf8');
  } catch {
    return '';
  }
}

/** Ask for the restore state (with the editor's open files) and return the reply. */
export function requestRestore(server: ServerManager, token?: vscode.CancellationToken): Promise<RestoreReply> {
  // No tabs open: leave the list out so the server falls back to what it tracked or the transcript read.
  const files = openFilePaths();
  return server.execute<RestoreReply>('compaction.restore', files.length ? { openFiles: files } : {}, token);
}

/** Copy both documents as one block. */
export async function copyForAssistant(summary: string, restore: string): Promise<void> {
  await vscode.env.clipboard.writeText(assistantBlock(summary, restore));
  void vscode.window.setStatusBarMessage('$(check) Summary and restore state copied for the assistant', 4000);
}

/**
 * The automatic restore after every compaction: the summary and the restore document side by side.
 * `restore` is the `compaction.restore` reply, or just `{path}` of the document the compaction wrote.
 */
export async function openAfterCompaction(server: ServerManager, compact: CompactReply, restore: RestoreReply): Promise<void> {
  const settings = clientSettings(vscode.workspace.getConfiguration('compaction'));
  const defaults = defaultPaths();
  const latest = compact.paths?.latest ?? defaults.latest;
  const restorePath = restore.path ?? compact.paths?.restore ?? defaults.restore;
  const summaryText = await readOr(latest, compact.markdown);
  const restoreText = await readOr(restorePath, restore.markdown);
  if (settings.openRestoredFiles) {
    const files = restore.state !== undefined ? coreFilePaths(restore.state) : coreFilesFromRestoreMarkdown(restoreText);
    for (const file of files) {
      const abs = path.isAbsolute(file) ? file : path.join(workspaceRoot() ?? '', file);
      try {
        const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(abs));
        await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false, preserveFocus: true });
      } catch (err) {
        server.log.warn(`Could not reopen ${abs}: ${String(err)}`);
      }
    }
  }
  if (latest) await showMarkdown(latest, vscode.ViewColumn.One, settings.markdownPreview, false);
  if (restorePath) await showMarkdown(restorePath, vscode.ViewColumn.Two, settings.markdownPreview, true);
  void vscode.window.showInformationMessage(compactedMessage(compact.stats, compact.note), 'Copy for Assistant').then(async (choice) => {
    if (choice === 'Copy for Assistant') await copyForAssistant(summaryText, restoreText);
  });
}

/** "Restore Working State" on its own: ask, open the document, offer the copy. */
export async function openRestore(server: ServerManager, restore: RestoreReply): Promise<void> {
  const settings = clientSettings(vscode.workspace.getConfiguration('compaction'));
  const restorePath = restore.path ?? defaultPaths().restore;
  if (restorePath) await showMarkdown(restorePath, vscode.ViewColumn.Active, settings.markdownPreview, false);
  const summaryText = await readOr(defaultPaths().latest, undefined);
  const restoreText = await readOr(restorePath, restore.markdown);
  void vscode.window.showInformationMessage('Restore state written and opened.', 'Copy for Assistant').then(async (choice) => {
    if (choice === 'Copy for Assistant') await copyForAssistant(summaryText, restoreText);
  });
  server.log.info(`Restore state: ${restorePath ?? '(no path)'}`);
}

/** The palette command: copy the last summary and restore state from `.compaction/`. */
export async function copyLatestForAssistant(): Promise<void> {
  const { latest, restore } = defaultPaths();
  const [s, r] = await Promise.all([readOr(latest, undefined), readOr(restore, undefined)]);
  if (!s && !r) {
    void vscode.window.showWarningMessage('Nothing to copy yet: run "Compaction: Compact Conversation" first.');
    return;
  }
  await copyForAssistant(s, r);
}

/** Read-only documents for Markdown that has no file (the error-memory block): never "dirty". */
const VIEW_SCHEME = 'compaction-view';

class ViewProvider implements vscode.TextDocumentContentProvider {
  private readonly contents = new Map<string, string>();
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.path) ?? '';
  }

  set(uri: vscode.Uri, text: string): void {
    this.contents.set(uri.path, text);
    this.emitter.fire(uri);
  }
}

const views = new ViewProvider();

export function registerViews(): vscode.Disposable {
  return vscode.workspace.registerTextDocumentContentProvider(VIEW_SCHEME, views);
}

/** Show Markdown from the server in a read-only editor (or preview) titled `name`. */
export async function showMarkdownText(name: string, content: string): Promise<void> {
  const uri = vscode.Uri.from({ scheme: VIEW_SCHEME, path: `/${name}.md` });
  views.set(uri, content);
  const doc = await vscode.workspace.openTextDocument(uri);
  const settings = clientSettings(vscode.workspace.getConfiguration('compaction'));
  if (settings.markdownPreview) await vscode.commands.executeCommand('markdown.showPreview', uri);
  else await vscode.window.showTextDocument(doc, { preview: true });
}
