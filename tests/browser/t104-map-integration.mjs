// t104-map-integration.mjs URL - the map's conflicts panel names an
// integration conflict as the agent against the branch (not as a pair of
// agents), and the agent's notice is among the messages; no console
// error and no request beyond the daemon.
import { checks, launch } from './lib.mjs';

const [url] = process.argv.slice(2);
const { browser, page, problems } = await launch({ url });
const { check, done } = checks();
try {
  await page.waitForFunction(() => (document.querySelector('#p-conflicts')?.textContent || '').includes('t.txt'),
    null, { timeout: 15000 });
  const panel = (await page.textContent('#p-conflicts')).replace(/\s+/g, ' ');
  check('the conflict is the agent against the branch', /alice ↔ branch main on t\.txt/.test(panel), panel);
  check('its shape is shown', /integration/i.test(panel), panel);
  await page.waitForFunction(() => (document.body.textContent || '').includes('[conflict] integration'),
    null, { timeout: 15000 });
  check('the notice to alice is among the messages', true);
} catch (e) {
  check('the page shows the conflict', false, String(e).split('\n')[0]);
}
check('no console error and no request beyond the daemon', problems.length === 0, problems.join('; '));
await browser.close();
done();
