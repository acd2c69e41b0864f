// Builds the project's wheel into server/ (shipped inside the .vsix, installed on demand into a
// private virtual environment). Uses the Python in the repository's .venv when there is one.
// WAVE_LSP_PURE=1 (setup.py) makes it pure Python, without the native emulator core, so that it
// installs on every platform and Python version.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const extension = path.resolve(import.meta.dirname, '..');
const root = path.dirname(extension);
const out = path.join(extension, 'server');
const venvPython = path.join(root, '.venv', 'bin', 'python');
const python = process.env.WAVE_PYTHON ?? (fs.existsSync(venvPython) ? venvPython : 'python3');

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out);
const build = fs.mkdtempSync(path.join(extension, '.wheel-build-'));
try {
    execFileSync(python, ['-m', 'pip', 'wheel', '--quiet', '--no-deps',
        '--wheel-dir', out, root], { stdio: 'inherit', env: { ...process.env, PIP_BUILD_TRACKER: '', WAVE_LSP_PURE: '1' }, cwd: build });
} finally {
    fs.rmSync(build, { recursive: true, force: true });
}
console.log(`built ${fs.readdirSync(out).join(', ')}`);
