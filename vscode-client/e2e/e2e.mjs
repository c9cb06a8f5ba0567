// Drives the real workbench (code-server = VS Code 1.100) from headless Chromium:
// palette -> "Compaction: Compact Conversation" -> pick the fixture transcript -> the summary and
// the restore document open by themselves -> the restore document names the workspace as cwd and
// an ERR_PY_ id -> hovering the line the traceback pointed at shows the error-memory record.
// Screenshots of each step go to $OUT. Exit code 1 on the first failed expectation.
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const { PORT = '18091', WS, OUT = 'test-output', FAKE_PYTHON, LOGS_DIR, TRANSCRIPT_PATH } = process.env;
if (!WS) throw new Error('WS (the workspace folder) is required');
const URL = `http://127.0.0.1:${PORT}/?folder=${encodeURIComponent(WS)}`;
const TRANSCRIPT = 'claude-session.jsonl';
const HOVER_FILE = 'config.py';
const HOVER_LINE = 14; // the traceback: File ".../app/config.py", line 14, in load_config
mkdirSync(OUT, { recursive: true });

let step = 0;
let passed = 0;
const t0 = Date.now();
const log = (...a) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);
async function shot(page, name) {
  step += 1;
  const file = join(OUT, `${String(step).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file });
  log('screenshot', file);
}
function expect(cond, what) {
  if (!cond) throw new Error(`expectation failed: ${what}`);
  passed += 1;
  log('OK', what);
}

async function palette(page, label) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 15000 });
  await input.fill('>' + label);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first().waitFor({ timeout: 15000 });
}

/** Our output channel's log file (LSP trace included), found under the user-data logs folder. */
function channelLog() {
  if (!LOGS_DIR) return '';
  for (const session of readdirSync(LOGS_DIR).sort().reverse()) {
    for (const host of ['exthost1', 'exthost2']) {
      try {
        return readFileSync(join(LOGS_DIR, session, host, 'compaction.compaction-vscode', 'Compaction.log'), 'utf8');
      } catch {
        // not this one
      }
    }
  }
  return '';
}

/** Text of the visible lines of the editor whose tab is `name`. */
async function editorText(page, group) {
  return (await group.locator('.monaco-editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
}

(async () => {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: { width: 1500, height: 900 } });
  page.on('pageerror', (e) => log('[pageerror]', e.message));
  try {
    await page.goto(URL);
    await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
    await page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: 60000 });
    log('workbench ready');

    // 1. The extension activates on startup, starts the server and shows the context status.
    const statusItem = page.locator('.statusbar-item', { hasText: /Context \d+%/ }).first();
    await statusItem.waitFor({ timeout: 90000 });
    const statusText = (await statusItem.innerText()).trim();
    expect(/Context \d+%/.test(statusText), `status item shows utilization ("${statusText}")`);
    await shot(page, 'startup-status');

    // An open editor: offered as "Use Active Editor" and sent as an open file of the restore state.
    await page.keyboard.press('Control+P');
    await page.locator('.quick-input-widget input').fill('app/main.py');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'main.py' }).first().waitFor({ timeout: 15000 });
    await page.keyboard.press('Enter');
    await page.locator('.tabs-container .tab.active', { hasText: 'main.py' }).first().waitFor({ timeout: 20000 });

    // 2. Palette: "Compaction: Compact Conversation".
    await palette(page, 'Compaction: Compact Conversation');
    await shot(page, 'palette');
    const paletteRows = await page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
    expect(paletteRows.some((r) => r.includes('Compact Conversation with Instructions')), 'palette lists the Compaction commands');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: /^Compaction: Compact Conversation$/ }).first().click()
      .catch(() => page.keyboard.press('Enter'));

    // 3. Quick pick of discovered transcripts (newest first, agent, age, size) + manual choices.
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: TRANSCRIPT }).first();
    await row.waitFor({ timeout: 30000 });
    const rowText = await row.innerText();
    expect(rowText.includes('Claude Code') && /ago|just now/.test(rowText) && /\d+(\.\d)? KB/.test(rowText),
      `transcript row names agent, age and size (${rowText.replace(/\n/g, ' | ')})`);
    const allRows = (await page.locator('.quick-input-list .monaco-list-row').allInnerTexts()).join('\n');
    expect(allRows.includes('Choose File…') && allRows.includes('Use Active Editor'), 'quick pick offers "Choose File…" and "Use Active Editor"');
    await shot(page, 'pick-transcript');
    await row.click();

    // 4. Without running "Restore Working State": summary and restore document open side by side.
    const tabs = page.locator('.tabs-container .tab');
    await tabs.filter({ hasText: 'latest.md' }).first().waitFor({ timeout: 60000 });
    await tabs.filter({ hasText: 'restore.md' }).first().waitFor({ timeout: 60000 });
    const toast = page.locator('.notification-toast', { hasText: 'Compacted' }).first();
    await toast.waitFor({ timeout: 30000 });
    const toastMessage = await toast.locator('.notification-list-item-message').first().innerText();
    expect(/^Compacted [\d,]+ → [\d,]+ tokens \(−\d+%\)/.test(toastMessage) && toastMessage.includes('Summary and restore state opened'),
      `notification reports the tokens saved: ${toastMessage}`);
    expect((await toast.innerText()).includes('Copy for Assistant'), 'notification offers "Copy for Assistant"');
    const groups = page.locator('.editor-group-container');
    expect((await groups.count()) >= 2, 'summary and restore document are side by side (two editor groups)');
    await page.waitForTimeout(800);
    await shot(page, 'compacted-summary-and-restore');

    // 5. The restore document names the workspace as cwd and carries the ERR_PY_ id.
    const restoreGroup = groups.filter({ has: page.locator('.tab.active', { hasText: 'restore.md' }) }).first();
    // Word wrap may split the path over visual lines: compare without the breaks.
    const restoreVisible = (await editorText(page, restoreGroup)).replace(/\n/g, '');
    expect(restoreVisible.includes(WS), `restore document shows the workspace path ${WS}`);
    const restoreOnDisk = readFileSync(join(WS, '.compaction', 'restore.md'), 'utf8');
    // Written by the compaction itself (no separate restore request): the editor's open file is in it.
    const openSection = restoreOnDisk.split('\n## ').find((s) => /^Open files|^已打开的文件/.test(s)) || '';
    expect(openSection.includes('`app/main.py`'), `restore document lists the open editor app/main.py (${openSection.split('\n')[0]})`);
    const cwdLine = restoreOnDisk.split('\n').find((l) => /cwd|working directory|工作目录/i.test(l)) || '';
    // The first path on that line is the working directory; the recorded one may follow as a note.
    const cwdPath = (cwdLine.match(/`([^`]+)`/) || [])[1];
    expect(cwdPath === WS, `restore names the workspace as cwd ("${cwdLine.trim()}")`);
    // Find inside the opened restore editor, so the check is on the document VS Code shows.
    await restoreGroup.locator('.monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+F');
    const find = page.locator('.find-widget textarea, .find-widget input').first();
    await find.waitFor({ timeout: 10000 });
    await find.fill('ERR_PY_');
    const count = page.locator('.find-widget .matchesCount');
    await page.waitForFunction(() => {
      const el = document.querySelector('.find-widget .matchesCount');
      return el && /\d+ of \d+/.test(el.textContent || '');
    }, null, { timeout: 10000 });
    expect(/\d+ of \d+/.test(await count.innerText()), `restore document contains ERR_PY_ (${await count.innerText()})`);
    const errLine = (await editorText(page, restoreGroup)).split('\n').find((l) => l.includes('ERR_PY_')) || '';
    log('restore line:', errLine.trim());
    await shot(page, 'restore-err-py');
    await page.keyboard.press('Escape');
    await page.locator('.find-widget.visible').first().waitFor({ state: 'hidden', timeout: 5000 }).catch(() => {});

    // 6. Hover the line the traceback pointed at (app/config.py:14, recorded as /home/someone/proj/...).
    await page.keyboard.press('Control+P');
    await page.locator('.quick-input-widget input').fill(`app/${HOVER_FILE}`);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: HOVER_FILE }).first().waitFor({ timeout: 15000 });
    await page.keyboard.press('Enter');
    await page.locator('.tabs-container .tab.active', { hasText: HOVER_FILE }).first().waitFor({ timeout: 20000 });
    const editor = page.locator('.editor-group-container.active .monaco-editor').first();
    await editor.locator('.view-line', { hasText: 'load_config' }).first().waitFor({ timeout: 20000 });
    await page.keyboard.press('Escape');
    const line = editor.locator('.view-line', { hasText: 'os.environ.get("DATABASE_URL"' }).first();
    const lineNo = editor.locator('.line-numbers', { hasText: new RegExp(`^${HOVER_LINE}$`) }).first();
    expect((await lineNo.count()) === 1, `line ${HOVER_LINE} is visible`);
    // Diagnostics arrive from the server once the document is open; give them a moment.
    await page.waitForTimeout(1500);
    const hover = page.locator('.monaco-hover:not(.hidden)', { hasText: 'ERR_PY_' }).first();
    const box = await line.boundingBox();
    let found = false;
    for (let attempt = 0; attempt < 8 && !found; attempt += 1) {
      // Move away then onto the text (x over the code, not the indentation).
      await page.mouse.move(box.x + 5, box.y - 80);
      await page.waitForTimeout(300);
      await page.mouse.move(box.x + 120 + attempt * 15, box.y + box.height / 2);
      found = await hover.waitFor({ timeout: 4000 }).then(() => true, () => false);
    }
    expect(found, 'hover over the traceback line shows an error-memory record');
    const hoverText = await hover.innerText();
    log('hover:', hoverText.replace(/\n+/g, ' | '));
    expect(/ERR_PY_KeyError/.test(hoverText), 'hover names ERR_PY_KeyError');
    expect(/occurrences \d+/.test(hoverText), 'hover gives the occurrences and rounds');
    const links = await hover.locator('a').allInnerTexts();
    expect(links.includes('Resolve') && links.includes('Forget'), `hover offers command links (${links.join(', ')})`);
    await page.waitForTimeout(700); // let the hover finish fading in
    await shot(page, 'hover-error-memory');

    // 7. The hover's command links are trusted: "Resolve" runs compaction.errorMemory.resolve on the
    //    server, after which the resolved record no longer hovers there.
    await hover.locator('a', { hasText: 'Resolve' }).first().click();
    await page.waitForTimeout(1500);
    let stillThere = true;
    for (let attempt = 0; attempt < 3 && stillThere; attempt += 1) {
      // Leave the hover widget entirely (it sits above the line) so that VS Code asks again.
      await page.mouse.move(150, 600);
      await page.keyboard.press('Escape');
      await page.locator('.monaco-hover:not(.hidden)').first().waitFor({ state: 'hidden', timeout: 3000 }).catch(() => {});
      await page.waitForTimeout(300);
      await page.mouse.move(box.x + 130, box.y + box.height / 2);
      stillThere = await hover.waitFor({ timeout: 3000 }).then(() => true, () => false);
    }
    expect(!stillThere, '"Resolve" link ran the server command: the record is resolved and no longer hovers');
    await shot(page, 'resolved');

    // 8. Show Context Budget: one sentence about the newest transcript, with "Compact Now".
    await palette(page, 'Compaction: Show Context Budget');
    await page.keyboard.press('Enter');
    const budget = page.locator('.notification-toast', { hasText: TRANSCRIPT }).first();
    await budget.waitFor({ timeout: 30000 });
    const budgetText = await budget.locator('.notification-list-item-message').first().innerText();
    expect(/tokens \(\d+%\)/.test(budgetText) && (await budget.innerText()).includes('Compact Now'), `budget: ${budgetText}`);
    await shot(page, 'context-budget');
    await page.keyboard.press('Escape');

    // 9. Show Error Memory: the block opens as a Markdown document.
    await palette(page, 'Compaction: Show Error Memory');
    await page.keyboard.press('Enter');
    const memoryEditor = page.locator('.editor-group-container.active .monaco-editor .view-lines', { hasText: 'Error Memory' }).first();
    await memoryEditor.waitFor({ timeout: 30000 });
    const memoryTab = (await page.locator('.editor-group-container.active .tab.active').first().innerText()).trim();
    expect(memoryTab.includes('Error Memory'), `Show Error Memory opened the error-memory block (tab "${memoryTab}")`);
    await shot(page, 'error-memory');

    // 10. Compact for Role… (Tester), then Cancel in the progress notification: the request is
    //     cancelled on the server ($/cancelRequest) and nothing opens. The run slows each server
    //     phase (COMPACTION_LSP_PHASE_DELAY_MS) so that there is time to press Cancel.
    await palette(page, 'Notifications: Clear All Notifications');
    await page.keyboard.press('Enter');
    await palette(page, 'Compaction: Compact for Role…');
    await page.keyboard.press('Enter');
    const tester = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Tester' }).first();
    await tester.waitFor({ timeout: 15000 });
    expect((await page.locator('.quick-input-list .monaco-list-row').allInnerTexts()).join('|').includes('Product Manager'),
      'role pick offers Developer, Tester, Product Manager');
    await tester.click();
    await page.locator('.quick-input-list .monaco-list-row', { hasText: TRANSCRIPT }).first().click({ timeout: 30000 });
    const progress = page.locator('.notification-toast', { hasText: `Compacting ${TRANSCRIPT}` }).first();
    await progress.waitFor({ timeout: 15000 });
    await page.waitForTimeout(300); // let the toast finish sliding in
    await shot(page, 'progress-with-cancel');
    await progress.locator('.monaco-button', { hasText: 'Cancel' }).first().click();
    await progress.waitFor({ state: 'hidden', timeout: 15000 });
    await page.waitForTimeout(5000);
    expect((await page.locator('.notification-toast', { hasText: 'Compacted' }).count()) === 0, 'cancelled compaction opened nothing');
    if (LOGS_DIR) expect(channelLog().includes("Sending notification '$/cancelRequest'"), 'the client sent $/cancelRequest to the server');

    // 11. Restart Server from the palette: the server comes back and the status item returns.
    await palette(page, 'Compaction: Restart Server');
    await page.keyboard.press('Enter');
    const restarted = page.locator('.statusbar-item', { hasText: 'Compaction server restarted' }).first();
    await restarted.waitFor({ timeout: 60000 });
    const restartedText = (await restarted.innerText().catch(() => 'Compaction server restarted')).trim();
    const back = page.locator('.statusbar-item', { hasText: /Context \d+%/ }).first();
    await back.waitFor({ timeout: 60000 });
    const backText = (await back.innerText()).trim();
    expect(restartedText.includes('Compaction server restarted') && /Context \d+%/.test(backText),
      `Restart Server: "${restartedText}", then the status item came back ("${backText}")`);

    // 12. The transcript grows (the assistant keeps talking): the status item follows the file.
    if (TRANSCRIPT_PATH) {
      const before = (await page.locator('.statusbar-item', { hasText: /Context \d+%/ }).first().innerText()).trim();
      const last = JSON.parse(readFileSync(TRANSCRIPT_PATH, 'utf8').trim().split('\n').pop());
      const record = { ...last, type: 'user', uuid: 'b0e2c4d6-0000-4000-8000-0000000000ff', parentUuid: last.uuid,
        message: { role: 'user', content: 'Here is the full log of the staging run: ' + 'lorem ipsum dolor sit amet '.repeat(6000) } };
      delete record.requestId;
      appendFileSync(TRANSCRIPT_PATH, JSON.stringify(record) + '\n');
      const grown = page.locator('.statusbar-item', { hasText: /Context \d+%/ }).filter({ hasNotText: before.replace(/^\W+/, '') }).first();
      await grown.waitFor({ timeout: 30000 });
      const after = (await grown.innerText()).trim();
      const pct = (t) => Number((t.match(/Context (\d+)%/) || [])[1]);
      expect(pct(after) > pct(before), `status item followed the growing transcript: "${before}" -> "${after}"`);
      await shot(page, 'status-after-growth');
    }

    // 13. Language-model tools and the @compaction handler (issue 17), through the test-only command:
    //     vscode.lm.tools lists ours with their schemas, vscode.lm.invokeTool runs each, and the chat
    //     handler streams into a recording stream (no chat provider offline: the chat view sends nothing).
    const checksFile = join(WS, '.compaction', 'e2e-agent-checks.json');
    await palette(page, 'Compaction: Run Agent Integration Checks (test)');
    await page.keyboard.press('Enter');
    const until = Date.now() + 90000;
    // the file may be seen while it is being written: read it once it parses
    const parsed = () => { try { return JSON.parse(readFileSync(checksFile, 'utf8')); } catch { return null; } };
    let checks = null;
    while (!(checks = existsSync(checksFile) ? parsed() : null) && Date.now() < until) await page.waitForTimeout(250);
    expect(checks !== null, 'the agent checks ran');
    const names = checks.tools.map((t) => t.name).sort();
    expect(names.join(',') === 'compaction_compact,compaction_errorMemory,compaction_restore', `vscode.lm.tools lists ours: ${names.join(', ')}`);
    for (const t of checks.tools) log('tool', t.name, 'schema:', JSON.stringify(t.inputSchema));
    const [restoreInv, errorsInv, compactInv, refusedInv] = checks.invocations;
    for (const i of checks.invocations) log('invokeTool', i.name, JSON.stringify(i.input), '->', (i.error ? `Error: ${i.error}` : i.text).split('\n').slice(0, 4).join(' | '));
    expect(!restoreInv.error && restoreInv.text.includes(WS), 'compaction_restore returns the restore state of this workspace');
    expect(!errorsInv.error && /Detected historical error \[ERR_PY_KeyError\]/.test(errorsInv.text), 'compaction_errorMemory warns about ERR_PY_KeyError for app/config.py');
    expect(!compactInv.error && /Compacted conversation|Conversation/.test(compactInv.text), 'compaction_compact returns the compacted document');
    expect(/reading refused/.test(refusedInv.error || refusedInv.text || ''), `compaction_compact refuses a path outside the workspace (${refusedInv.error || refusedInv.text})`);
    const [restoreChat, errorsChat, compactChat] = checks.chats;
    const anchors = restoreChat.recorded.filter((r) => r.kind === 'anchor');
    expect(restoreChat.recorded.some((r) => r.kind === 'markdown' && r.value.includes(WS)) && anchors.length > 0,
      `@compaction /restore streams the document and ${anchors.length} file anchors`);
    expect(errorsChat.recorded.some((r) => r.kind === 'markdown' && r.value.includes('ERR_PY_KeyError')), '@compaction /errors streams the warning');
    expect(compactChat.recorded.some((r) => r.kind === 'markdown' && r.value.length > 200), '@compaction /compact streams the compacted document');
    await page.locator('.tabs-container .tab.active', { hasText: 'Untitled' }).first().waitFor({ timeout: 15000 }).catch(() => {});
    await page.waitForTimeout(500);
    await shot(page, 'agent-tools-and-chat');

    // 14. The agent compacts by itself: Claude Code appends its compact boundary and summary to the
    //     session; the server refreshes restore.md and the error memory, and one notification offers
    //     Open / Copy for Assistant / Don't Show Again.
    if (TRANSCRIPT_PATH) {
      await palette(page, 'Notifications: Clear All Notifications');
      await page.keyboard.press('Enter');
      const restoreMd = join(WS, '.compaction', 'restore.md');
      const mtimeBefore = statSync(restoreMd).mtimeMs;
      const boundary = { type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', uuid: 'c0e2c4d6-0000-4000-8000-0000000000a1',
        timestamp: new Date().toISOString(), compactMetadata: { trigger: 'manual', preTokens: 48210 } };
      const summary = { type: 'user', isCompactSummary: true, uuid: 'c0e2c4d6-0000-4000-8000-0000000000a2', parentUuid: boundary.uuid,
        timestamp: new Date().toISOString(), message: { role: 'user', content: 'This session is being continued from a previous conversation. Summary: fix the config crash.' } };
      const tAppend = Date.now();
      appendFileSync(TRANSCRIPT_PATH, JSON.stringify(boundary) + '\n' + JSON.stringify(summary) + '\n');
      const note = page.locator('.notification-toast', { hasText: 'compacted its conversation' }).first();
      await note.waitFor({ timeout: 30000 });
      const delay = Date.now() - tAppend;
      const noteText = await note.innerText();
      log(`agent compaction -> notification visible in ${delay} ms`);
      expect(noteText.includes('Claude Code') && noteText.includes('Open') && noteText.includes('Copy for Assistant') && noteText.includes("Don't Show Again"),
        `notification after the agent compacted (${delay} ms): ${noteText.split('\n')[0]}`);
      expect(statSync(restoreMd).mtimeMs > mtimeBefore, 'the server rewrote .compaction/restore.md');
      await page.waitForTimeout(400);
      await shot(page, 'agent-compacted-notification');
      await note.locator('.monaco-button', { hasText: 'Open' }).first().click();
      const opened = await page.locator('.tabs-container .tab.active', { hasText: 'restore.md' }).first().waitFor({ timeout: 15000 }).then(() => true, () => false);
      expect(opened, '"Open" opened the refreshed restore.md');
      await page.waitForTimeout(1500);
      expect((await page.locator('.notification-toast', { hasText: 'compacted its conversation' }).count()) === 0, 'shown once');
    }

    // 15. Point compaction.python.path at an interpreter without the server package: the setting
    //     change restarts the server, which says what is missing and shows the exact install command.
    if (FAKE_PYTHON) {
      // Through the Settings editor, as a user would (the settings file on disk is not watched here).
      await palette(page, 'Preferences: Open User Settings');
      await page.keyboard.press('Enter'); // the first row: the Settings editor (the second is the JSON file)
      await page.locator('.settings-editor').first().waitFor({ timeout: 20000 });
      await page.waitForTimeout(500);
      await page.keyboard.type('compaction.python.path');
      // code-server is a remote window: machine-overridable settings are edited on the Remote tab.
      await page.locator('.settings-tabs-widget .action-label', { hasText: 'Remote' }).first().click();
      const input = page.locator('.settings-editor .setting-item-contents', { hasText: 'Python interpreter' }).locator('input').first();
      await input.waitFor({ timeout: 20000 });
      await input.fill(FAKE_PYTHON);
      await input.press('Enter');
      const missing = page.locator('.notification-toast', { hasText: 'server package is not installed' }).first();
      await missing.waitFor({ timeout: 60000 });
      expect((await missing.innerText()).includes(FAKE_PYTHON), 'the message names the interpreter that lacks the package');
      await missing.locator('.monaco-button', { hasText: 'Show Install Command' }).first().click();
      const dialog = page.locator('.monaco-dialog-box').first();
      await dialog.waitFor({ timeout: 15000 });
      const dialogText = await dialog.innerText();
      expect(dialogText.includes(`${FAKE_PYTHON} -m pip install compaction`) && dialogText.includes('-m pip install -e'),
        'the dialog shows the exact install commands');
      expect(dialogText.includes('<path to the compaction repository>'), 'the editable install names no wrong folder');
      expect((await page.locator('.statusbar-item', { hasText: /Context \d+%/ }).count()) === 0, 'the status item is hidden while no server runs');
      await shot(page, 'missing-server-package');
    }
    console.log(`vscode-e2e: ${passed} passed, 0 failed`);
    log(`e2e passed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  } catch (err) {
    await shot(page, 'failure').catch(() => {});
    throw err;
  } finally {
    await browser.close();
  }
})().catch((e) => {
  console.error('E2E FAIL', e.message || e);
  console.log(`vscode-e2e: ${passed} passed, 1 failed`);
  process.exit(1);
});
