// shot.mjs URL OUT.png [WIDTHxHEIGHT] [--2d]: load the map in headless
// chromium, wait until it is ready and settled, save a screenshot; prints
// the console errors and any request to another host.
import { launch } from './lib.mjs';

const [url, out, size = '1280x800'] = process.argv.slice(2);
const [width, height] = size.split('x').map(Number);
const { browser, page, problems } = await launch({ url, width, height, webgl: !process.argv.includes('--2d') });
await page.waitForSelector('body[data-ready="1"]', { timeout: 15000 }).catch((e) => { console.log(JSON.stringify(problems)); throw e; });
await page.waitForTimeout(Number(process.env.SETTLE_MS || 1500));
await page.screenshot({ path: out });
console.log(JSON.stringify({ renderer: await page.evaluate(() => document.body.dataset.renderer), problems }));
await browser.close();
