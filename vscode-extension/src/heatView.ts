/**
 * The heat view of kernel profiles: each profiled line gets a bar in the gutter and a mark in
 * the overview ruler coloured by its cost (heat.ts), and a faint background. It is fed by the
 * server: the result of `wave-lsp.profile` (the Profile lens, the "Profile Kernel" command) and
 * the `wave-lsp/profileChanged` notification, sent after every profile (re-profiles after edits
 * included) and clear, which replaces a document's heat. Closing a document forgets it; an
 * editor that becomes visible again gets its document's heat back.
 */
import * as vscode from 'vscode';
import { gutterIcon, HEAT_COLOURS, KernelProfile, linesByLevel, ProfileChanged, tint } from './heat';
import type { Refusal } from './generated/extensions';

export class HeatView implements vscode.Disposable {
    private readonly levels: vscode.TextEditorDecorationType[];
    /** uri -> kernel -> its latest profile */
    private readonly profiles = new Map<string, Map<string, KernelProfile>>();
    private readonly subscriptions: vscode.Disposable[] = [];

    constructor() {
        this.levels = HEAT_COLOURS.map((colour, index) => vscode.window.createTextEditorDecorationType({
            gutterIconPath: vscode.Uri.parse(gutterIcon(index + 1)),
            gutterIconSize: 'contain',
            overviewRulerColor: colour,
            overviewRulerLane: vscode.OverviewRulerLane.Left,
            isWholeLine: true,
            backgroundColor: tint(index + 1, 0.04 + 0.03 * index),
        }));
        this.subscriptions.push(
            vscode.window.onDidChangeVisibleTextEditors((editors) => editors.forEach((e) => this.render(e))),
            vscode.workspace.onDidCloseTextDocument((doc) => this.profiles.delete(doc.uri.toString())),
        );
    }

    /** `wave-lsp/profileChanged`: the document's profiles now (an empty list clears them). */
    changed(params: ProfileChanged): void {
        const kernels = new Map<string, KernelProfile>();
        for (const profile of params.profiles ?? []) {
            kernels.set(profile.kernel, profile);
        }
        this.profiles.set(params.uri, kernels);
        this.renderUri(params.uri);
    }

    /** The result of `wave-lsp.profile` for one kernel (a refusal names no profile). */
    show(result: KernelProfile | Refusal | undefined): void {
        if (typeof result?.uri !== 'string' || typeof result.kernel !== 'string') {
            return;
        }
        const kernels = this.profiles.get(result.uri) ?? new Map<string, KernelProfile>();
        kernels.set(result.kernel, result as KernelProfile);
        this.profiles.set(result.uri, kernels);
        this.renderUri(result.uri);
    }

    private renderUri(uri: string): void {
        for (const editor of vscode.window.visibleTextEditors) {
            if (editor.document.uri.toString() === uri) {
                this.render(editor);
            }
        }
    }

    private render(editor: vscode.TextEditor): void {
        const kernels = this.profiles.get(editor.document.uri.toString());
        const byLevel = linesByLevel(kernels?.values() ?? []);
        const last = editor.document.lineCount - 1;
        this.levels.forEach((type, index) => editor.setDecorations(type, byLevel[index]
            .filter((line) => line <= last)
            .map((line) => new vscode.Range(line, 0, line, 0))));
    }

    dispose(): void {
        this.subscriptions.forEach((s) => { s.dispose(); });
        this.levels.forEach((type) => { type.dispose(); });
    }
}
