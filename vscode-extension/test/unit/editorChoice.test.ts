/**
 * Unit tests of which .wave editor a command started outside one acts on (the walkthrough's).
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseWaveEditor, EditorLike } from '../../src/editorChoice';

const editor = (name: string, languageId = 'wave', isClosed = false): EditorLike & { name: string } =>
    ({ name, document: { languageId, isClosed, uri: { toString: () => `file:///${name}` } } });

describe('the .wave editor a command acts on', () => {
    const kernel = editor('k.wave');
    const other = editor('b.wave');
    const markdown = editor('README.md', 'markdown');
    it('is the active one when it shows a .wave file', () => {
        assert.deepEqual(chooseWaveEditor(kernel, other, [other, kernel]), { editor: kernel, visible: true });
    });
    it('is the last active .wave editor when the walkthrough tab is active, shown again if covered', () => {
        assert.deepEqual(chooseWaveEditor(undefined, kernel, []), { editor: kernel, visible: false });
        assert.deepEqual(chooseWaveEditor(markdown, kernel, [markdown]), { editor: kernel, visible: false });
        const shown = editor('k.wave');
        assert.equal(chooseWaveEditor(undefined, kernel, [markdown, shown])?.editor, shown);
    });
    it('is a visible .wave editor when the last one was closed, and none without one', () => {
        assert.deepEqual(chooseWaveEditor(undefined, editor('k.wave', 'wave', true), [markdown, other]),
            { editor: other, visible: true });
        assert.equal(chooseWaveEditor(markdown, undefined, [markdown]), undefined);
    });
});
