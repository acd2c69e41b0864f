// Packages the extension with vsce: the universal .vsix (`npm run package`: the pure wheel) or,
// with `--target T`, the .vsix of one platform (`vsce package --target T`), which also bundles
// that platform's wheels with the native core (targets.mjs; `--target current`: this machine's).
// The wheels come from server/ (build-wheel.mjs) or, with `--wheels DIR`, from a folder of
// release wheels (cibuildwheel's and the pure one: .github/workflows/release.yml).
//
// The example kernel the walkthrough opens is copied from the repository's examples/, and
// `repository` is filled from the git remote when that is a published URL (left out for none or
// a local path, as in a clone of a clone; package.json is restored afterwards). vsce rewrites the
// README's relative image links only for hosts it knows; for any other (or no) remote, the
// packaged README carries its screenshots as `data:` URLs, since VS Code's extension page
// resolves no relative link (README.md is restored afterwards too).
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { currentTarget, wheelsFor, wheelTags } from './targets.mjs';

const extension = path.resolve(import.meta.dirname, '..');
const root = path.dirname(extension);
const manifestPath = path.join(extension, 'package.json');
const original = fs.readFileSync(manifestPath, 'utf8');
const readmePath = path.join(extension, 'README.md');
const readme = fs.readFileSync(readmePath, 'utf8');
const server = path.join(extension, 'server');

/** The value of `--name VALUE` on the command line. */
function option(name) {
    const at = process.argv.indexOf(name);
    return at < 0 ? undefined : process.argv[at + 1];
}

let target = option('--target');
if (target === 'current') {
    target = currentTarget();
    if (target === undefined) {
        throw new Error(`no native .vsix for ${process.platform}-${process.arch}: package the universal one`);
    }
}

/** server/ holds exactly the wheels this .vsix bundles (from `--wheels DIR`, else as built). */
function selectWheels() {
    const from = path.resolve(option('--wheels') ?? server);
    const chosen = wheelsFor(target, fs.readdirSync(from));
    const pure = chosen.filter((file) => wheelTags(file).platforms.includes('any'));
    if (pure.length !== 1) {
        throw new Error(`expected one pure wheel (py3-none-any) in ${from}, found ${pure.length}`);
    }
    if (target !== undefined && chosen.length === 1) {
        throw new Error(`no wheel with the native core for ${target} in ${from}`);
    }
    const copies = chosen.map((file) => [file, fs.readFileSync(path.join(from, file))]);
    fs.rmSync(server, { recursive: true, force: true });
    fs.mkdirSync(server);
    for (const [file, bytes] of copies) {
        fs.writeFileSync(path.join(server, file), bytes);
    }
    console.log(`bundling ${chosen.join(', ')}`);
}

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

selectWheels();
fs.mkdirSync(path.join(extension, 'examples'), { recursive: true });
fs.copyFileSync(path.join(root, 'examples', 'vector_add.wave'), path.join(extension, 'examples', 'vector_add.wave'));

let remote = '';
try {
    remote = execFileSync('git', ['remote', 'get-url', 'origin'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
} catch { /* no remote: no repository field */ }
const vsce = path.join(extension, 'node_modules', '.bin', 'vsce');
const name = target === undefined ? `wave-lsp-${manifest.version}.vsix` : `wave-lsp-${target}-${manifest.version}.vsix`;
const args = ['package', '--no-dependencies', '--out', name, ...(target === undefined ? [] : ['--target', target])];
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
