// End to end in Firefox: the SSR example hydrated in Debian's Firefox ESR, driven over WebDriver
// BiDi by puppeteer-core (it downloads no browser). Leptos #4843: on a streamed page under a
// nonce, Firefox could abort the wasm preload (its `crossorigin` carried the nonce), so that
// `hydrate()` never ran, now and then. Here the API answers slowly, so the streamed part comes
// late, under the example's strict Content-Security-Policy with its nonce; each page is opened
// three times, and each time a handler of the page's own must run, both screens show what the
// render read, the browser sends the API nothing, and the console stays clean. Run by
// scripts/test.sh beside the Chromium tests (ssr.test.mjs holds the rest in Chromium).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { serve as startServer, stopAll } from './processes.mjs';

const require = createRequire(import.meta.url);
const puppeteer = require(process.env.PUPPETEER_CORE ?? 'puppeteer-core');

/** How long each of the API's answers takes: the streamed part comes this late. */
const API_LATENCY_MS = 1500;

/** How many times each page is opened: the bug was intermittent. */
const TIMES = 3;

let browser;
before(async () => {
  browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: process.env.FIREFOX ?? '/usr/bin/firefox-esr',
    headless: true,
    extraPrefsFirefox: { 'network.proxy.type': 0, 'app.update.enabled': false },
  });
});
after(async () => {
  await browser?.close();
  stopAll();
});

/** Every API request so far, and who sent it (`from`: server or browser). */
async function apiLog(url) {
  return (await fetch(`${url}/api/log`)).json();
}

/**
 * Opens `url`, recording from before its first script the console's errors and warnings,
 * uncaught errors and CSP violations; clicks the page's own button until a click counts (the
 * page has hydrated) or 15 s pass. Returns what it saw.
 */
async function openAndHydrate(url) {
  const page = await browser.newPage();
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warn' || m.type() === 'warning') {
      problems.push(`console ${m.type()}: ${m.text()}`);
    }
  });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  await page.evaluateOnNewDocument(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  await page.goto(url, { waitUntil: 'load' });
  const clicks = () => page.$eval('[data-testid=clicks]', (b) => b.textContent);
  const deadline = Date.now() + 15000;
  let hydrated = false;
  while (!hydrated && Date.now() < deadline) {
    await page.click('[data-testid=clicks]');
    hydrated = (await clicks()) !== 'Clicks: 0';
    if (!hydrated) await new Promise((r) => setTimeout(r, 200));
  }
  const palettes = async (screen) => (await page.$$(`#${screen} [data-testid=palette]`)).length;
  const seen = {
    hydrated,
    coast: await palettes('coast'),
    keyed: await palettes('keyed'),
    violations: await page.evaluate(() => window.__violations),
    problems,
  };
  await page.close();
  return seen;
}

for (const path of ['/', '/streamed']) {
  test(`Firefox hydrates ${path} under the nonce, the API answering in ${API_LATENCY_MS} ms, ${TIMES} times of ${TIMES}`, async () => {
    const { url } = await startServer([
      '--first-window', 'open', '--quota', '100', '--api-latency-ms', String(API_LATENCY_MS),
    ]);
    const html = await (await fetch(`${url}${path}`)).text();
    assert.match(html, /<script[^>]* nonce="[^"]+"/, 'the page carries a nonce');
    for (let i = 1; i <= TIMES; i++) {
      const before = (await apiLog(url)).length;
      const seen = await openAndHydrate(`${url}${path}`);
      assert.ok(seen.hydrated, `opening ${i}: hydrate() ran (a click counted)`);
      assert.deepEqual([seen.coast, seen.keyed], [2, 1], `opening ${i}: both screens show what the render read`);
      assert.deepEqual(seen.violations, [], `opening ${i}: no CSP violation`);
      assert.deepEqual(seen.problems, [], `opening ${i}: nothing in the console`);
      const log = (await apiLog(url)).slice(before);
      assert.equal(log.length, 2, `opening ${i}: the render read each screen once`);
      assert.deepEqual(log.filter((r) => r.from === 'browser'), [], `opening ${i}: the browser sent nothing`);
    }
  });
}
