// map.mjs URL SECONDS [OUT.png] [3d|2d]: load the map in headless chromium
// (system chromium, WebGL through SwiftShader: the page then draws on its
// 2-D canvas; with 3d, three.js is asked for in the address; with 2d,
// WebGL is off) at 1280x800 and measure:
// the first frame that drew the cloud (ms from navigation start), the
// browser's first contentful paint, and frames per second counted with
// requestAnimationFrame over SECONDS, once with the whole cloud in view
// and once following an agent. Prints key=value lines (bench/map.sh).
import { launch } from '../tests/browser/lib.mjs';

const [url, seconds = '5', shot, mode] = process.argv.slice(2);
const { browser, page, problems } = await launch({ url: mode === '3d' ? url + '&3d' : url, width: 1280, height: 800, webgl: mode !== '2d' });
await page.waitForFunction(() => window.__mapFirstFrame, null, { timeout: 60000, polling: 20 });
const first = await page.evaluate(() => ({
  frame: window.__mapFirstFrame,
  fcp: (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime,
  files: document.querySelector('#counts').textContent,
  renderer: document.querySelector('#mode').textContent,
}));
const agents = Number(process.env.MAP_AGENTS || 50);
await page.waitForFunction((n) => document.querySelectorAll('.lbl.agent').length >= n, agents, { timeout: 30000 });
const fps = (ms) => page.evaluate((ms) => new Promise((done) => {
  let n = 0;
  const t0 = performance.now();
  const tick = (t) => { n++; if (t - t0 < ms) requestAnimationFrame(tick); else done((n - 1) / ((t - t0) / 1000)); };
  requestAnimationFrame(tick);
}), ms);
const whole = await fps(Number(seconds) * 1000);
await page.click('#p-agents button.agent');
await page.waitForTimeout(800);
const following = await fps(Number(seconds) * 1000);
await page.keyboard.press('Escape');
if (shot) { await page.waitForTimeout(1500); await page.screenshot({ path: shot }); }
console.log(`renderer=${first.renderer}`);
console.log(`counts=${first.files}`);
console.log(`first_frame_ms=${first.frame.toFixed(0)}`);
console.log(`first_contentful_paint_ms=${(first.fcp || 0).toFixed(0)}`);
console.log(`fps_whole_cloud=${whole.toFixed(1)}`);
console.log(`fps_following=${following.toFixed(1)}`);
console.log(`problems=${problems.length}`);
await browser.close();
