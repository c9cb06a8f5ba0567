/**
 * The palette commands. Each is a few lines over `ServerManager.execute`; the decisions (items,
 * texts) live in the pure modules.
 */
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { openAfterCompaction, openRestore, requestRestore, showMarkdownText, copyLatestForAssistant, type CompactReply } from './documents';
import { writtenRestorePath } from './assistant';
import { pickedTranscript, pickPlaceholder, roleItems, transcriptItems, withAllowRead, type PickedTranscript, type TranscriptPickItem, type TranscriptRef } from './quickpick';
import { CancelledError, type ServerManager } from './server';
import { checkArgs, checkWarnings, errorMemoryMarkdown, type CheckReply } from './errorMemory';
import { budgetMessage, type StatusReply } from './status';
import type { StatusController } from './statusItem';

export interface CompactArgs {
  transcript?: string;
  role?: string;
  instructions?: string;
  targetTokens?: number;
  /** Files the user picked for this request (file dialog, active editor): the server reads them even
   * outside the workspace. Never filled from workspace content (issue 15, attack 5). */
  allowRead?: string[];
}


interface ErrorRecord {
  id: string;
  count?: number;
  recurring?: boolean;
  solution?: string | null;
  avoidance?: string | null;
}


function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class Commands {
  constructor(
    private readonly server: ServerManager,
    private readonly status: StatusController,
  ) {}

  register(context: vscode.ExtensionContext): void {
    const reg = (id: string, fn: (...args: any[]) => unknown) =>
      context.subscriptions.push(
        vscode.commands.registerCommand(id, async (...args: any[]) => {
          try {
            return await fn(...args);
          } catch (err) {
            if (err instanceof CancelledError) return undefined;
            this.server.log.error(`${id}: ${describeError(err)}`);
            void vscode.window.showErrorMessage(`Compaction: ${describeError(err)}`);
            return undefined;
          }
        }),
      );
    reg('compaction.client.compact', (args?: CompactArgs) => this.compact(args ?? {}));
    reg('compaction.client.compactWithInstructions', () => this.compactWithInstructions());
    reg('compaction.client.compactForRole', () => this.compactForRole());
    reg('compaction.client.restore', () => this.restore());
    reg('compaction.client.showErrorMemory', () => this.showErrorMemory());
    reg('compaction.client.checkSelection', () => this.checkSelection());
    reg('compaction.client.addErrorNote', (args?: { id?: string }) => this.addErrorNote(args?.id));
    reg('compaction.client.showBudget', () => this.showBudget());
    reg('compaction.client.restartServer', () => this.restartServer());
    reg('compaction.client.copyForAssistant', () => copyLatestForAssistant());
  }

  /** Quick pick of discovered transcripts; undefined when the user dismissed it. */
  async pickTranscript(): Promise<PickedTranscript | undefined> {
    let transcripts: TranscriptRef[] = [];
    try {
      const reply = await this.server.execute<{ transcripts?: TranscriptRef[] }>('compaction.discoverTranscripts', {});
      transcripts = reply?.transcripts ?? [];
    } catch (err) {
      this.server.log.warn(`discoverTranscripts: ${describeError(err)}`);
    }
    const active = vscode.window.activeTextEditor?.document;
    const items = transcriptItems(transcripts, {
      nowMs: Date.now(),
      home: os.homedir(),
      activeEditorPath: active && active.uri.scheme === 'file' ? active.uri.fsPath : undefined,
    });
    const choice = await vscode.window.showQuickPick<TranscriptPickItem>(items, {
      title: 'Compact Conversation',
      placeHolder: pickPlaceholder(transcripts.length),
      matchOnDescription: true,
      matchOnDetail: true,
    });
    const action = choice?.action;
    if (!action) return undefined;
    if (action.kind !== 'chooseFile') return pickedTranscript(action);
    const picked = await vscode.window.showOpenDialog({
      title: 'Choose a Transcript',
      canSelectMany: false,
      openLabel: 'Compact',
      filters: { Transcripts: ['jsonl', 'json', 'md', 'traj'], 'All Files': ['*'] },
    });
    return pickedTranscript(action, picked?.[0]?.fsPath);
  }

  async compact(args: CompactArgs): Promise<CompactReply | undefined> {
    const chosen = args.transcript ? { path: args.transcript, explicit: false } : await this.pickTranscript();
    if (!chosen) return undefined;
    const transcript = chosen.path;
    const request: CompactArgs = withAllowRead(args, chosen);
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Compacting ${path.basename(transcript)}`, cancellable: true },
      async (progress, token) => {
        const compact = await this.server.execute<CompactReply>('compaction.compact', request, token, progress);
        // The compaction wrote .compaction/restore.md already (with the open files the server tracks):
        // open that one; ask for a restore state only when the reply names no document.
        const written = writtenRestorePath(compact);
        if (written) return { compact, restore: { path: written } };
        progress.report({ message: 'building the restore state…' });
        return { compact, restore: await requestRestore(this.server, token) };
      },
    );
    this.server.log.info(`Compacted ${transcript}`);
    await openAfterCompaction(this.server, result.compact, result.restore);
    void this.status.refresh();
    return result.compact;
  }

  async compactWithInstructions(): Promise<unknown> {
    const chosen = await this.pickTranscript();
    if (!chosen) return undefined;
    const instructions = await vscode.window.showInputBox({
      title: 'Compact Conversation with Instructions',
      prompt: 'What to keep or drop, as you would tell /compact',
      placeHolder: 'e.g. keep the database migration decisions, ignore the CSS experiments',
      ignoreFocusOut: true,
    });
    if (instructions === undefined) return undefined;
    return this.compact(withAllowRead({ instructions }, chosen));
  }

  async compactForRole(): Promise<unknown> {
    const current = vscode.workspace.getConfiguration('compaction').get<string>('role');
    const role = await vscode.window.showQuickPick(roleItems(current), { title: 'Compact for Role', placeHolder: 'Whom is the summary for?' });
    if (!role) return undefined;
    const chosen = await this.pickTranscript();
    if (!chosen) return undefined;
    return this.compact(withAllowRead({ role: role.role }, chosen));
  }

  async restore(): Promise<void> {
    const reply = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Restoring working state', cancellable: true },
      (_progress, token) => requestRestore(this.server, token),
    );
    await openRestore(this.server, reply);
  }

  async showErrorMemory(): Promise<void> {
    const reply = await this.server.execute<{ markdown?: string }>('compaction.errorMemory.export', {});
    await showMarkdownText('Error Memory', errorMemoryMarkdown(reply?.markdown));
  }

  async checkSelection(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showWarningMessage('Open a file or select some text to check against the error memory.');
      return;
    }
    const sel = editor.selection;
    const text = sel.isEmpty ? editor.document.getText() : editor.document.getText(sel);
    const file = editor.document.uri.scheme === 'file' ? editor.document.uri.fsPath : undefined;
    const reply = await this.server.execute<CheckReply>('compaction.errorMemory.check', checkArgs(text, file));
    const warnings = checkWarnings(reply);
    if (warnings.length === 0) {
      void vscode.window.showInformationMessage('No error-memory record matches this code.');
      return;
    }
    await vscode.window.showQuickPick(
      warnings.map((w) => ({ label: `$(warning) ${w.id}`, description: w.reason || undefined, detail: w.message })),
      { title: `⚠️ Detected ${warnings.length} historical error${warnings.length > 1 ? 's' : ''}`, matchOnDescription: true, matchOnDetail: true },
    );
  }

  async addErrorNote(presetId?: string): Promise<void> {
    let id = presetId;
    if (!id) {
      const reply = await this.server.execute<{ records?: ErrorRecord[] }>('compaction.errorMemory.list', {});
      const items: (vscode.QuickPickItem & { id?: string })[] = (reply?.records ?? []).map((r) => ({
        label: `${r.recurring ? '#recurring ' : ''}${r.id}`,
        description: typeof r.count === 'number' ? `occurrences ${r.count}` : undefined,
        detail: r.solution ?? r.avoidance ?? undefined,
        id: r.id,
      }));
      items.push({ label: '$(add) New Record…', id: undefined });
      const pick = await vscode.window.showQuickPick(items, { title: 'Add Error Memory Note', placeHolder: 'Which error?' });
      if (!pick) return;
      id =
        pick.id ??
        (await vscode.window.showInputBox({
          title: 'New Error Memory Record',
          prompt: 'Identifier, e.g. ERR_PY_KeyError, ERR_TS_MissingProperty, ERR_LOGIC_OffByOne',
          validateInput: (v) => (/^ERR_[A-Z]+_\w+$/.test(v.trim()) ? undefined : 'Use the form ERR_<KIND>_<Name>'),
        }))?.trim();
      if (!id) return;
    }
    const note = await vscode.window.showInputBox({ title: `Note for ${id}`, prompt: 'What to remember (the solution that worked)', ignoreFocusOut: true });
    if (note === undefined) return;
    const avoidance = await vscode.window.showInputBox({
      title: `Avoidance for ${id}`,
      prompt: 'How to avoid it next time (optional)',
      ignoreFocusOut: true,
    });
    const editor = vscode.window.activeTextEditor;
    const args: Record<string, unknown> = { id, solution: note || undefined, avoidance: avoidance || undefined };
    if (editor && editor.document.uri.scheme === 'file') {
      args.path = editor.document.uri.fsPath;
      args.line = editor.selection.active.line + 1;
    }
    await this.server.execute('compaction.errorMemory.add', args);
    void vscode.window.showInformationMessage(`Error memory: note added to ${id}.`);
  }

  async showBudget(): Promise<void> {
    const reply = await this.status.refresh();
    const trigger = vscode.workspace.getConfiguration('compaction').get<number>('triggerRatio') ?? 0.7;
    const text = budgetMessage(reply as StatusReply | undefined, trigger);
    const action = reply?.transcript ? 'Compact Now' : undefined;
    const choice = action ? await vscode.window.showInformationMessage(text, action) : await vscode.window.showInformationMessage(text);
    if (choice === 'Compact Now' && reply?.transcript) await this.compact({ transcript: reply.transcript });
  }

  async restartServer(): Promise<void> {
    const ok = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Restarting the Compaction server' }, () =>
      this.server.restart(),
    );
    if (ok) {
      void vscode.window.setStatusBarMessage('$(check) Compaction server restarted', 3000);
      void this.status.refresh();
    }
  }
}
