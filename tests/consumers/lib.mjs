// Shared by the consumer tests (make consumers): where things are, how
// to run vpscript, and a headless Chromium (Debian's, driven by
// playwright-core from tools/consumers; never a browser of playwright's own).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CHROMIUM, MODULES, launch } from '../../tools/consumers/chromium.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export { MODULES };
export const OUT = path.join(ROOT, 'build/consumers/out');
mkdirSync(OUT, { recursive: true });

export const requireModule = createRequire(path.join(MODULES, 'x.js'));
export function moduleUrl(rel) {
  return pathToFileURL(path.join(MODULES, rel)).href;
}

// Run a vpscript script; returns stdout (a Buffer when binary).
export function vpscript(...args) {
  return execFileSync(path.join(ROOT, 'vpscript'), args, { cwd: ROOT, maxBuffer: 1 << 30 });
}

// Export CAPTURE with the given options into OUT/name; returns the path.
export function exported(name, capture, ...opts) {
  const file = path.join(OUT, name);
  vpscript('scripts/export.lua', path.join(ROOT, capture), ...opts, '-o', file);
  return file;
}

export function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

// Debian's chromium, headless, no network beyond file:// (tools/consumers/
// chromium.mjs): returns {page, requests, close} where requests lists every
// non-file URL asked.
export const browserPage = launch;

// "448.11ms" -> 448110 (microseconds); "1,234 (5%)" -> 1234.
export function displayed(text) {
  const m = /^([\d,.]+)\s*(µs|us|ms|s|min)?/.exec(text.trim());
  if (!m) return NaN;
  const v = Number(m[1].replace(/,/g, ''));
  const scale = { µs: 1, us: 1, ms: 1e3, s: 1e6, min: 6e7 }[m[2]] ?? 1;
  return v * scale;
}

// The decimals shown, as a tolerance in the same unit as displayed().
export function shownPrecision(text) {
  const m = /^([\d,]+)(?:\.(\d+))?\s*(µs|us|ms|s|min)?/.exec(text.trim());
  const decimals = m && m[2] ? m[2].length : 0;
  const scale = { µs: 1, us: 1, ms: 1e3, s: 1e6, min: 6e7 }[m && m[3]] ?? 1;
  return 0.5 * 10 ** -decimals * scale + 1e-9;
}

// What vpscript's own API says about CAPTURE's frames FIRST..LAST
// (tests/consumers/truth.lua): {frames: [{frame, frame_ms}], max_ms, self_us}.
export function truth(capture, first, last) {
  const args = ['tests/consumers/truth.lua', path.join(ROOT, capture)];
  if (first) args.push(String(first), String(last));
  return JSON.parse(vpscript(...args).toString('utf8'));
}

// Chromium is there (the browser tests skip, saying so, when it is not).
export { CHROMIUM };
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
