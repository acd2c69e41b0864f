/**
 * Which kernel a command acts on: the one containing the cursor, as the server's
 * `wave-lsp.kernelAt` says; between kernels, the only one, or the user's pick, from the server's
 * document symbols (kernels are `Function` symbols).
 */
import * as vscode from 'vscode';
import { KERNEL_AT, type CommandArguments, type CommandResult } from './generated/extensions';

/** Asks the server `wave-lsp.kernelAt` (undefined: it could not answer). */
export type KernelAtServer = (args: CommandArguments<typeof KERNEL_AT>) => Promise<CommandResult<typeof KERNEL_AT> | undefined>;

export async function kernelAt(server: KernelAtServer, doc: vscode.TextDocument, position: vscode.Position): Promise<string | undefined> {
    const here = await server([doc.uri.toString(), position.line]);
    if (here) {
        return here.kernel;
    }
    const symbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[] | undefined>(
        'vscode.executeDocumentSymbolProvider', doc.uri);
    const kernels = (symbols ?? []).filter((s) => s.kind === vscode.SymbolKind.Function);
    if (kernels.length === 0) {
        void vscode.window.showWarningMessage('WAVE: this file has no kernel to run (.kernel NAME ... .end).');
        return undefined;
    }
    if (kernels.length === 1) {
        return kernels[0].name;
    }
    return vscode.window.showQuickPick(kernels.map((k) => k.name), { placeHolder: 'Kernel to run' });
}
