// t83-open.mjs PAGE URL - the private page `airspace open` hands the
// browser (PAGE, a file:// address) opens the map at URL (the printed
// address, its token in the fragment): the map loads with the token
// accepted. Driven by tests/integration/t83-open.sh.
import { chromium } from 'playwright-core';
import { checks, chromiumPath } from './lib.mjs';

const [page0, url] = process.argv.slice(2);
const { check, done } = checks();
const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true,
  args: ['--no-sandbox', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking', '--disable-webgl'] });
try {
  const page = await browser.newPage();
  await page.goto(page0);
  await page.waitForURL((u) => u.href === url, { timeout: 10000 });
  check('the page leads to the printed address', true);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 15000 });
  check('... where the map loads with the token accepted', await page.isHidden('#banner'),
    await page.textContent('#banner'));
} catch (e) {
  check('the page opens the map', false, String(e).split('\n')[0]);
} finally {
  await browser.close();
}
done();
