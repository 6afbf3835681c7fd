// t84-demo.mjs URL SHOT: the demo airspace at 1280x800, driven from the
// keyboard. Driven by tests/integration/t84-map-demo.sh.
import { checks, launch } from './lib.mjs';

const [url, shot] = process.argv.slice(2);
const { check, done } = checks();
const wait = (name, fn, arg) => page.waitForFunction(fn, arg, { timeout: 5000 })
  .then(() => check(name, true), (e) => check(name, false, e.message.split('\n')[0]));
// three.js asked for (the picture a GPU gives; t82 checks the default)
const { browser, page, problems } = await launch({ url: url + '&3d', width: 1280, height: 800 });
try {
  await page.waitForSelector('body[data-ready="1"]', { timeout: 10000 });
  await wait('four agents on the map', () => ['alice', 'bob', 'carol', 'dave'].every((a) =>
    [...document.querySelectorAll('.lbl.agent b')].some((b) => b.textContent === a)));
  await wait('alice and bob in resolution, pulsing, who holds and steers', () =>
    /(alice|bob) holds · (alice|bob) steers/.test((document.querySelector('.lbl.link.resolution') || {}).textContent || ''));
  await wait('the board names the contested file', () =>
    /RESOLUTION[\s\S]*src\/net\/conn\.c/i.test(document.querySelector('#p-board').textContent));
  await wait('the lock, with its holder', () => /src\/net\/conn\.c[\s\S]*alice/.test(document.querySelector('#p-locks').textContent));
  await wait('intents in the labels', () => /page loads through a pool/.test(document.querySelector('#labels').textContent));
  await wait('bob\'s question waits for the human', () =>
    /waits for you[\s\S]*may I change conn_open/.test(document.querySelector('#p-messages').textContent));

  // readable at 1280x800: nothing wider than the window, text not tiny
  const fit = await page.evaluate(() => ({
    w: document.documentElement.scrollWidth,
    h: document.documentElement.scrollHeight,
    over: [...document.querySelectorAll('body *')].filter((e) => !e.closest('#side .list') && e.getBoundingClientRect().bottom > 801 ||
      e.getBoundingClientRect().right > 1281).slice(0, 5).map((e) => e.tagName + '#' + e.id + '.' + e.className + ':' + Math.round(e.getBoundingClientRect().bottom)),
    side: document.querySelector('#side').getBoundingClientRect().height,
    small: [...document.querySelectorAll('#side li, #side h2, #bar *')].filter((e) =>
      e.offsetParent && parseFloat(getComputedStyle(e).fontSize) < 11).length,
  }));
  check('the page fits 1280x800', fit.w <= 1280 && fit.h <= 800, JSON.stringify(fit));
  check('no text under 11 px', fit.small === 0, JSON.stringify(fit));

  // keyboard: / searches, Enter flies there
  await page.focus('#view');
  await page.keyboard.press('/');
  check('/ focuses the search box', await page.evaluate(() => document.activeElement.id === 'search'));
  await page.keyboard.type('page.c');
  await page.keyboard.press('Enter');
  await wait('the search flies to the path', () => document.querySelector('#search-hint').textContent === 'src/app/page.c');
  // Tab reaches the agents list; Enter follows; Escape stops
  let reached = null;
  for (let k = 0; k < 30 && !reached; k++) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => document.activeElement.matches('#p-agents button.agent') ?
      document.activeElement.getAttribute('aria-label') : null);
  }
  check('Tab reaches the agents', !!reached, 'not within 30 presses');
  if (reached) {
    await page.keyboard.press('Enter');
    const who = reached.replace('follow ', '');
    await wait('Enter follows it and opens its panel', (w) => !document.querySelector('#follow').hidden &&
      document.querySelector('#follow-title').textContent.startsWith(w), who);
    await page.keyboard.press('Escape');
    await wait('Escape stops following', () => document.querySelector('#follow').hidden);
  }
  // the picture for the README: close to alice, then the panel closed
  await page.click('#p-agents button[aria-label="follow alice"]');
  await page.waitForTimeout(2000);
  await page.keyboard.press('Escape');
  await page.waitForTimeout(300);
  await page.screenshot({ path: shot });
  check('no console error, page error or failed request', problems.length === 0, problems.join(' | '));
} catch (e) {
  check('the scenario ran', false, e.stack);
} finally {
  await browser.close();
}
done();
