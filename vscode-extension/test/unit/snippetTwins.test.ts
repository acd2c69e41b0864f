/**
 * Unit tests of the dedupe of the server's completion items against the extension's snippets.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { snippetPrefixes, withoutSnippetTwins } from '../../src/snippetTwins';

describe('snippet twins', () => {
    const file = path.join(__dirname, '..', '..', '..', 'snippets', 'wave.json');
    const prefixes = snippetPrefixes(JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, { prefix?: string }>);
    it('reads the prefixes of the shipped snippets', () => {
        assert.ok(prefixes.has('.kernel') && prefixes.has('if') && prefixes.has('loop'), [...prefixes].join());
    });
    it('drops the server items a snippet stands for, and keeps the rest', () => {
        const items = [{ label: '.kernel' }, { label: '.registers' }, { label: { label: 'if' } }, { label: 'iadd' }];
        assert.deepEqual(withoutSnippetTwins(items, prefixes), [{ label: '.registers' }, { label: 'iadd' }]);
    });
});
