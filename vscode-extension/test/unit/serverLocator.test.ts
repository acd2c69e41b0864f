/**
 * Unit tests of the server-finding logic, on real temporary directories with real executables.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
    bundledWheel, isExecutable, isSupportedPython, LocatorInput, locateServer, nativeWheelFor, nativeWheels, pythonCandidates, pythonTag, skippedWorkspaceServers, venvExecutable, wheelVersion, whichOnPath,
} from '../../src/serverLocator';

let root: string;

function executable(file: string): string {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    return file;
}


function input(overrides: Partial<LocatorInput> = {}): LocatorInput {
    return {
        command: [], interpreter: '', workspaceFolders: [path.join(root, 'ws')], trusted: true,
        envPath: path.join(root, 'bin'), platform: 'linux', privateEnv: path.join(root, 'storage', 'server-env'),
        isExecutable, ...overrides,
    };
}

beforeEach(() => { root = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-locator-')); });
afterEach(() => { fs.rmSync(root, { recursive: true, force: true }); });

describe('locateServer', () => {
    it('finds nothing on a bare machine', () => {
        assert.equal(locateServer(input()), undefined);
    });

    it('uses the explicit command first, even over a workspace venv', () => {
        executable(path.join(root, 'ws', '.venv', 'bin', 'wave-lsp'));
        const found = locateServer(input({ command: ['/opt/wave/bin/wave-lsp', 'serve', '--log-level', 'DEBUG'] }));
        assert.deepEqual(found, { command: '/opt/wave/bin/wave-lsp', args: ['serve', '--log-level', 'DEBUG'], source: 'setting' });
    });

    it('ignores blank parts of the explicit command', () => {
        executable(path.join(root, 'bin', 'wave-lsp'));
        assert.equal(locateServer(input({ command: ['', '  '] }))?.source, 'path');
    });

    it('runs the module with an explicit interpreter', () => {
        const found = locateServer(input({ interpreter: ' /usr/bin/python3.12 ' }));
        assert.deepEqual(found, { command: '/usr/bin/python3.12', args: ['-m', 'wave_lsp', 'serve'], source: 'interpreter' });
    });

    it('prefers the workspace virtual environment over PATH', () => {
        executable(path.join(root, 'bin', 'wave-lsp'));
        const exe = executable(path.join(root, 'ws', 'venv', 'bin', 'wave-lsp'));
        assert.deepEqual(locateServer(input()), { command: exe, args: ['serve'], source: 'workspace' });
    });

    it('never starts a workspace virtual environment in an untrusted workspace', () => {
        const planted = executable(path.join(root, 'ws', '.venv', 'bin', 'wave-lsp'));
        assert.equal(locateServer(input({ trusted: false })), undefined);
        assert.deepEqual(skippedWorkspaceServers(input({ trusted: false })), [planted]);
        const onPath = executable(path.join(root, 'bin', 'wave-lsp'));
        assert.deepEqual(locateServer(input({ trusted: false })), { command: onPath, args: ['serve'], source: 'path' });
        assert.equal(locateServer(input())?.command, planted);
        assert.deepEqual(skippedWorkspaceServers(input()), []);
    });

    it('looks in .venv before venv and in every workspace folder', () => {
        const second = path.join(root, 'ws2');
        executable(path.join(second, 'venv', 'bin', 'wave-lsp'));
        const dotVenv = executable(path.join(second, '.venv', 'bin', 'wave-lsp'));
        const found = locateServer(input({ workspaceFolders: [path.join(root, 'ws'), second] }));
        assert.equal(found?.command, dotVenv);
    });

    it('skips a wave-lsp that is not executable', () => {
        const file = path.join(root, 'ws', '.venv', 'bin', 'wave-lsp');
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, 'not executable', { mode: 0o644 });
        assert.equal(locateServer(input()), undefined);
    });

    it('finds wave-lsp on PATH, in PATH order', () => {
        executable(path.join(root, 'later', 'wave-lsp'));
        const first = executable(path.join(root, 'bin', 'wave-lsp'));
        const envPath = ['', path.join(root, 'missing'), path.join(root, 'bin'), path.join(root, 'later')].join(':');
        assert.deepEqual(locateServer(input({ envPath })), { command: first, args: ['serve'], source: 'path' });
    });

    it('falls back to the installed bundled server last', () => {
        const exe = executable(path.join(root, 'storage', 'server-env', 'bin', 'wave-lsp'));
        assert.deepEqual(locateServer(input()), { command: exe, args: ['serve'], source: 'bundled' });
        const onPath = executable(path.join(root, 'bin', 'wave-lsp'));
        assert.equal(locateServer(input())?.command, onPath);
    });

    it('uses Windows paths on Windows', () => {
        assert.equal(venvExecutable('C:\\ws\\.venv', 'win32'), 'C:\\ws\\.venv\\Scripts\\wave-lsp.exe');
        const seen: string[] = [];
        whichOnPath('wave-lsp', { envPath: 'C:\\a;C:\\b', platform: 'win32', isExecutable: (f) => { seen.push(f); return false; } });
        assert.deepEqual(seen.slice(0, 2), ['C:\\a\\wave-lsp.exe', 'C:\\a\\wave-lsp.cmd']);
    });
});

describe('installing the bundled server', () => {
    it('accepts Python 3.11 and newer only', () => {
        assert.equal(isSupportedPython('Python 3.11.2'), true);
        assert.equal(isSupportedPython('Python 3.13.0rc1\n'), true);
        assert.equal(isSupportedPython('Python 4.0.0'), true);
        assert.equal(isSupportedPython('Python 3.10.12'), false);
        assert.equal(isSupportedPython('Python 2.7.18'), false);
        assert.equal(isSupportedPython('command not found'), false);
    });

    it('tries the configured interpreter first, then versioned pythons on PATH', () => {
        const py311 = executable(path.join(root, 'bin', 'python3.11'));
        const py3 = executable(path.join(root, 'bin', 'python3'));
        assert.deepEqual(pythonCandidates(input({ interpreter: '/custom/python' })), ['/custom/python', py311, py3]);
    });

    it('picks the bundled wheel and reads its version', () => {
        const wheel = bundledWheel(['README.md', 'wave_lsp-0.1.0-py3-none-any.whl', 'other-1.0-py3-none-any.whl']);
        assert.equal(wheel, 'wave_lsp-0.1.0-py3-none-any.whl');
        assert.equal(wheelVersion(`/ext/server/${wheel}`), '0.1.0');
        assert.equal(bundledWheel(['wave_lsp-0.1.0.tar.gz']), undefined);
    });

    it('picks the native wheel for the found Python, or says why there is none', () => {
        const files = ['wave_lsp-0.1.0-py3-none-any.whl', 'wave_lsp-0.1.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl',
            'wave_lsp-0.1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl', 'README.md'];
        assert.deepEqual(nativeWheels(files), [files[2], files[1]]);
        assert.equal(pythonTag('Python 3.12.4\n'), 'cp312');
        assert.deepEqual(nativeWheelFor(files, 'Python 3.11.2'), { wheel: files[2] });
        assert.deepEqual(nativeWheelFor(files, 'Python 3.13.0'),
            { why: 'its native core is built for cp311, cp312, not Python 3.13.0' });
        assert.match(nativeWheelFor(['wave_lsp-0.1.0-py3-none-any.whl'], 'Python 3.11.2').why ?? '', /universal \.vsix/);
    });
});
