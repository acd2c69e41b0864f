// Drives the VS Code workbench (code-server) in Debian's Chromium with playwright-core.
//
// Started by tests/vscode/workbench.py (it launches the browser at once, while code-server starts;
// the `load` step opens the workbench URL); reads one JSON request per line on
// stdin, {"id": 1, "call": "openFile", "args": ["broken.wave"]}, runs the step of the same name
// below and answers {"id": 1, "result": ...} or {"id": 1, "error": "..."} on stdout. The steps
// only act and observe (what the user sees: the DOM); the Python tests assert.
import { createRequire } from 'module';
import * as readline from 'readline';

const require = createRequire(process.env.WAVE_EXTENSION_DIR + '/package.json');
const { chromium } = require('playwright-core');

const [artifacts] = process.argv.slice(2);
const browser = await chromium.launch({
    executablePath: process.env.WAVE_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'],
});
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
const pageErrors = [];
page.on('pageerror', (error) => pageErrors.push(String(error)));

const editor = () => page.locator('.editor-instance .monaco-editor').first();
const lines = () => page.locator('.editor-instance .monaco-editor .view-lines').first();

async function text(locator) {
    return (await locator.innerText()).replace(/\u00a0/g, ' ');
}

const steps = {
    async load(url) {
        await page.goto(url);
        await page.locator('.monaco-workbench').waitFor({ timeout: 60000 });
        await page.locator('.explorer-folders-view, .monaco-workbench .part.sidebar').first().waitFor({ timeout: 60000 });
        return true;
    },

    /** Resizes the browser window's page (the workbench re-lays itself out); a page of that
     * size already is left as it is. */
    async viewport(width, height) {
        const now = page.viewportSize();
        if (now.width === width && now.height === height) {
            return true;
        }
        await page.setViewportSize({ width, height });
        await page.waitForTimeout(500);
        return true;
    },

    /** The code lenses of the first lens line above the editor line containing `needle`: each
     * lens's text and right edge, and the right edge of the editor's text area. */
    async lensLine(needle) {
        const root = editor();
        return root.evaluate((el, needle) => {
            const line = [...el.querySelectorAll('.view-lines .view-line')]
                .find((l) => l.innerText.replace(/\u00a0/g, ' ').includes(needle));
            if (!line) return null;
            const top = line.getBoundingClientRect().top;
            const decorations = [...el.querySelectorAll('.contentWidgets .codelens-decoration')];
            const above = decorations.filter((d) => d.getBoundingClientRect().bottom <= top + 2)
                .sort((a, b) => b.getBoundingClientRect().bottom - a.getBoundingClientRect().bottom)[0];
            if (!above) return null;
            const area = el.querySelector('.lines-content') ?? el;
            const view = el.querySelector('.overflow-guard') ?? el;
            return {
                text: above.innerText.replace(/\u00a0/g, ' '),
                lenses: [...above.querySelectorAll('a')].map((a) => ({
                    text: a.innerText.replace(/\u00a0/g, ' '), right: a.getBoundingClientRect().right,
                })),
                editorRight: view.getBoundingClientRect().right,
                scrollLeft: area.scrollLeft ?? 0,
            };
        }, needle);
    },

    /** Clicks the code lens `label` of the lens line above the editor line containing `needle`,
     * once it is drawn (a file just opened shows its lenses when the server has sent them). */
    async clickLens(needle, label) {
        const drawn = Date.now() + 30000;
        while (!((await steps.lensLine(needle))?.lenses ?? []).some((l) => l.text.includes(label))) {
            if (Date.now() > drawn) break;   // clickLensOnce says what is missing
            await page.waitForTimeout(100);
        }
        // The lenses are drawn again when the server refreshes them: retry a detached click.
        for (let attempt = 0; ; attempt++) {
            try {
                return await clickLensOnce(needle, label);
            } catch (error) {
                if (attempt >= 5 || !/not attached|not stable|detached/i.test(String(error))) {
                    throw error;
                }
                await page.waitForTimeout(300);
            }
        }
    },

    async screenshot(name) {
        const path = `${artifacts}/${name}.png`;
        await page.screenshot({ path });
        return path;
    },

    /** Runs a command from the palette (F1), by its title as shown there. Under load the list
     * can draw its rows before it focuses one, and an Enter then does nothing: the step waits
     * for the focused row to be the command, and tries again while the palette still shows it. */
    async command(title) {
        const widget = page.locator('.quick-input-widget');
        const input = widget.locator('input');
        for (let attempt = 0; attempt < 3; attempt++) {
            await page.keyboard.press('Escape');
            await editorFocus();
            await page.keyboard.press('F1');
            await input.waitFor();
            await input.fill(`>${title}`);
            const row = widget.locator('.monaco-list-row.focused', { hasText: title }).first();
            if (!(await row.waitFor({ timeout: 20000 }).then(() => true, () => false))) {
                continue;
            }
            await page.keyboard.press('Enter');
            // done once the palette closed or shows something else (a command's own picker),
            // looked at every 50 ms
            const done = await page.waitForFunction((typed) => {
                const shown = [...document.querySelectorAll('.quick-input-widget')].find((w) => {
                    const box = w.getBoundingClientRect();
                    return box.width > 0 && box.height > 0 && getComputedStyle(w).visibility !== 'hidden';
                });
                return shown === undefined || shown.querySelector('input')?.value !== typed;
            }, `>${title}`, { polling: 50, timeout: 10000 }).then(() => true, () => false);
            if (done) {
                return true;
            }
        }
        throw new Error(`the palette did not run ${title}`);
    },

    /** Opens a workspace file through Quick Open and waits for its text. */
    async openFile(name) {
        await page.keyboard.press('Escape');
        await page.keyboard.press('Control+P');
        const input = page.locator('.quick-input-widget input');
        await input.waitFor();
        await input.fill(name);
        await page.locator('.quick-input-widget .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 30000 });
        await page.keyboard.press('Enter');
        await page.locator('.tab.active', { hasText: name }).first().waitFor({ timeout: 30000 });
        await lines().waitFor();
        // the editor takes the keyboard once it is focused (give up waiting after a while: a
        // widget may keep the focus, as before)
        await page.locator('.editor-group-container.active .monaco-editor.focused').first()
            .waitFor({ timeout: 3000 }).catch(() => {});
        return true;
    },

    /** The text of `selector` inside the active webview (a custom editor's), '' when absent. */
    async frameText(selector) {
        for (const frame of page.frames()) {
            const found = frame.locator(selector);
            if (await found.count().catch(() => 0)) {
                return text(found.first());
            }
        }
        return '';
    },

    /** The text of each frame (webviews' included), in page.frames() order. */
    async frameTexts() {
        const out = [];
        for (const frame of page.frames()) {
            out.push(await frame.locator('body').innerText().catch(() => ''));
        }
        return out;
    },

    /** The images of every webview (the extension page's README among them): each one's
     * `src` and whether it loaded (`naturalWidth` > 0). */
    async frameImages() {
        const out = [];
        for (const frame of page.frames()) {
            const images = await frame.locator('img').evaluateAll((els) => els.map((e) => ({
                src: e.getAttribute('src') ?? '', alt: e.getAttribute('alt') ?? '',
                loaded: e.complete && e.naturalWidth > 0,
            }))).catch(() => []);
            out.push(...images);
        }
        return out;
    },

    /** Like lineTokens, in the `group`th editor group. */
    async lineTokensIn(group, needle) {
        const view = page.locator('.editor-instance .monaco-editor .view-lines').nth(group);
        const line = view.locator('.view-line', { hasText: needle }).first();
        await line.waitFor();
        return line.locator('span > span').evaluateAll((spans) => spans.map((s) => ({
            text: s.textContent, cls: s.className, color: getComputedStyle(s).color,
        })));
    },

    /** The visible lines of the active editor (with inlay hints and other injected text). */
    async editorText() {
        return text(lines());
    },

    /** The rendered lines of the active editor in document order (its DOM keeps them in the
     * order it reuses them; each line's `top` says where it is). */
    async editorLines() {
        return lines().locator('.view-line').evaluateAll((rows) => rows
            .map((row) => [parseFloat(row.style.top), row.innerText.replace(/\u00a0/g, ' ')])
            .sort((a, b) => a[0] - b[0]).map(([, line]) => line));
    },

    /** The CSS classes of the tokens of the first visible line containing `needle`. */
    async lineTokens(needle) {
        const line = lines().locator('.view-line', { hasText: needle }).first();
        await line.waitFor();
        return line.locator('span > span').evaluateAll((spans) => spans.map((s) => ({
            text: s.textContent, cls: s.className, color: getComputedStyle(s).color,
        })));
    },

    /** Puts the cursor on `needle` (the nth occurrence in the visible lines), `offset` into it. */
    async clickText(needle, nth = 0, offset = 1) {
        await dismissHover();
        const span = lines().locator('.view-line span > span', { hasText: needle }).nth(nth);
        // the editor re-renders its lines (a lens drawn, tokens coloured): the span measured may
        // be gone a moment later; measure again until it holds still
        let box = null;
        for (let attempt = 0; attempt < 50 && box === null; attempt++) {
            await span.waitFor();
            box = await span.boundingBox();
            if (box === null) await page.waitForTimeout(100);
        }
        if (box === null) throw new Error(`'${needle}' is not on screen`);
        const full = await span.textContent();
        const start = full.indexOf(needle);
        const charWidth = box.width / Math.max(1, full.length);
        await page.mouse.click(box.x + (start + offset) * charWidth, box.y + box.height / 2);
        return true;
    },

    /** Hovers `needle` and returns the hover's text once it shows `expect` (a substring); in
     * the `group`th editor group (0: the first). */
    async hover(needle, expect, nth = 0, group = 0) {
        const view = page.locator('.editor-instance .monaco-editor .view-lines').nth(group);
        const span = view.locator('.view-line span > span', { hasText: needle }).nth(nth);
        const hover = page.locator('.monaco-hover:not(.hidden) .monaco-hover-content', { hasText: expect }).first();
        // A hover of an earlier request can show late, over `needle`: each try dismisses it first.
        // Each try measures `needle` again: a code lens drawn meanwhile moves the lines down.
        const deadline = Date.now() + 60000;
        while (Date.now() < deadline) {
            await dismissHover();
            await span.waitFor();
            const box = await span.boundingBox();
            const full = await span.textContent();
            const charWidth = box.width / Math.max(1, full.length);
            const x = box.x + (full.indexOf(needle) + 1) * charWidth;
            await page.mouse.move(x, box.y + box.height / 2, { steps: 3 });
            try {
                await hover.waitFor({ timeout: 4000 });
                return text(hover);
            } catch { /* hover again */ }
        }
        return text(page.locator('.monaco-hover').first()).catch(() => '');
    },

    /** The text of the visible lines of the `group`th editor group's editor. */
    async groupText(group) {
        return text(page.locator('.editor-instance .monaco-editor .view-lines').nth(group));
    },

    /** The token classes (`mtk*`) of the visible text of the `group`th editor group's editor. */
    async groupTokenClasses(group) {
        const view = page.locator('.editor-instance .monaco-editor .view-lines').nth(group);
        return view.locator('.view-line span > span').evaluateAll((spans) =>
            [...new Set(spans.map((s) => s.className))]);
    },

    /** The visible lines of the `group`th editor that carry an extension's whole-line decoration
     * (`TextEditorDecorationType`, rendered as a `ced-*` element in the view overlays). */
    async decoratedLines(group) {
        const editorRoot = page.locator('.editor-instance .monaco-editor').nth(group);
        return editorRoot.evaluate((root) => {
            const tops = new Set();
            for (const overlay of root.querySelectorAll('.view-overlays > div')) {
                if (overlay.querySelector('[class*="ced-"]')) {
                    tops.add(overlay.style.top);
                }
            }
            return [...root.querySelectorAll('.view-lines .view-line')]
                .filter((line) => tops.has(line.style.top))
                .sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top))
                .map((line) => line.innerText.replace(/\u00a0/g, ' '));
        });
    },

    /** The visible lines of the `group`th editor with an extension's decoration, each with the
     * computed background of its whole-line decoration and the image of its gutter icon. */
    async heatLines(group) {
        const editorRoot = page.locator('.editor-instance .monaco-editor').nth(group);
        return editorRoot.evaluate((root) => {
            const byTop = new Map();
            for (const overlay of root.querySelectorAll('.view-overlays > div')) {
                const mark = overlay.querySelector('[class*="ced-"]');
                if (mark) {
                    byTop.set(overlay.style.top, { background: getComputedStyle(mark).backgroundColor, gutter: '' });
                }
            }
            const margin = root.querySelector('.margin');
            for (const icon of root.querySelectorAll('.margin [class*="ced-"]')) {
                const top = `${Math.round(icon.getBoundingClientRect().top - margin.getBoundingClientRect().top
                    + (root.querySelector('.lines-content')?.scrollTop ?? 0))}px`;
                const image = getComputedStyle(icon).backgroundImage;
                for (const [key, value] of byTop) {
                    if (Math.abs(parseFloat(key) - parseFloat(top)) < 2 && image !== 'none') {
                        value.gutter = image;
                    }
                }
            }
            return [...root.querySelectorAll('.view-lines .view-line')]
                .filter((line) => byTop.has(line.style.top))
                .sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top))
                .map((line) => ({ text: line.innerText.replace(/\u00a0/g, ' '), ...byTop.get(line.style.top) }));
        });
    },

    /** The distinct opaque colours (`#rrggbb`) drawn in the `group`th editor's overview ruler. */
    async rulerColours(group) {
        const editorRoot = page.locator('.editor-instance .monaco-editor').nth(group);
        return editorRoot.evaluate((root) => {
            const canvas = root.querySelector('canvas.decorationsOverviewRuler');
            if (!canvas) return [];
            const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
            const seen = new Set();
            for (let i = 0; i < data.length; i += 4) {
                if (data[i + 3] === 255) {
                    seen.add('#' + [data[i], data[i + 1], data[i + 2]].map((v) => v.toString(16).padStart(2, '0')).join(''));
                }
            }
            return [...seen];
        });
    },

    async press(keys) {
        for (const key of [].concat(keys)) {
            await page.keyboard.press(key);
        }
        return true;
    },

    async type(chars) {
        await page.keyboard.type(chars, { delay: 20 });
        return true;
    },

    /** Waits until a selector shows (optionally with `hasText`); returns its text. */
    async waitFor(selector, hasText = undefined, timeout = 30000) {
        const loc = page.locator(selector, hasText === undefined ? {} : { hasText }).first();
        await loc.waitFor({ timeout });
        return text(loc);
    },

    /** Texts of every element matching `selector` (none: an empty list). */
    async texts(selector) {
        return page.locator(selector).evaluateAll((els) => els.map((e) => e.innerText.replace(/\u00a0/g, ' ')));
    },

    /** The class names of every element matching `selector`. */
    async classNames(selector) {
        return page.locator(selector).evaluateAll((els) => els.map((e) => String(e.className)));
    },

    async count(selector) {
        return page.locator(selector).count();
    },

    /** The aria-labels of the rows of the open suggest widget. With `expect`, waits for a row
     * containing it, asking again (Ctrl+Space) when the list came without it: a slow provider's
     * items can arrive after the first rows are drawn. */
    async suggestions(expect = undefined) {
        const rows = page.locator('.editor-widget.suggest-widget .monaco-list-row');
        for (let attempt = 0; ; attempt++) {
            await rows.first().waitFor({ timeout: 30000 });
            if (expect === undefined || attempt >= 3) break;
            const found = page.locator('.editor-widget.suggest-widget .monaco-list-row', { hasText: expect });
            if (await found.first().waitFor({ timeout: 10000 }).then(() => true, () => false)) break;
            await page.keyboard.press('Escape');
            await page.keyboard.press('Control+Space');
        }
        return rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? e.innerText));
    },

    /** Clicks the first element matching `selector` (with `hasText`). */
    async click(selector, hasText = undefined) {
        const loc = page.locator(selector, hasText === undefined ? {} : { hasText }).first();
        await loc.waitFor({ timeout: 30000 });
        await loc.click();
        return true;
    },

    /** Picks the entry of the open action widget (quick fixes) containing `label`, by keyboard
     * as a user would (the widget blocks pointer events around it). */
    async chooseAction(label) {
        const focused = page.locator('.action-widget .monaco-list-row.focused');
        for (let i = 0; i < 30; i++) {
            if ((await focused.count()) > 0 && (await focused.first().innerText()).includes(label)) {
                await page.keyboard.press('Enter');
                return true;
            }
            await page.keyboard.press('ArrowDown');
        }
        throw new Error(`no action ${label}`);
    },

    /** Picks the entry `label` of the open menu (a context menu, an editor-title submenu) by
     * keyboard. */
    async chooseMenuItem(label) {
        const focused = page.locator('.monaco-menu .action-item.focused');
        for (let i = 0; i < 30; i++) {
            if ((await focused.count()) > 0 && (await focused.first().innerText()).includes(label)) {
                await page.keyboard.press('Enter');
                return true;
            }
            await page.keyboard.press('ArrowDown');
        }
        throw new Error(`no menu item ${label}`);
    },

    async statusBar() {
        const item = page.locator('.statusbar-item', { hasText: 'WAVE' }).first();
        await item.waitFor({ timeout: 30000 });
        return { text: await text(item), label: await item.getAttribute('aria-label') };
    },

    /** Texts of the notifications: the toasts, and those in the notification center (which
     * this opens when there are no toasts: toasts of a background window hide early). */
    async notifications() {
        const toasts = page.locator('.notifications-toasts .notification-list-item');
        if ((await toasts.count()) === 0 && !(await page.locator('.notifications-center.visible').count())) {
            await steps.command('Notifications: Show Notifications');
            await page.waitForTimeout(300);
        }
        return page.locator('.notifications-toasts .notification-list-item, .notifications-center .notification-list-item')
            .evaluateAll((els) => els.map((e) => e.innerText.replace(/\u00a0/g, ' ')));
    },

    async wait(ms) {
        await page.waitForTimeout(ms);
        return true;
    },

    async pageErrors() {
        return pageErrors;
    },

    async close() {
        await browser.close();
        return true;
    },
};

async function clickLensOnce(needle, label) {
    const found = await steps.lensLine(needle);
    if (!found) throw new Error(`no lenses above ${needle}`);
    const index = found.lenses.findIndex((l) => l.text.includes(label));
    if (index < 0) throw new Error(`no lens ${label} in ${found.text}`);
    const root = editor();
    const handle = await root.evaluateHandle((el, [needle, index]) => {
        const line = [...el.querySelectorAll('.view-lines .view-line')]
            .find((l) => l.innerText.replace(/\u00a0/g, ' ').includes(needle));
        const top = line.getBoundingClientRect().top;
        const above = [...el.querySelectorAll('.contentWidgets .codelens-decoration')]
            .filter((d) => d.getBoundingClientRect().bottom <= top + 2)
            .sort((a, b) => b.getBoundingClientRect().bottom - a.getBoundingClientRect().bottom)[0];
        return above.querySelectorAll('a')[index];
    }, [needle, index]);
    await handle.asElement().click({ timeout: 3000 });
    return true;
}

async function dismissHover() {
    await page.mouse.move(1, 1);
    await page.keyboard.press('Escape');
    await page.locator('.monaco-hover:not(.hidden) .monaco-hover-content').first()
        .waitFor({ state: 'hidden', timeout: 5000 }).catch(() => {});
}

/** Waits a moment for the editor to take input (a widget over its corner, as a peek view or
 *  hover may be, need not go: the palette opens all the same). */
async function editorFocus() {
    const ed = editor();
    if (await ed.count() > 0) {
        await ed.locator('.view-lines').first()
            .click({ position: { x: 5, y: 5 }, trial: true, timeout: 2000 }).catch(() => {});
    }
}

const input = readline.createInterface({ input: process.stdin });
for await (const line of input) {
    let request;
    try {
        request = JSON.parse(line);
        const step = steps[request.call];
        if (step === undefined) {
            throw new Error(`no step ${request.call}`);
        }
        const result = await step(...(request.args ?? []));
        process.stdout.write(JSON.stringify({ id: request.id, result }) + '\n');
        if (request.call === 'close') {
            break;
        }
    } catch (error) {
        process.stdout.write(JSON.stringify({ id: request?.id, error: String(error?.stack ?? error) }) + '\n');
    }
}
process.exit(0);
