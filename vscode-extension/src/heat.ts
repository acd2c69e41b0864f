/**
 * The heat of a kernel profile, free of VS Code: what the server's `wave-lsp.profile` command
 * and its `wave-lsp/profileChanged` notification say about each line (a level 1..5 by cost,
 * and its share of the kernel's cost), the colour of each level, and which lines of a document
 * get which level when several kernels of it are profiled.
 */

import type { HeatLine, KernelProfile } from './generated/extensions';

export { CLEAR_PROFILE as CLEAR_PROFILE_COMMAND, PROFILE as PROFILE_COMMAND, PROFILE_CHANGED } from './generated/extensions';
/** The shapes of the profile and its heat, generated from the server's (wave_lsp/server/extensions.py). */
export type { HeatLine, KernelProfile, ProfileChanged } from './generated/extensions';

/** Cool to hot: a yellow-to-red ramp that reads on light and dark themes alike. */
export const HEAT_COLOURS = ['#f2d65c', '#f5a742', '#ec7036', '#d6402b', '#a81f2a'] as const;

/** A line is coloured only when it costs: a level of at least COSTLY_LEVEL or a share of the
 * kernel's cost of at least COSTLY_SHARE; cold code (level 1, a small share) stays unmarked. */
export const COSTLY_LEVEL = 2;
export const COSTLY_SHARE = 0.05;

export function costs(heat: HeatLine): boolean {
    return heat.level >= COSTLY_LEVEL || heat.share >= COSTLY_SHARE;
}

/** The 0-based lines of each level (index 0: level 1) that cost (`costs`), from the profiles
 * of one document. */
export function linesByLevel(profiles: Iterable<Partial<KernelProfile>>): number[][] {
    const out: number[][] = HEAT_COLOURS.map(() => []);
    for (const profile of profiles) {
        for (const heat of profile.heat ?? []) {
            const level = Math.min(Math.max(Math.round(heat.level), 1), HEAT_COLOURS.length);
            if (Number.isInteger(heat.line) && heat.line >= 1 && costs(heat)) {
                out[level - 1].push(heat.line - 1);
            }
        }
    }
    return out;
}

/** A gutter icon of the level: a bar whose height and colour grow with the cost. */
export function gutterIcon(level: number): string {
    const colour = HEAT_COLOURS[level - 1];
    const height = 4 + 3 * level;             // of 20
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="8" height="20" viewBox="0 0 8 20">` +
        `<rect x="1" y="${20 - height}" width="6" height="${height}" rx="1" fill="${colour}"/></svg>`;
    return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

/** The level's colour with an opacity, as CSS `rgba(...)` (the faint whole-line background). */
export function tint(level: number, alpha: number): string {
    const hex = HEAT_COLOURS[level - 1].slice(1);
    const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
    return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}
