// End to end: the SSR example (examples/ssr), rendered by its leptos_axum server and hydrated in
// Debian's headless Chromium, under its strict Content-Security-Policy. Every test starts a
// server of its own (its API's first window already spent, then 2 answers every 3 s) and counts
// what reached it. Run by scripts/test.sh, which builds the server and the site.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { launch, assertAccessible } from './browser.mjs';

const SERVER = process.env.SSR_SERVER;
const SITE = process.env.SSR_SITE;
const OUTPUT_NAME = process.env.SSR_OUTPUT_NAME;
const SHOTS = process.env.E2E_SHOTS ?? 'target/screenshots';
assert.ok(SERVER && SITE && OUTPUT_NAME, 'SSR_SERVER, SSR_SITE, SSR_OUTPUT_NAME: run with scripts/test.sh');
mkdirSync(SHOTS, { recursive: true });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let browser;
const servers = [];
before(async () => { browser = await launch(); });
after(async () => {
  await browser?.close();
  for (const s of servers) s.kill();
});

/** A fresh server on a free loopback port; resolves to its URL. It stops by itself in 2 minutes. */
async function serve() {
  const child = spawn(SERVER, ['--stop-after', '120', '--quota', '2', '--window-s', '3'], {
    env: { ...process.env, LEPTOS_OUTPUT_NAME: OUTPUT_NAME, LEPTOS_SITE_ROOT: SITE, LEPTOS_SITE_ADDR: '127.0.0.1:0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  servers.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`the server exited (${code}) before it listened:\n${out}`)));
  });
}

/** Every API request the server saw: collection, status, and whether it carried the app's key. */
async function apiLog(url) {
  return (await fetch(`${url}/api/log`)).json();
}

/** The statuses the server answered for one collection, in order. */
const statuses = (log, collection) => log.filter((r) => r.collection === collection).map((r) => r.status);

/**
 * What the page's console said beyond the browser's own line for each `429` the server logged
 * (Chromium reports every 4xx answer as a failed resource): nothing, where all is well.
 */
function unexpected(problems, log) {
  const refused = log.filter((r) => r.status === 429).length;
  const network = problems.filter((p) =>
    /^console error: Failed to load resource: the server responded with a status of 429 .*\/api\/palettes\?collection=/.test(p));
  assert.equal(network.length, refused, `one network line per 429:\n${problems.join('\n')}`);
  return problems.filter((p) => !network.includes(p));
}

/**
 * The page stayed clean: no CSP violation, and nothing in its console beyond the browser's own
 * line for each `429` in `log` (so no error, no warning, no hydration warning). Closes it.
 */
async function assertCleanAndClose({ page, problems, violations }, log) {
  assert.deepEqual(await violations(), [], 'no CSP violation');
  assert.deepEqual(unexpected(problems, log), [], 'no console error or warning, no hydration warning');
  await page.close();
}

/**
 * Opens `url` in a new page that records, from before its first script, console errors and
 * warnings (hydration warnings among them), uncaught errors and CSP violations.
 */
async function open(url) {
  const page = await browser.newPage({ viewport: { width: 1000, height: 1000 } });
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') {
      problems.push(`console ${m.type()}: ${m.text()} (${m.location().url})`);
    }
  });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`);
    });
  });
  await page.goto(url);
  return { page, problems, violations: () => page.evaluate(() => window.__violations) };
}

/** Both screens are waiting: the page hydrated, and each read met the spent window's 429. */
async function bothWaiting(page) {
  for (const screen of ['#coast', '#keyed']) {
    await page.locator(`${screen} [data-testid=countdown]`).waitFor({ timeout: 8000 });
  }
}

test('the server renders the first state and sends nothing; hydrated, two screens go 429, wait, 200', async () => {
  const url = await serve();
  const raw = await fetch(`${url}/`);
  const html = await raw.text();
  assert.equal(raw.status, 200);
  const policy = raw.headers.get('content-security-policy');
  assert.match(policy, /^default-src 'self'; script-src 'self' 'nonce-[\w+/=-]+' 'wasm-unsafe-eval'; style-src 'self' 'nonce-[\w+/=-]+'$/);
  assert.equal(html.match(/Attempt 1 of 3/g)?.length, 2, html);
  assert.ok(!html.includes('style='), 'no style attribute for the CSP to block');
  assert.deepEqual(await apiLog(url), [], 'rendering on the server sent no API request');

  const opened = await open(`${url}/`);
  const { page } = opened;
  await bothWaiting(page);
  await assertAccessible(page, 'both screens waiting');
  // The page is live: a handler of its own runs.
  await page.getByTestId('clicks').click();
  assert.equal(await page.getByTestId('clicks').textContent(), 'Clicks: 1');
  for (const screen of ['#coast', '#keyed']) {
    await page.locator(`${screen} [data-testid=palettes]`).waitFor({ timeout: 8000 });
  }
  await assertAccessible(page, 'both loaded');
  await page.locator('#keyed details.trace summary').click();
  await assertAccessible(page, 'the trace open');
  await page.screenshot({ path: `${SHOTS}/ssr-loaded.png`, fullPage: true });

  const log = await apiLog(url);
  assert.deepEqual(statuses(log, 'coast'), [429, 200], JSON.stringify(log));
  assert.deepEqual(statuses(log, 'dune'), [429, 200], JSON.stringify(log));
  // The key the page sets reaches the server on every attempt of its read, and only there.
  assert.deepEqual(log.filter((r) => r.collection === 'dune').map((r) => r.key), ['as_expected', 'as_expected']);
  assert.deepEqual(log.filter((r) => r.collection === 'coast').map((r) => r.key), ['missing', 'missing']);

  // Under the CSP: the swatches painted, the live regions hidden, and nothing blocked.
  const fill = await page.locator('#coast .swatch rect').first().evaluate((r) => getComputedStyle(r).fill);
  assert.equal(fill, 'rgb(10, 61, 98)');
  for (const region of await page.getByTestId('announce').all()) {
    assert.deepEqual(await region.evaluate((r) => [r.offsetWidth, r.offsetHeight]), [1, 1]);
  }
  await assertCleanAndClose(opened, log);
});

test('leaving the route during the wait sends nothing more', async () => {
  const url = await serve();
  const opened = await open(`${url}/`);
  const { page } = opened;
  await bothWaiting(page);
  // One screen cancelled first: a stopped state, checked as the user sees it.
  await page.locator('#coast [data-testid=cancel]').click();
  await page.locator('#coast [data-testid=stop]').waitFor({ timeout: 2000 });
  await assertAccessible(page, 'one screen stopped, one waiting');
  await page.locator('nav a[href="/about"]').click();
  await page.locator('h1', { hasText: 'About' }).waitFor({ timeout: 2000 });
  await assertAccessible(page, 'the other route');
  // Past the 3 s the 429s asked for: nothing more arrived.
  await sleep(4000);
  const log = await apiLog(url);
  assert.deepEqual(log.map((r) => `${r.collection} ${r.status}`).sort(), ['coast 429', 'dune 429'], JSON.stringify(log));
  await assertCleanAndClose(opened, log);
});

test('another query stops the read it replaces and starts one new read', async () => {
  const url = await serve();
  const opened = await open(`${url}/`);
  const { page } = opened;
  await bothWaiting(page);
  await page.locator('a[href="/?collection=harbour"]').click();
  await page.locator('#keyed h2', { hasText: 'Palettes: harbour' }).waitFor({ timeout: 2000 });
  for (const screen of ['#coast', '#keyed']) {
    await page.locator(`${screen} [data-testid=palettes]`).waitFor({ timeout: 8000 });
  }
  assert.equal(await page.locator('#keyed [data-testid=palette]').first().locator('.name').textContent(), 'Quay');
  await sleep(1000);
  const log = await apiLog(url);
  // dune's read stopped in its wait: its one 429, nothing after. harbour's waited out the
  // API's block (it sent nothing into it) and loaded at once; coast's went on as it was.
  assert.deepEqual(statuses(log, 'dune'), [429], JSON.stringify(log));
  assert.deepEqual(statuses(log, 'harbour'), [200], JSON.stringify(log));
  assert.deepEqual(statuses(log, 'coast'), [429, 200], JSON.stringify(log));
  assert.ok(log.filter((r) => r.collection !== 'coast').every((r) => r.key === 'as_expected'));
  await assertCleanAndClose(opened, log);
});
