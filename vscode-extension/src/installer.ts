/**
 * Installing the bundled server: the project's wheel, shipped inside the .vsix under `server/`,
 * goes into a private virtual environment in the extension's global storage folder
 * (`python -m venv`, then `pip install <wheel>`; pip fetches the wheel's dependencies from the
 * package index the user's pip is configured for). Progress is shown as a notification and every
 * step is logged to the WAVE output channel.
 */
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { bundledWheel, isExecutable, isSupportedPython, pythonCandidates, venvPython } from './serverLocator';

export class InstallError extends Error {}

function run(command: string, args: string[], log: vscode.OutputChannel): Promise<string> {
    log.appendLine(`$ ${command} ${args.join(' ')}`);
    return new Promise((resolve, reject) => {
        execFile(command, args, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
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


/** The first Python ≥ 3.11 among the candidates; throws with what was tried otherwise. */
export async function findPython(interpreter: string, log: vscode.OutputChannel): Promise<string> {
    const candidates = pythonCandidates({
        interpreter, envPath: process.env.PATH ?? '', platform: process.platform, isExecutable,
    });
    for (const python of candidates) {
        try {
            if (isSupportedPython(await run(python, ['--version'], log))) {
                return python;
            }
        } catch {
            // try the next one
        }
    }
    throw new InstallError(
        `no Python 3.11 or newer found (tried ${candidates.join(', ') || 'python3 on PATH'}); ` +
        'install one or set "wave.server.interpreter"');
}

/** The wheel shipped in the extension, or undefined when this build has none. */
export function shippedWheel(extensionPath: string): string | undefined {
    const folder = path.join(extensionPath, 'server');
    let files: string[] = [];
    try {
        files = fs.readdirSync(folder);
    } catch {
        return undefined;
    }
    const wheel = bundledWheel(files);
    return wheel === undefined ? undefined : path.join(folder, wheel);
}

/** Creates (or refreshes) the private environment and installs the wheel into it. */
export async function installBundledServer(
    wheel: string, privateEnv: string, interpreter: string, log: vscode.OutputChannel,
): Promise<void> {
    log.show(true);
    await vscode.window.withProgress({
        location: vscode.ProgressLocation.Notification,
        title: 'WAVE: installing the wave-lsp server',
        cancellable: false,
    }, async (progress) => {
        progress.report({ message: 'looking for Python 3.11+', increment: 5 });
        const python = await findPython(interpreter, log);
        progress.report({ message: `creating a virtual environment with ${python}`, increment: 15 });
        fs.mkdirSync(path.dirname(privateEnv), { recursive: true });
        await run(python, ['-m', 'venv', '--clear', privateEnv], log);
        progress.report({ message: `installing ${path.basename(wheel)} and its dependencies`, increment: 20 });
        await run(venvPython(privateEnv, process.platform),
            ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', wheel], log);
        progress.report({ message: 'done', increment: 60 });
    });
}
