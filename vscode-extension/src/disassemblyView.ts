/**
 * `.wbin` files open as their disassembly (`wave-lsp dis --offsets FILE`, the located or bundled
 * server's disassembler) instead of binary noise: a read-only custom editor (`wave.disassembly`)
 * showing the listing coloured like WAVE source, re-read when the file changes, with "Open as
 * WAVE Source" for the same text in a text editor (a `wave-disassembly:` document in the `wave`
 * language: the grammar's colours and the language server's features).
 */
import * as path from 'path';
import * as vscode from 'vscode';
import { runCli } from './cli';
import type { CommandLine } from './debugConfig';

export const VIEW_TYPE = 'wave.disassembly';
export const SCHEME = 'wave-disassembly';

type Locate = () => Promise<CommandLine | undefined>;

/** The disassembly of a `.wbin`, or a comment saying why there is none. */
async function disassemble(locate: Locate, file: string, offsets: boolean): Promise<string> {
    const server = await locate();
    if (server === undefined) {
        return '; WAVE: no wave-lsp server to disassemble with (see the WAVE output channel)\n';
    }
    const done = await runCli(server, 'dis', [...(offsets ? ['--offsets'] : []), file], path.dirname(file));
    return done.code === 0 ? done.stdout
        : `; WAVE: wave-lsp dis could not read ${path.basename(file)}:\n; ${done.stderr.trim().split('\n').join('\n; ')}\n`;
}

function escape(text: string): string {
    return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** One listing line as HTML, with classes for comments, directives, mnemonics and registers. */
function colour(line: string): string {
    const comment = line.indexOf(';');
    const code = comment >= 0 ? line.slice(0, comment) : line;
    const rest = comment >= 0 ? `<span class="c">${escape(line.slice(comment))}</span>` : '';
    const html = escape(code)
        .replace(/^(\s*)(\.\w+)(\s+\S+)?/, (_m, sp: string, d: string, a?: string) => `${sp}<span class="d">${d}</span>${a ? `<span class="k">${a}</span>` : ''}`)
        .replace(/^(\s+)([a-z_][\w.]*)/, '$1<span class="m">$2</span>')
        .replace(/\b(r\d+|p\d+|sr_\w+)\b/g, '<span class="r">$1</span>')
        .replace(/\b(0x[0-9a-fA-F]+|-?\d+(\.\d+)?)\b/g, '<span class="n">$1</span>');
    return html + rest;
}

export class DisassemblyView implements vscode.CustomReadonlyEditorProvider, vscode.TextDocumentContentProvider, vscode.Disposable {
    private readonly subscriptions: vscode.Disposable[];

    constructor(private readonly locate: Locate) {
        this.subscriptions = [
            vscode.window.registerCustomEditorProvider(VIEW_TYPE, this, { supportsMultipleEditorsPerDocument: true }),
            vscode.workspace.registerTextDocumentContentProvider(SCHEME, this),
        ];
    }

    openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
        return { uri, dispose: () => undefined };
    }

    async resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): Promise<void> {
        panel.webview.options = { enableScripts: true };
        const render = async () => {
            const text = await disassemble(this.locate, document.uri.fsPath, true);
            panel.webview.html = this.html(path.basename(document.uri.fsPath), text);
        };
        const folder = vscode.Uri.file(path.dirname(document.uri.fsPath));
        const watcher = vscode.workspace.createFileSystemWatcher(
            new vscode.RelativePattern(folder, path.basename(document.uri.fsPath)));
        watcher.onDidChange(() => void render());
        watcher.onDidCreate(() => void render());
        panel.onDidDispose(() => {
            watcher.dispose();
        });
        panel.webview.onDidReceiveMessage(async (message: { open?: boolean }) => {
            if (message.open) {
                const doc = await vscode.workspace.openTextDocument(
                    vscode.Uri.from({ scheme: SCHEME, path: `${document.uri.path}.wave` }));
                await vscode.languages.setTextDocumentLanguage(doc, 'wave');
                await vscode.window.showTextDocument(doc, { preview: false });
            }
        });
        await render();
    }

    /** The text of a `wave-disassembly:/…/NAME.wbin.wave` document. */
    provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
        return disassemble(this.locate, uri.fsPath.replace(/\.wave$/, ''), false);
    }

    private html(name: string, text: string): string {
        const body = text.split('\n').map(colour).join('\n');
        return `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline';">
<style>
body { font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); color: var(--vscode-editor-foreground); }
header { font-family: var(--vscode-font-family); margin: 8px 0 12px; color: var(--vscode-descriptionForeground); }
button { background: var(--vscode-button-background); color: var(--vscode-button-foreground); border: none; padding: 4px 10px; margin-left: 12px; cursor: pointer; }
pre { font-family: inherit; margin: 0; }
.c { color: var(--vscode-descriptionForeground); font-style: italic; }
.d { color: var(--vscode-symbolIcon-keywordForeground, #c586c0); }
.k { color: var(--vscode-symbolIcon-functionForeground, #dcdcaa); }
.m { color: var(--vscode-symbolIcon-methodForeground, #569cd6); font-weight: bold; }
.r { color: var(--vscode-symbolIcon-variableForeground, #9cdcfe); }
.n { color: var(--vscode-debugTokenExpression-number, #b5cea8); }
</style></head><body>
<header>Disassembly of <b>${escape(name)}</b> (wave-lsp dis --offsets)<button id="open">Open as WAVE Source</button></header>
<pre id="listing">${body}</pre>
<script>const vscode = acquireVsCodeApi();
document.getElementById('open').addEventListener('click', () => vscode.postMessage({ open: true }));</script>
</body></html>`;
    }

    dispose(): void {
        for (const subscription of this.subscriptions) {
            subscription.dispose();
        }
    }
}
