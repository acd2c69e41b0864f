/**
 * The server's settings: the `wave.*` settings minus the client's own (`wave.server.*`,
 * `wave.trace.*`), as one nested object, sent as `initializationOptions` and as the answer to
 * `workspace/configuration`. Only values the user set (in any settings scope) are sent, so the
 * server's own defaults apply to the rest and a server older than this extension is not sent keys
 * it does not know.
 */
import * as vscode from 'vscode';

export const SECTION = 'wave';
const CLIENT_ONLY = ['server.', 'trace.'];

/** The `wave.*` keys this extension declares (without the `wave.` prefix). */
export function declaredKeys(packageJSON: { contributes?: { configuration?: { properties?: Record<string, unknown> } } }): string[] {
    const properties = packageJSON.contributes?.configuration?.properties ?? {};
    return Object.keys(properties)
        .filter((key) => key.startsWith(`${SECTION}.`))
        .map((key) => key.slice(SECTION.length + 1))
        .filter((key) => !CLIENT_ONLY.some((prefix) => key.startsWith(prefix)));
}

/** Sets `value` at the dotted `key` of `target`. */
export function setDotted(target: Record<string, unknown>, key: string, value: unknown): void {
    const parts = key.split('.');
    let node = target;
    for (const part of parts.slice(0, -1)) {
        if (typeof node[part] !== 'object' || node[part] === null) {
            node[part] = {};
        }
        node = node[part] as Record<string, unknown>;
    }
    node[parts[parts.length - 1]] = value;
}

/** The server settings for `scope` (a document or workspace folder), user-set values only. */
export function serverSettings(keys: string[], scope?: vscode.ConfigurationScope): Record<string, unknown> {
    const config = vscode.workspace.getConfiguration(SECTION, scope);
    const out: Record<string, unknown> = {};
    for (const key of keys) {
        const seen = config.inspect(key);
        const set = seen?.workspaceFolderLanguageValue ?? seen?.workspaceLanguageValue ?? seen?.globalLanguageValue
            ?? seen?.workspaceFolderValue ?? seen?.workspaceValue ?? seen?.globalValue;
        if (set !== undefined) {
            setDotted(out, key, set);
        }
    }
    return out;
}
