/**
 * Show PTX/HIP/Metal/SYCL: a read-only document beside the source with what a vendor backend
 * makes of it, from the server's `wave-lsp.emit [uri, target]` command. It refreshes as the
 * source changes; the cursor in the source highlights (and reveals) the generated lines of its
 * instruction, and hovering a generated line shows the instruction it comes from.
 */
import * as vscode from 'vscode';
import type { ServerCommand } from './encodingView';
import { EMIT, type CommandResult } from './generated/extensions';

export const SCHEME = 'wave-backend';

/** The backends, their titles and the language that highlights their text (generated). */
import { TARGETS } from './targets';
export { TARGETS };

export type Target = keyof typeof TARGETS;

interface Emitted {
    /** [generated line, source line] pairs, 0-based. */
    map: [number, number][];
}

export class BackendView implements vscode.TextDocumentContentProvider, vscode.HoverProvider, vscode.Disposable {
    private readonly changed = new vscode.EventEmitter<vscode.Uri>();
    readonly onDidChange = this.changed.event;
    private readonly subscriptions: vscode.Disposable[] = [];
    private readonly pending = new Map<string, NodeJS.Timeout>();
    private readonly emitted = new Map<string, Emitted>();
    private readonly generated = vscode.window.createTextEditorDecorationType({
        isWholeLine: true,
        backgroundColor: new vscode.ThemeColor('editor.rangeHighlightBackground'),
        overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.rangeHighlightForeground'),
        overviewRulerLane: vscode.OverviewRulerLane.Center,
    });
    private readonly source = vscode.window.createTextEditorDecorationType({
        isWholeLine: true,
        backgroundColor: new vscode.ThemeColor('editor.rangeHighlightBackground'),
    });

    constructor(private readonly execute: ServerCommand) {
        this.subscriptions.push(
            vscode.workspace.registerTextDocumentContentProvider(SCHEME, this),
            vscode.languages.registerHoverProvider({ scheme: SCHEME }, this),
            vscode.workspace.onDidChangeTextDocument((event) => this.documentChanged(event.document)),
            vscode.window.onDidChangeTextEditorSelection((event) => this.selectionChanged(event.textEditor)),
            vscode.window.onDidChangeVisibleTextEditors(() => this.highlightAll()),
            this.generated, this.source,
        );
    }

    /** The view's URI for a source document and a target. */
    static viewUri(source: vscode.Uri, target: Target): vscode.Uri {
        const name = source.path.split('/').pop() ?? 'file.wave';
        return vscode.Uri.from({ scheme: SCHEME, path: `/${name}.${target}`, query: source.toString() });
    }

    static target(view: vscode.Uri): Target | undefined {
        const ext = view.path.split('.').pop() ?? '';
        return ext in TARGETS ? ext as Target : undefined;
    }

    async show(source: vscode.TextDocument, target: Target): Promise<void> {
        let doc = await vscode.workspace.openTextDocument(BackendView.viewUri(source.uri, target));
        if (doc.languageId !== TARGETS[target].language) {
            doc = await vscode.languages.setTextDocumentLanguage(doc, TARGETS[target].language);
        }
        await vscode.window.showTextDocument(doc, {
            viewColumn: vscode.ViewColumn.Beside, preview: false, preserveFocus: true,
        });
        this.highlightAll();
    }

    async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
        const target = BackendView.target(uri) ?? 'ptx';
        const title = TARGETS[target].title;
        try {
            const result = await this.execute(EMIT, [uri.query, target]) as CommandResult<typeof EMIT> | undefined;
            if (typeof result?.text === 'string') {
                this.emitted.set(uri.toString(), { map: Array.isArray(result.map) ? result.map : [] });
                return result.text;
            }
            this.emitted.delete(uri.toString());
            const why = typeof result?.error === 'string' ? result.error : 'no translation';
            return `// WAVE: no ${title} for this file: ${why}\n`;
        } catch (error) {
            this.emitted.delete(uri.toString());
            const message = error instanceof Error ? error.message : String(error);
            return `// WAVE: Show ${title} failed: ${message}\n// It needs a wave-lsp server with the wave-lsp.emit command.\n`;
        }
    }

    /** Hover on a generated line: the source instruction it comes from. */
    async provideHover(doc: vscode.TextDocument, position: vscode.Position): Promise<vscode.Hover | undefined> {
        const lines = this.sourceLines(doc.uri, position.line);
        if (lines.length === 0) {
            return undefined;
        }
        const source = await vscode.workspace.openTextDocument(vscode.Uri.parse(doc.uri.query));
        const name = source.uri.path.split('/').pop() ?? '';
        const markdown = new vscode.MarkdownString();
        for (const line of lines) {
            markdown.appendMarkdown(`From ${name}:${line + 1}\n`);
            markdown.appendCodeblock(source.lineAt(line).text.trim(), 'wave');
        }
        return new vscode.Hover(markdown);
    }

    private sourceLines(view: vscode.Uri, generatedLine: number): number[] {
        const map = this.emitted.get(view.toString())?.map ?? [];
        return [...new Set(map.filter(([gen]) => gen === generatedLine).map(([, src]) => src))];
    }

    private views(source: vscode.Uri): vscode.TextEditor[] {
        return vscode.window.visibleTextEditors.filter((e) =>
            e.document.uri.scheme === SCHEME && e.document.uri.query === source.toString());
    }

    private documentChanged(doc: vscode.TextDocument): void {
        if (doc.uri.scheme === SCHEME) {
            this.highlightAll();   // the view's new text: highlight again
            return;
        }
        if (doc.languageId !== 'wave') {
            return;
        }
        for (const view of vscode.workspace.textDocuments.filter((d) =>
            d.uri.scheme === SCHEME && d.uri.query === doc.uri.toString())) {
            const key = view.uri.toString();
            clearTimeout(this.pending.get(key));
            // After the server has seen the edit (didChange is sent before this timer fires).
            this.pending.set(key, setTimeout(() => {
                this.pending.delete(key);
                this.changed.fire(view.uri);
            }, 250));
        }
    }

    private selectionChanged(editor: vscode.TextEditor): void {
        if (editor.document.uri.scheme === SCHEME) {
            this.highlightSource(editor);
        } else if (editor.document.languageId === 'wave') {
            editor.setDecorations(this.source, []);   // the cursor left the generated text
            this.highlightGenerated(editor, true);
        }
    }

    private highlightAll(): void {
        for (const editor of vscode.window.visibleTextEditors) {
            if (editor.document.languageId === 'wave' && editor.document.uri.scheme !== SCHEME) {
                this.highlightGenerated(editor, false);
            }
        }
    }

    /** Highlights, in every view of the source, the generated lines of the cursor's instruction. */
    private highlightGenerated(sourceEditor: vscode.TextEditor, reveal: boolean): void {
        const line = sourceEditor.selection.active.line;
        for (const view of this.views(sourceEditor.document.uri)) {
            const map = this.emitted.get(view.document.uri.toString())?.map ?? [];
            const ranges = map.filter(([gen, src]) => src === line && gen < view.document.lineCount)
                .map(([gen]) => view.document.lineAt(gen).range);
            view.setDecorations(this.generated, ranges);
            if (reveal && ranges.length > 0) {
                view.revealRange(ranges[0].union(ranges[ranges.length - 1]),
                    vscode.TextEditorRevealType.InCenterIfOutsideViewport);
            }
        }
    }

    /** The cursor on a generated line highlights its instruction in the source. */
    private highlightSource(view: vscode.TextEditor): void {
        const lines = this.sourceLines(view.document.uri, view.selection.active.line);
        for (const editor of vscode.window.visibleTextEditors) {
            if (editor.document.uri.toString() === view.document.uri.query) {
                const ranges = lines.filter((l) => l < editor.document.lineCount)
                    .map((l) => editor.document.lineAt(l).range);
                editor.setDecorations(this.source, ranges);
                if (ranges.length > 0) {
                    editor.revealRange(ranges[0], vscode.TextEditorRevealType.InCenterIfOutsideViewport);
                }
            }
        }
    }

    dispose(): void {
        this.pending.forEach((timer) => clearTimeout(timer));
        for (const subscription of this.subscriptions) {
            subscription.dispose();
        }
        this.changed.dispose();
    }
}
