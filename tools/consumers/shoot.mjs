// node tools/consumers/shoot.mjs PAGE.html OUT.png [CSS_SELECTOR]
// A picture of a report page (or of one element of it, e.g. '#frametime')
// as headless Debian chromium draws it: JavaScript off, no network, 1000
// pixels wide. make docs-png uses it for the pictures in docs/.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const { chromium } = createRequire(path.join(here, 'node_modules', 'x.js'))('playwright-core');
const [page_, out, selector] = process.argv.slice(2);
if (!page_ || !out) {
  console.error('usage: node tools/consumers/shoot.mjs PAGE.html OUT.png [CSS_SELECTOR]');
  process.exit(2);
}
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
try {
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1000, height: 800 } });
  await context.route('**/*', (r) => (r.request().url().startsWith('file:') ? r.continue() : r.abort()));
  const page = await context.newPage();
  await page.goto('file://' + path.resolve(page_));
  if (selector) await page.locator(selector).screenshot({ path: out });
  else await page.screenshot({ path: out, fullPage: true });
} finally {
  await browser.close();
}
