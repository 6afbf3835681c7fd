// t113-map-panels.mjs URL BIN ALICE LONG SHOT - the map's panels over
// time against a daemon with the agents alice (worktree ALICE) and LONG
// (a 64-character id). Prints one line per check ("ok ..." or
// "FAIL ...") and exits 1 when one failed; screenshots SHOT-1280.png and
// SHOT-1920.png. Driven by tests/integration/t113-map-panels.sh.
import { execFileSync } from 'node:child_process';
import { checks, launch } from './lib.mjs';

const [url, bin, alice, long, shot] = process.argv.slice(2);
const { check, done } = checks();
const as = (...args) => execFileSync(bin, args, { cwd: alice, encoding: 'utf8' });
const text = (page, sel) => page.evaluate((s) => document.querySelector(s).textContent.replace(/\s+/g, ' '), sel);

const { browser, page, requests } = await launch({ url, webgl: false });
try {
  await page.waitForSelector('body[data-ready="1"]', { timeout: 15000 });
  await page.waitForFunction((id) => document.querySelector('#p-agents').textContent.includes(id), long, { timeout: 5000 });

  // a lock's time left counts down with no event in between
  as('lock', '--agent', 'alice', '--ttl', '60', 'src/core/m1.c');
  await page.waitForFunction(() => /src\/core\/m1\.c/.test(document.querySelector('#p-locks').textContent), null, { timeout: 5000 });
  const left = () => text(page, '#p-locks').then((t) => Number((t.match(/(\d+)s left/) || [])[1]));
  const before = await left();
  await page.waitForTimeout(3200);
  const after = await left();
  check(`a lock's time left counts down between events (${before}s, then ${after}s)`, after <= before - 2, `${before} → ${after}`);

  // a 64-character id: the follow panel and the reply form fit
  const fits = async (w) => {
    await page.setViewportSize({ width: w, height: 800 });
    await page.click(`#p-agents button[aria-label="follow ${long}"]`);
    await page.waitForSelector('#follow:not([hidden])', { timeout: 2000 });
    await page.waitForTimeout(300);
    const m = await page.evaluate(() => {
      const f = document.querySelector('#follow'), side = document.querySelector('#side');
      const right = side.getBoundingClientRect().right;
      const r = (s) => document.querySelector(s).getBoundingClientRect();
      return { scrollLeft: f.scrollLeft, over: f.scrollWidth - f.clientWidth, sideOver: side.scrollWidth - side.clientWidth,
        select: r('#reply-to').right - right, textarea: r('#reply-body').right - right };
    });
    await page.screenshot({ path: `${shot}-${w}.png` });
    check(`${w} px: the follow panel of a 64-character id is not scrolled sideways`, m.scrollLeft === 0 && m.over <= 0, JSON.stringify(m));
    check(`${w} px: the reply form fits the side panel`, m.select <= 0 && m.textarea <= 0 && m.sideOver <= 0, JSON.stringify(m));
    await page.keyboard.press('Escape');
  };
  await fits(1280);
  await fits(1920);

  // an answer to the human outlives 100 events and a reload
  await page.selectOption('#reply-to', 'alice');
  await page.fill('#reply-body', 'may I take m1.c?');
  await page.click('#reply button[type=submit]');
  await page.waitForFunction(() => /sent to 1/.test(document.querySelector('#reply-status').textContent), null, { timeout: 3000 });
  as('msg', '--agent', 'alice', 'human', 'answer-for-human-42: yes, go ahead');
  await page.waitForFunction(() => document.querySelector('#p-messages').textContent.includes('answer-for-human-42'), null, { timeout: 3000 })
    .then(() => check('the answer to the human shows live', true), (e) => check('the answer to the human shows live', false, e.message));
  // 120 messages between the agents: 120 events, as the page would post them
  const token = new URL(url).hash.replace('#token=', '');
  for (let i = 0; i < 120; i++) {
    const r = await fetch(new URL('/v1/messages', url), { method: 'POST',
      headers: { Authorization: 'Bearer ' + token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ from: 'alice', to: long, body: `note ${i}` }) });
    if (!r.ok) throw new Error(`message ${i}: HTTP ${r.status}`);
  }
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]', { timeout: 15000 });
  await page.waitForFunction(() => document.querySelector('#p-messages').textContent.includes('answer-for-human-42'), null, { timeout: 3000 })
    .then(() => check('after 120 events and a reload the unread answer to the human is still shown', true),
      (e) => check('after 120 events and a reload the unread answer to the human is still shown', false, e.message));

  // a restart: a new token on the same port
  const port = new URL(url).port;
  as('stop');
  await page.waitForFunction(() => /gone/.test(document.querySelector('#banner').textContent), null, { timeout: 6000 });
  as('open', '--no-browser', '--port', port);
  await page.waitForFunction(() => /refused the token.*airspace open/.test(document.querySelector('#banner').textContent), null, { timeout: 10000 })
    .then(() => check('after a restart the page says to run `airspace open` again', true),
      (e) => check('after a restart the page says to run `airspace open` again', false, e.message + ': ' + JSON.stringify(requests.slice(-3))));
  const n = requests.length;
  await page.waitForTimeout(5000);
  const more = requests.slice(n).filter((u) => u.includes('/v1/'));
  check('... and stops asking with the old token', more.length === 0, more.join(' '));
} catch (e) {
  check('the scenario ran', false, e.stack);
} finally {
  await browser.close();
}
done();
