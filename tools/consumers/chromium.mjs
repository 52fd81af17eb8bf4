// Debian's Chromium driven by playwright-core from tools/consumers (never a
// browser of playwright's own: no `npx playwright install`), headless,
// offline, in a new empty profile each time; shared by the consumer tests
// (tests/consumers/lib.mjs), make docs-png (shoot.mjs) and make bench
// (open_time.mjs).
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const MODULES = process.env.VP_CONSUMERS || path.join(here, 'node_modules');
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

// launch({javaScript, width, height}) -> {context, page, requests, close}:
// requests lists every URL asked for that is not the file itself (file:,
// data: and blob: URLs go through, anything else is refused and listed);
// close() ends the browser and removes its profile.
export async function launch({ javaScript = true, width = 1200, height = 900 } = {}) {
  const { chromium } = createRequire(path.join(MODULES, 'x.js'))('playwright-core');
  const profile = mkdtempSync(path.join(os.tmpdir(), 'vpscript-chromium-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM, headless: true, args: FLAGS, javaScriptEnabled: javaScript,
      viewport: { width, height },
    });
  } catch (e) {
    rmSync(profile, { recursive: true, force: true });
    throw e;
  }
  const requests = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:') || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    requests.push(url);
    return route.abort();
  });
  const page = context.pages()[0] || await context.newPage();
  const close = async () => {
    try { await context.close(); } finally { rmSync(profile, { recursive: true, force: true }); }
  };
  return { context, page, requests, close };
}
