// t82-fallback.mjs URL SHOT: the map in chromium with WebGL turned off
// draws on a 2-D canvas: the cloud's points, the agents' labels, no
// console error; with WebGL on the software rasteriser it picks the
// canvas too. Driven by tests/integration/t82-map-security.sh.
import { checks, launch } from './lib.mjs';

const [url, shot] = process.argv.slice(2);
const { check, done } = checks();
const { browser, page, problems } = await launch({ url, webgl: false });
try {
  await page.waitForSelector('body[data-ready="1"]', { timeout: 10000 });
  check('the page falls back to 2-D', (await page.getAttribute('body', 'data-renderer')) === '2d');
  check('... and says so', /2-D canvas/.test(await page.textContent('#mode')));
  await page.waitForFunction(() => document.querySelectorAll('.lbl.agent').length >= 2, null, { timeout: 5000 })
    .then(() => check('the agents are labelled', true), (e) => check('the agents are labelled', false, e.message));
  await page.waitForTimeout(500);
  // the canvas holds the cloud: pixels other than the background
  const lit = await page.evaluate(() => {
    const c = document.querySelector('#view');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] + d[i + 1] + d[i + 2] > 120) n++;
    return n;
  });
  check(`the cloud is drawn (${lit} bright pixels)`, lit > 200);
  // keyboard: the canvas turns with the arrow keys
  await page.focus('#view');
  const before = await page.screenshot();
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await page.waitForTimeout(200);
  check('the arrow keys turn the view', !before.equals(await page.screenshot()));
  await page.screenshot({ path: shot });
  check('no console error, page error or failed request', problems.length === 0, problems.join(' | '));
  // WebGL on a software rasteriser (no GPU): the page picks the canvas,
  // and says how to ask for three.js
  const sw = await launch({ url, webgl: true });
  try {
    await sw.page.waitForSelector('body[data-ready="1"]', { timeout: 10000 });
    const mode = await sw.page.textContent('#mode') + ' / ' + await sw.page.getAttribute('#mode', 'title');
    check('software WebGL: the 2-D canvas by default', (await sw.page.getAttribute('body', 'data-renderer')) === '2d' &&
      /no GPU.*software rasteriser.*&3d/.test(mode), mode);
    check('... with no console error', sw.problems.length === 0, sw.problems.join(' | '));
  } finally {
    await sw.browser.close();
  }
} catch (e) {
  check('the scenario ran', false, e.stack);
} finally {
  await browser.close();
}
done();
