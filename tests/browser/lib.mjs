// lib.mjs - the system's chromium (Debian's `chromium`), headless, driven
// by playwright-core: the map's tests and bench share this start.
import { chromium } from 'playwright-core';
import { existsSync } from 'node:fs';

export function chromiumPath() {
  for (const p of [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'])
    if (p && existsSync(p)) return p;
  return null;
}

// launch({url, width, height, webgl}): a page on url with every console
// error, page error, failed request and request to another host than the
// url's collected in problems (strings)
export async function launch({ url, width = 1280, height = 800, webgl = true }) {
  const args = ['--no-sandbox', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-default-apps'];
  // WebGL through the software rasteriser (no GPU in CI); without it the
  // page draws in 2-D
  if (webgl) args.push('--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist');
  else args.push('--disable-webgl', '--disable-3d-apis');
  const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args });
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  const problems = [];
  const requests = [];
  const origin = new URL(url).origin;
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  page.on('request', (r) => {
    requests.push(r.url());
    const u = r.url();
    if (!u.startsWith(origin + '/') && !u.startsWith('data:')) problems.push('request outside the daemon: ' + u);
  });
  page.on('requestfailed', (r) => {
    // the event stream is cut when the page closes or the daemon stops
    if (!r.url().includes('/v1/events')) problems.push('request failed: ' + r.url() + ' ' + (r.failure() || {}).errorText);
  });
  await page.goto(url);
  return { browser, context, page, problems, requests };
}

// A scenario's checks: check(name, ok, detail) prints "ok NAME" or
// "FAIL NAME: detail"; done() exits 1 when one failed, else 0.
export function checks() {
  let failed = 0;
  const check = (name, ok, detail = '') => {
    console.log(`${ok ? 'ok' : 'FAIL'} ${name}${ok || !detail ? '' : ': ' + detail}`);
    if (!ok) failed++;
  };
  return { check, done: () => process.exit(failed ? 1 : 0) };
}
