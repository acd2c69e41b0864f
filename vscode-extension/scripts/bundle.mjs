// Bundles the extension and vscode-languageclient into one file, dist/extension.js, so the
// .vsix ships no node_modules.
import * as esbuild from 'esbuild';

await esbuild.build({
    entryPoints: ['src/extension.ts'],
    bundle: true,
    outfile: 'dist/extension.js',
    external: ['vscode'],
    format: 'cjs',
    platform: 'node',
    target: 'node18',
    minify: true,
    sourcemap: false,
    logLevel: 'warning',
});
