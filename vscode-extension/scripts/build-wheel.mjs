// Builds the project's wheels into server/ (shipped inside the .vsix, installed on demand into a
// private virtual environment). Uses the Python in the repository's .venv when there is one.
// Always the pure wheel (WAVE_LSP_PURE=1, setup.py: no native core; it installs on every
// platform and Python); with --native also the wheel with the native core for this machine and
// Python (WAVE_LSP_REQUIRE_NATIVE=1: it fails without a C compiler), for a .vsix of this
// platform (`npm run package:native`). Release builds take cibuildwheel's wheels instead
// (package.mjs --wheels).
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const extension = path.resolve(import.meta.dirname, '..');
const root = path.dirname(extension);
const out = path.join(extension, 'server');
const venvPython = path.join(root, '.venv', 'bin', 'python');
const python = process.env.WAVE_PYTHON ?? (fs.existsSync(venvPython) ? venvPython : 'python3');
const native = process.argv.includes('--native');

// The build backend pyproject.toml names (setuptools >= 77) from the interpreter itself where it
// has it (the project's test environment does), else in pip's isolated build environment, which
// pip makes anew, from the package index, for every wheel.
const hasBackend = spawnSync(python, ['-c',
    'import sys, setuptools; sys.exit(int(setuptools.__version__.split(".")[0]) < 77)']).status === 0;
const isolation = hasBackend ? ['--no-build-isolation'] : [];

function wheel(env) {
    const build = fs.mkdtempSync(path.join(extension, '.wheel-build-'));
    try {
        execFileSync(python, ['-m', 'pip', 'wheel', '--quiet', '--no-deps', ...isolation,
            '--wheel-dir', out, root],
            { stdio: 'inherit', env: { ...process.env, PIP_BUILD_TRACKER: '', ...env }, cwd: build });
    } finally {
        fs.rmSync(build, { recursive: true, force: true });
    }
}

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out);
wheel({ WAVE_LSP_PURE: '1' });
if (native) {
    wheel({ WAVE_LSP_PURE: '', WAVE_LSP_REQUIRE_NATIVE: '1' });
}
console.log(`built ${fs.readdirSync(out).join(', ')}`);
