// t106-map-parked.mjs URL - the map lists a parked agent as parked (not
// left out as exited) and the advisory board names it parked on its pair
// with the active agent; no console error and no request beyond the
// daemon.
import { checks, launch } from './lib.mjs';

const [url] = process.argv.slice(2);
const { browser, page, problems } = await launch({ url });
const { check, done } = checks();
const text = async (sel) => (await page.textContent(sel)).replace(/\s+/g, ' ');
try {
  await page.waitForFunction(() => (document.querySelector('#p-board')?.textContent || '').includes('parked'),
    null, { timeout: 15000 });
  const board = await text('#p-board');
  check('the board shows the pair at traffic', /traffic\s*alice ↔ bob/i.test(board), board);
  check('... naming bob parked, not a hold and a steer',
    /bob parked: not active now, its work not landed/.test(board) && !/holds, .* steers/.test(board), board);
  const agents = await text('#p-agents');
  check('the agents panel lists bob as parked', /bob codex · parked · 1 file/.test(agents), agents);
  check('... and alice as active', /alice claude-code · active · 1 file/.test(agents), agents);
  const ledger = await text('#p-ledger');
  check('the ledger counts a working set\'s files', /workset\.changed bob \(1 file\)/.test(ledger) && !/undefined/.test(ledger), ledger.slice(0, 300));
} catch (e) {
  check('the page shows the parked agent', false, String(e).split('\n')[0]);
}
check('no console error and no request beyond the daemon', problems.length === 0, problems.join('; '));
await browser.close();
done();
