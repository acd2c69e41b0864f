/**
 * Finding the language server: which command starts `wave-lsp serve`.
 *
 * The order, first match wins:
 *   1. `wave.server.command` (an explicit command line);
 *   2. `wave.server.interpreter` (a Python with wave-lsp installed: `python -m wave_lsp serve`);
 *   3. a `wave-lsp` in a virtual environment of a workspace folder (`.venv`, `venv`, `env`),
 *      only in a trusted workspace (in Restricted Mode the folder's programs never start);
 *   4. a `wave-lsp` on `PATH`;
 *   5. the bundled server, once installed into the extension's private virtual environment.
 * When none is found the caller offers to install the bundled server (see installer.ts).
 *
 * Pure logic over an injected file-system view (`isExecutable` is the real one), unit-tested
 * without VS Code.
 */
import * as fs from 'fs';
import * as path from 'path';

export interface ServerCommand {
    command: string;
    args: string[];
    /** Where it came from, for the log and the status bar tooltip. */
    source: 'setting' | 'interpreter' | 'workspace' | 'path' | 'bundled';
}

export interface LocatorInput {
    /** `wave.server.command`: an explicit command line (empty for none). */
    command: string[];
    /** `wave.server.interpreter`: a Python interpreter (empty for none). */
    interpreter: string;
    workspaceFolders: string[];
    /** Whether the workspace is trusted: an untrusted one's virtual environments are skipped. */
    trusted: boolean;
    /** The PATH environment variable. */
    envPath: string;
    platform: NodeJS.Platform;
    /** The private virtual environment the bundled server is installed into. */
    privateEnv: string;
    /** Whether `file` exists and is executable. */
    isExecutable: (file: string) => boolean;
}

/** Whether `file` is an executable regular file (the real `LocatorInput.isExecutable`). */
export function isExecutable(file: string): boolean {
    try {
        fs.accessSync(file, fs.constants.X_OK);
        return fs.statSync(file).isFile();
    } catch {
        return false;
    }
}

export const SERVE_ARGS = ['serve'];
export const VENV_FOLDERS = ['.venv', 'venv', 'env'];

/** `bin/wave-lsp` of a virtual environment (`Scripts\wave-lsp.exe` on Windows). */
export function venvExecutable(env: string, platform: NodeJS.Platform, name = 'wave-lsp'): string {
    return platform === 'win32'
        ? path.win32.join(env, 'Scripts', `${name}.exe`)
        : path.posix.join(env, 'bin', name);
}

/** The interpreter of a virtual environment. */
export function venvPython(env: string, platform: NodeJS.Platform): string {
    return platform === 'win32'
        ? path.win32.join(env, 'Scripts', 'python.exe')
        : path.posix.join(env, 'bin', 'python');
}

/** The first executable `name` on `envPath`. */
export function whichOnPath(name: string, input: Pick<LocatorInput, 'envPath' | 'platform' | 'isExecutable'>): string | undefined {
    const win = input.platform === 'win32';
    const sep = win ? ';' : ':';
    const names = win ? [`${name}.exe`, `${name}.cmd`, name] : [name];
    for (const dir of input.envPath.split(sep)) {
        if (!dir) {
            continue;
        }
        for (const candidate of names) {
            const file = (win ? path.win32 : path.posix).join(dir, candidate);
            if (input.isExecutable(file)) {
                return file;
            }
        }
    }
    return undefined;
}

/** The server command to start, or undefined when none is installed. */
export function locateServer(input: LocatorInput): ServerCommand | undefined {
    const explicit = input.command.filter((part) => part.trim() !== '');
    if (explicit.length > 0) {
        return { command: explicit[0], args: explicit.slice(1), source: 'setting' };
    }
    if (input.interpreter.trim() !== '') {
        return { command: input.interpreter.trim(), args: ['-m', 'wave_lsp', ...SERVE_ARGS], source: 'interpreter' };
    }
    for (const folder of input.trusted ? input.workspaceFolders : []) {
        for (const env of VENV_FOLDERS) {
            const exe = venvExecutable(path.join(folder, env), input.platform);
            if (input.isExecutable(exe)) {
                return { command: exe, args: [...SERVE_ARGS], source: 'workspace' };
            }
        }
    }
    const onPath = whichOnPath('wave-lsp', input);
    if (onPath !== undefined) {
        return { command: onPath, args: [...SERVE_ARGS], source: 'path' };
    }
    const bundled = venvExecutable(input.privateEnv, input.platform);
    if (input.isExecutable(bundled)) {
        return { command: bundled, args: [...SERVE_ARGS], source: 'bundled' };
    }
    return undefined;
}

/** The workspace's virtual-environment servers an untrusted workspace passes over. */
export function skippedWorkspaceServers(input: LocatorInput): string[] {
    if (input.trusted) {
        return [];
    }
    return input.workspaceFolders.flatMap((folder) => VENV_FOLDERS
        .map((env) => venvExecutable(path.join(folder, env), input.platform))
        .filter((exe) => input.isExecutable(exe)));
}

/** Python interpreters to try for creating the private environment, in order. */
export function pythonCandidates(input: Pick<LocatorInput, 'interpreter' | 'envPath' | 'platform' | 'isExecutable'>): string[] {
    const out: string[] = [];
    if (input.interpreter.trim() !== '') {
        out.push(input.interpreter.trim());
    }
    const names = input.platform === 'win32' ? ['py', 'python3', 'python'] : ['python3.13', 'python3.12', 'python3.11', 'python3', 'python'];
    for (const name of names) {
        const found = whichOnPath(name, input);
        if (found !== undefined && !out.includes(found)) {
            out.push(found);
        }
    }
    return out;
}

/** Parses `python --version` output ("Python 3.11.2"); true when it is at least 3.11. */
export function isSupportedPython(versionOutput: string): boolean {
    const match = /Python\s+(\d+)\.(\d+)/.exec(versionOutput);
    if (match === null) {
        return false;
    }
    const major = Number(match[1]);
    const minor = Number(match[2]);
    return major > 3 || (major === 3 && minor >= 11);
}

/** The bundled wheel's file name among `files` (`wave_lsp-<version>-py3-none-any.whl`). */
export function bundledWheel(files: string[]): string | undefined {
    return files.filter((f) => /^wave_lsp-[^-]+-py3-none-any\.whl$/.test(f)).sort().pop();
}

/** The wheels with the native core among `files` (`wave_lsp-<version>-cpXY-cpXY-<platform>.whl`:
 * a platform's .vsix bundles one per CPython version, beside the pure wheel). */
export function nativeWheels(files: string[]): string[] {
    return files.filter((f) => /^wave_lsp-[^-]+-cp\d+-cp\d+-[^-]+\.whl$/.test(f)).sort();
}

/** The CPython wheel tag (`cp311`) of `python --version` output, or undefined. */
export function pythonTag(versionOutput: string): string | undefined {
    const match = /Python\s+(\d+)\.(\d+)/.exec(versionOutput);
    return match === null ? undefined : `cp${match[1]}${match[2]}`;
}

/** The native wheel among `files` for the Python whose `--version` said `versionOutput`, or why
 * there is none (for the one line that says the numpy engine will run kernels). Whether the
 * wheel suits that interpreter's platform and ABI is then pip's to say. */
export function nativeWheelFor(files: string[], versionOutput: string): { wheel?: string; why?: string } {
    const tag = pythonTag(versionOutput);
    const native = nativeWheels(files);
    if (native.length === 0) {
        return { why: 'this extension has no native core for this platform (a universal .vsix)' };
    }
    const wheel = native.find((f) => tag !== undefined && f.includes(`-${tag}-${tag}-`));
    if (wheel === undefined) {
        const tags = native.map((f) => /-(cp\d+)-/.exec(f)?.[1]).join(', ');
        return { why: `its native core is built for ${tags}, not ${versionOutput.trim() || 'this Python'}` };
    }
    return { wheel };
}

/** The version in a wheel file name. */
export function wheelVersion(wheel: string): string | undefined {
    return /^wave_lsp-([^-]+)-/.exec(path.basename(wheel))?.[1];
}
