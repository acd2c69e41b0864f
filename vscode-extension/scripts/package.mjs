// Packages the extension with vsce: the example kernel the walkthrough opens is copied from the
// repository's examples/, and `repository` is filled from the git remote when that is a published
// URL (left out for none or a local path, as in a clone of a clone; package.json is restored
// afterwards). vsce rewrites the README's relative image links only for hosts it knows; for
// any other (or no) remote, the packaged README carries its screenshots as `data:` URLs, since
// VS Code's extension page resolves no relative link (README.md is restored afterwards too).
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const extension = path.resolve(import.meta.dirname, '..');
const root = path.dirname(extension);
const manifestPath = path.join(extension, 'package.json');
const original = fs.readFileSync(manifestPath, 'utf8');
const readmePath = path.join(extension, 'README.md');
const readme = fs.readFileSync(readmePath, 'utf8');

/** The README with each relative PNG image link as a `data:` URL. */
function inlinedReadme(text) {
    return text.replace(/(!\[[^\]]*\]\()([^)\s]+\.png)\)/g, (whole, head, link) => {
        if (/^[a-z]+:/i.test(link)) {
            return whole;
        }
        const bytes = fs.readFileSync(path.join(extension, link));
        return `${head}data:image/png;base64,${bytes.toString('base64')})`;
    });
}
const manifest = JSON.parse(original);

fs.mkdirSync(path.join(extension, 'examples'), { recursive: true });
fs.copyFileSync(path.join(root, 'examples', 'vector_add.wave'), path.join(extension, 'examples', 'vector_add.wave'));

let remote = '';
try {
    remote = execFileSync('git', ['remote', 'get-url', 'origin'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
} catch { /* no remote: no repository field */ }
const vsce = path.join(extension, 'node_modules', '.bin', 'vsce');
const args = ['package', '--no-dependencies', '--out', `wave-lsp-${manifest.version}.vsix`];
const published = /^(https?:\/\/|ssh:\/\/|git@)/.test(remote) ? remote : '';
try {
    if (published) {
        manifest.repository = { type: 'git', url: published };
        fs.writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
    } else {
        args.push('--allow-missing-repository');
    }
    if (!/(^|[@/.])(github|gitlab)\.com[:/]/.test(published)) {
        args.push('--no-rewrite-relative-links');
        fs.writeFileSync(readmePath, inlinedReadme(readme));
    }
    execFileSync(vsce, args, { cwd: extension, stdio: 'inherit' });
} finally {
    fs.writeFileSync(manifestPath, original);
    fs.writeFileSync(readmePath, readme);
}
