/**
 * The status bar item: utilization of the newest transcript for the workspace. Refreshed when
 * the transcript file grows (a file watcher), every 30 s (a newer transcript may appear), and
 * after each compaction; a click compacts that transcript.
 */
import * as fs from 'fs';
import * as vscode from 'vscode';
import type { ServerManager } from './server';
import { clientSettings } from './settings';
import { statusView, type StatusReply } from './status';

const POLL_MS = 30_000;
const DEBOUNCE_MS = 1_000;

export class StatusController implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private timer: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private watcher: fs.FSWatcher | undefined;
  private watched: string | undefined;
  last: StatusReply | undefined;

  constructor(private readonly server: ServerManager) {
    this.item = vscode.window.createStatusBarItem('compaction.status', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'Compaction: Context Utilization';
    this.timer = setInterval(() => void this.refresh(), POLL_MS);
  }

  /** Ask the server and redraw; a failure hides the item rather than interrupting the user. */
  async refresh(): Promise<StatusReply | undefined> {
    if (!this.server.running) {
      this.item.hide();
      return undefined;
    }
    let reply: StatusReply | undefined;
    try {
      reply = await this.server.execute<StatusReply>('compaction.status', {});
    } catch (err) {
      this.server.log.debug(`compaction.status: ${String(err)}`);
    }
    this.last = reply;
    this.render(reply);
    this.watch(reply?.transcript ?? undefined);
    return reply;
  }

  /** The server stopped (or could not start): no figure is better than a stale one. */
  hide(): void {
    this.item.hide();
  }

  private render(reply: StatusReply | undefined): void {
    const view = statusView(reply, clientSettings(vscode.workspace.getConfiguration('compaction')).triggerRatio);
    if (!view.visible) {
      this.item.hide();
      return;
    }
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.backgroundColor = view.warning ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.command = { title: 'Compact', command: 'compaction.client.compact', arguments: [{ transcript: reply?.transcript }] };
    this.item.show();
  }

  private watch(file: string | undefined): void {
    if (file === this.watched) return;
    this.watcher?.close();
    this.watcher = undefined;
    this.watched = file;
    if (!file) return;
    try {
      this.watcher = fs.watch(file, () => {
        clearTimeout(this.debounce);
        this.debounce = setTimeout(() => void this.refresh(), DEBOUNCE_MS);
      });
      this.watcher.on('error', () => this.watch(undefined));
    } catch (err) {
      this.server.log.debug(`Cannot watch ${file}: ${String(err)}`);
    }
  }

  dispose(): void {
    clearInterval(this.timer);
    clearTimeout(this.debounce);
    this.watcher?.close();
    this.item.dispose();
  }
}
