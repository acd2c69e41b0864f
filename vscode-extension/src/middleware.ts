/**
 * The language client's middleware for code lenses and completion: "Debug Kernel" right after
 * the ▶ Run lens of each kernel (debug.ts); every server lens run through the extension's
 * SERVER_LENS_COMMAND (`routedLenses`); the server's lenses shown to the extension's listeners
 * (the Testing view follows the test outcome lenses); one completion row per name (the
 * extension's snippet, not also the server's item of the same name: snippetTwins.ts).
 */
import * as vscode from 'vscode';
import { Middleware } from 'vscode-languageclient/node';
import { withDebugLenses } from './debug';
import { withoutSnippetTwins } from './snippetTwins';

/** The extension's command behind every server lens (`routedLenses`). */
export const SERVER_LENS_COMMAND = 'wave.serverLens';

/** The lenses with each server command (`wave-lsp.*`) run through SERVER_LENS_COMMAND, so that
 * a click waits for a server that is (re)starting instead of being lost, and its result reaches
 * the extension (the walkthrough, the heat view). */
export function routedLenses(lenses: vscode.CodeLens[]): vscode.CodeLens[] {
    for (const lens of lenses) {
        const command = lens.command;
        if (command !== undefined && command.command.startsWith('wave-lsp.')) {
            lens.command = {
                title: command.title, tooltip: command.tooltip, command: SERVER_LENS_COMMAND,
                arguments: [command.command, ...((command.arguments ?? []) as unknown[])],
            };
        }
    }
    return lenses;
}

export function lensAndCompletionMiddleware(lensHandlers: ((lenses: vscode.CodeLens[]) => void)[],
    snippets: Set<string>): Middleware {
    return {
        provideCompletionItem: async (document, position, context, token, next) => {
            const found = await next(document, position, context, token);
            if (Array.isArray(found)) {
                return withoutSnippetTwins(found, snippets);
            }
            if (found) {
                found.items = withoutSnippetTwins(found.items, snippets);
            }
            return found;
        },
        provideCodeLenses: async (document, token, next) => {
            const lenses = (await next(document, token)) ?? [];
            lensHandlers.forEach((handler) => handler(lenses));
            return routedLenses(withDebugLenses(document, lenses));
        },
    };
}
