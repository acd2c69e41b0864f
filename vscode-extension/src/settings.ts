/**
 * The server's settings: the `wave.*` settings minus the client's own (`wave.server.*`, `wave.debug.*`,
 * `wave.trace.*`), as one nested object, sent as `initializationOptions` and as the answer to
 * `workspace/configuration`. Only values the user set (in any settings scope) are sent, so the
 * server's own defaults apply to the rest and a server older than this extension is not sent keys
 * it does not know. In Restricted Mode the workspace's own values of the settings that start
 * programs are not sent (`restricted.ts`).
 */
import * as vscode from 'vscode';
import { effectiveValue } from './restricted';

export const SECTION = 'wave';
const CLIENT_ONLY = ['server.', 'trace.', 'debug.'];

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

/** The value of `wave.<key>` the user set, the workspace's own value of a restricted setting
 * passed over while the workspace is untrusted (`restricted.ts`). */
export function settingValue<T>(key: string, restricted: string[], scope?: vscode.ConfigurationScope): { value?: T; ignored: boolean } {
    const seen = vscode.workspace.getConfiguration(SECTION, scope).inspect<T>(key);
    return effectiveValue(seen, restricted.includes(key), vscode.workspace.isTrusted);
}

/** The server settings for `scope` (a document or workspace folder), user-set values only. */
export function serverSettings(keys: string[], restricted: string[], scope?: vscode.ConfigurationScope): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const key of keys) {
        const set = settingValue(key, restricted, scope).value;
        if (set !== undefined) {
            setDotted(out, key, set);
        }
    }
    return out;
}
