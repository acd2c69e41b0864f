/**
 * Unit tests of Restricted Mode's choice of setting values (restricted.ts), and of the manifest's
 * declaration of the settings that start programs.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { effectiveValue, restrictedKeys, restrictedNotice } from '../../src/restricted';

interface Manifest {
    capabilities?: { untrustedWorkspaces?: { restrictedConfigurations?: string[] } };
    contributes: { configuration: { properties: Record<string, unknown> } };
}

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as Manifest;

describe('restricted settings', () => {
    it('the manifest restricts every setting that names a program', () => {
        assert.deepEqual(restrictedKeys(manifest).sort(),
            ['backends.hipcc', 'backends.ptxas', 'server.command', 'server.interpreter']);
        for (const key of restrictedKeys(manifest)) {
            assert.ok(`wave.${key}` in manifest.contributes.configuration.properties, key);
        }
    });

    it('an untrusted workspace keeps only the user value of a restricted setting', () => {
        const seen = { globalValue: '/usr/bin/ptxas', workspaceValue: './evil', workspaceFolderValue: './worse' };
        assert.deepEqual(effectiveValue(seen, true, false), { value: '/usr/bin/ptxas', ignored: true });
        assert.deepEqual(effectiveValue({ workspaceValue: './evil' }, true, false), { value: undefined, ignored: true });
        assert.deepEqual(effectiveValue({ globalValue: 'ptxas' }, true, false), { value: 'ptxas', ignored: false });
    });

    it('a trusted workspace, or a setting that starts nothing, keeps the most specific value', () => {
        const seen = { globalValue: 'a', workspaceValue: 'b', workspaceFolderValue: 'c' };
        assert.deepEqual(effectiveValue(seen, true, true), { value: 'c', ignored: false });
        assert.deepEqual(effectiveValue(seen, false, false), { value: 'c', ignored: false });
        // VS Code's order: a language-specific value beats a workspace value of all languages
        assert.deepEqual(effectiveValue({ globalLanguageValue: 'd', workspaceValue: 'b' }, false, true), { value: 'd', ignored: false });
        assert.deepEqual(effectiveValue(undefined, true, false), { ignored: false });
    });

    it('says what it ignores', () => {
        assert.equal(restrictedNotice(['server.command', 'backends.ptxas'], []),
            'Restricted Mode: the workspace\'s values of wave.server.command, wave.backends.ptxas are ignored ' +
            'until the workspace is trusted; no program the workspace names is started.');
        assert.match(restrictedNotice(['server.command'], ['/ws/.venv/bin/wave-lsp']),
            /^Restricted Mode: the workspace's virtual environments \(\/ws\/\.venv\/bin\/wave-lsp\) and its values of wave\.server\.command are ignored/);
    });
});
