/**
 * Restricted Mode (an untrusted workspace): which values of a setting count.
 *
 * A workspace's own `.vscode/settings.json` and its virtual environments come with the folder,
 * from whoever wrote it. Settings that start programs (`wave.server.*`, `wave.backends.*`) are
 * declared in package.json's `capabilities.untrustedWorkspaces.restrictedConfigurations`; while
 * the workspace is untrusted only their user-level values count, and the server locator skips
 * the workspace's virtual environments. Pure logic, unit-tested without VS Code.
 */

/** What `WorkspaceConfiguration.inspect` returns (the scopes this extension reads). */
export interface Inspected<T> {
    globalValue?: T;
    globalLanguageValue?: T;
    workspaceValue?: T;
    workspaceLanguageValue?: T;
    workspaceFolderValue?: T;
    workspaceFolderLanguageValue?: T;
}

/** The restricted keys the manifest declares, without the `wave.` prefix. */
export function restrictedKeys(packageJSON: { capabilities?: { untrustedWorkspaces?: { restrictedConfigurations?: string[] } } }): string[] {
    return (packageJSON.capabilities?.untrustedWorkspaces?.restrictedConfigurations ?? [])
        .filter((key) => key.startsWith('wave.')).map((key) => key.slice('wave.'.length));
}

/** The value the user set, the most specific scope first; an untrusted workspace's own values
 * of a restricted setting are passed over (`ignored` says whether one was). */
export function effectiveValue<T>(seen: Inspected<T> | undefined, restricted: boolean, trusted: boolean): { value?: T; ignored: boolean } {
    if (seen === undefined) {
        return { ignored: false };
    }
    const user = seen.globalLanguageValue ?? seen.globalValue;
    const workspace = seen.workspaceFolderLanguageValue ?? seen.workspaceLanguageValue
        ?? seen.workspaceFolderValue ?? seen.workspaceValue;
    if (restricted && !trusted) {
        return { value: user, ignored: workspace !== undefined };
    }
    return {
        value: seen.workspaceFolderLanguageValue ?? seen.workspaceLanguageValue ?? seen.globalLanguageValue
            ?? seen.workspaceFolderValue ?? seen.workspaceValue ?? seen.globalValue,
        ignored: false,
    };
}

/** What the log says while the workspace is untrusted: the restricted settings (`keys`), whose
 * workspace values VS Code itself hides then, and the virtual environments passed over. */
export function restrictedNotice(keys: string[], skippedEnvs: string[]): string {
    const settings = `its values of ${keys.map((k) => `wave.${k}`).join(', ')}`;
    const envs = skippedEnvs.length > 0 ? `the workspace's virtual environments (${skippedEnvs.join(', ')}) and ` : 'the workspace\'s ';
    return `Restricted Mode: ${envs}${skippedEnvs.length > 0 ? settings : settings.slice('its '.length)} ` +
        'are ignored until the workspace is trusted; no program the workspace names is started.';
}
