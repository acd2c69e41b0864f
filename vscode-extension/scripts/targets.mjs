// The platform-specific .vsix builds (`vsce package --target`) and the wave-lsp wheels each one
// bundles beside the pure wheel: the release wheels cibuildwheel makes for that platform, one per
// CPython version (pyproject's [tool.cibuildwheel]), or a wheel built here for this machine. The
// extension installs the one for the user's Python, else the pure wheel (installer.ts). A
// platform with no entry (Windows: the core is not ported to MSVC yet) gets the universal .vsix
// with the pure wheel only.

/** vsce target -> the wheel platform tags (one of a wheel's dotted tags) it takes. */
export const TARGETS = {
    'linux-x64': /^(manylinux_\d+_\d+|manylinux\d+|linux)_x86_64$/,
    'linux-arm64': /^(manylinux_\d+_\d+|manylinux\d+|linux)_aarch64$/,
    'darwin-x64': /^macosx_\d+_\d+_(x86_64|universal2)$/,
    'darwin-arm64': /^macosx_\d+_\d+_(arm64|universal2)$/,
};

/** A wave-lsp wheel's file name, split: { version, python, abi, platforms } (undefined: not one). */
export function wheelTags(file) {
    const match = /^wave_lsp-([^-]+)-([^-]+)-([^-]+)-([^-]+)\.whl$/.exec(file);
    return match && { version: match[1], python: match[2], abi: match[3], platforms: match[4].split('.') };
}

/** The wheels among `files` that a `target` .vsix bundles: the pure one and its platform's. */
export function wheelsFor(target, files) {
    const platform = target === undefined ? undefined : TARGETS[target];
    if (target !== undefined && platform === undefined) {
        throw new Error(`no native wheels for target ${target}: known targets are ${Object.keys(TARGETS).join(', ')}`);
    }
    return files.filter((file) => {
        const tags = wheelTags(file);
        if (!tags) {
            return false;
        }
        if (tags.platforms.includes('any')) {
            return tags.python === 'py3' && tags.abi === 'none';
        }
        return platform !== undefined && tags.platforms.some((tag) => platform.test(tag));
    }).sort();
}

/** The target of this machine (`linux-x64`, `darwin-arm64`, ...), or undefined for none. */
export function currentTarget() {
    const os = process.platform;
    const arch = process.arch;
    const target = `${os}-${arch}`;
    return target in TARGETS ? target : undefined;
}
