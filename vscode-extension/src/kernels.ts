/**
 * Which kernel a command acts on: the one containing the cursor, from the server's document
 * symbols (kernels are `Function` symbols); the only one, or the user's pick, otherwise.
 */
import * as vscode from 'vscode';

export async function kernelAt(doc: vscode.TextDocument, position: vscode.Position): Promise<string | undefined> {
    const symbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[] | undefined>(
        'vscode.executeDocumentSymbolProvider', doc.uri);
    const kernels = (symbols ?? []).filter((s) => s.kind === vscode.SymbolKind.Function);
    if (kernels.length === 0) {
        void vscode.window.showWarningMessage('WAVE: this file has no kernel to run (.kernel NAME ... .end).');
        return undefined;
    }
    const here = kernels.find((k) => k.range.contains(position));
    if (here !== undefined) {
        return here.name;
    }
    if (kernels.length === 1) {
        return kernels[0].name;
    }
    return vscode.window.showQuickPick(kernels.map((k) => k.name), { placeHolder: 'Kernel to run' });
}
