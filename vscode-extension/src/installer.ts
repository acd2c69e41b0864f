/**
 * Installing the bundled server: the project's wheel, shipped inside the .vsix under `server/`,
 * goes into a private virtual environment in the extension's global storage folder
 * (`python -m venv`, then `pip install <wheel>`; pip fetches the wheel's dependencies from the
 * package index the user's pip is configured for). A platform's .vsix also ships the wheels
 * with the native core (one per CPython version, as ruff ships its binaries per platform): the
 * one for the user's Python is installed where pip takes it, else the pure wheel. Progress is shown as a notification and every
 * step is logged to the WAVE output channel.
 */
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { bundledWheel, isExecutable, isSupportedPython, nativeWheelFor, pythonCandidates, venvPython } from './serverLocator';

export class InstallError extends Error {}

/** The environment of the install's commands: without PYTHONPATH, through which pip would see a
 * wave-lsp checkout as installed already and skip the wheel (the private environment then had
 * no `wave-lsp`). */
function installEnv(): NodeJS.ProcessEnv {
    const env = { ...process.env };
    delete env.PYTHONPATH;
    return env;
}

function run(command: string, args: string[], log: vscode.OutputChannel): Promise<string> {
    log.appendLine(`$ ${command} ${args.join(' ')}`);
    return new Promise((resolve, reject) => {
        execFile(command, args, { maxBuffer: 16 * 1024 * 1024, env: installEnv() }, (error, stdout, stderr) => {
            const output = `${stdout}${stderr}`;
            if (output.trim() !== '') {
                log.appendLine(output.trimEnd());
            }
            if (error) {
                reject(new InstallError(`${path.basename(command)} ${args[0] ?? ''} failed: ${stderr.trim().split('\n').pop() ?? error.message}`));
            } else {
                resolve(output);
            }
        });
    });
}


/** The first Python ≥ 3.11 among the candidates and its `--version`; throws with what was tried
 * otherwise. */
export async function findPython(interpreter: string, log: vscode.OutputChannel): Promise<{ python: string; version: string }> {
    const candidates = pythonCandidates({
        interpreter, envPath: process.env.PATH ?? '', platform: process.platform, isExecutable,
    });
    for (const python of candidates) {
        try {
            const version = await run(python, ['--version'], log);
            if (isSupportedPython(version)) {
                return { python, version: version.trim() };
            }
        } catch {
            // try the next one
        }
    }
    throw new InstallError(
        `no Python 3.11 or newer found (tried ${candidates.join(', ') || 'python3 on PATH'}); ` +
        'install one or set "wave.server.interpreter"');
}

/** The pure wheel shipped in the extension, or undefined when this build has none. */
export function shippedWheel(extensionPath: string): string | undefined {
    const folder = path.join(extensionPath, 'server');
    const wheel = bundledWheel(wheelFiles(folder));
    return wheel === undefined ? undefined : path.join(folder, wheel);
}

/** The files of the folder the pure wheel is in (the wheels with the native core beside it). */
export function wheelFiles(folder: string): string[] {
    try {
        return fs.readdirSync(folder).filter((f) => f.endsWith('.whl'));
    } catch {
        return [];
    }
}

/** Creates (or refreshes) the private environment and installs the server into it: the wheel
 * with the native core for the found Python where the .vsix has one and pip takes it, else the
 * pure wheel (kernels then run on the numpy engine: one line in the log says why). Returns the
 * wheel installed. */
export async function installBundledServer(
    wheel: string, privateEnv: string, interpreter: string, log: vscode.OutputChannel,
): Promise<string> {
    log.show(true);
    return await vscode.window.withProgress({
        location: vscode.ProgressLocation.Notification,
        title: 'WAVE: installing the wave-lsp server',
        cancellable: false,
    }, async (progress) => {
        progress.report({ message: 'looking for Python 3.11+', increment: 5 });
        const { python, version } = await findPython(interpreter, log);
        progress.report({ message: `creating a virtual environment with ${python}`, increment: 15 });
        fs.mkdirSync(path.dirname(privateEnv), { recursive: true });
        await run(python, ['-m', 'venv', '--clear', privateEnv], log);
        const pip = (file: string) => run(venvPython(privateEnv, process.platform),
            ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', file], log);
        const folder = path.dirname(wheel);
        const native = nativeWheelFor(wheelFiles(folder), version);
        let why = native.why;
        if (native.wheel !== undefined) {
            progress.report({ message: `installing ${native.wheel} (the native core) and its dependencies`, increment: 20 });
            try {
                await pip(path.join(folder, native.wheel));
                progress.report({ message: 'done', increment: 60 });
                return path.join(folder, native.wheel);
            } catch (error) {
                why = `pip did not install ${native.wheel} (${error instanceof Error ? error.message : String(error)})`;
            }
        }
        progress.report({ message: `installing ${path.basename(wheel)} and its dependencies`, increment: 20 });
        await pip(wheel);
        log.appendLine(`WAVE: installed the pure wheel, without the native core: kernels run on the numpy engine (slower): ${why}.`);
        progress.report({ message: 'done', increment: 60 });
        return wheel;
    });
}
