// Renders media/icon.svg (drawn for the project) to media/icon.png, 256×256 with a transparent
// background, in Debian's Chromium through playwright-core: `node scripts/icon.mjs`.
import { readFileSync } from 'fs';
import { createRequire } from 'module';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');
const here = new URL('..', import.meta.url).pathname;
const svg = readFileSync(`${here}media/icon.svg`, 'utf8');
const browser = await chromium.launch({ executablePath: process.env.WAVE_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
const page = await browser.newPage({ viewport: { width: 256, height: 256 } });
await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
await page.locator('svg').screenshot({ path: `${here}media/icon.png`, omitBackground: true });
await browser.close();
