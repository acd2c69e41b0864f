/**
 * The extension's snippets (snippets/wave.json: `.kernel` gives a kernel skeleton, `if`, `loop`)
 * and the server's completion items of the same name (the `.kernel` directive, the `if` mnemonic)
 * would be two identical rows; the snippet, which writes the whole construct, is kept and its
 * server twin dropped (the client's completion middleware). Free of VS Code: unit-tested.
 */

/** The prefixes of a snippets file's entries. */
export function snippetPrefixes(snippets: Record<string, { prefix?: string | string[] }>): Set<string> {
    const out = new Set<string>();
    for (const entry of Object.values(snippets)) {
        for (const prefix of ([] as string[]).concat(entry.prefix ?? [])) {
            out.add(prefix);
        }
    }
    return out;
}

/** `items` without those whose label is a snippet's prefix. */
export function withoutSnippetTwins<T extends { label: string | { label: string } }>(items: T[], prefixes: Set<string>): T[] {
    return items.filter((item) => !prefixes.has(typeof item.label === 'string' ? item.label : item.label.label));
}
