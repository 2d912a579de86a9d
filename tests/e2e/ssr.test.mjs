// End to end: the SSR example (examples/ssr), rendered by its leptos_axum server, which reads
// its API while it renders, and hydrated in Debian's headless Chromium, under its strict
// Content-Security-Policy. Every test starts a server of its own (by default its API's first
// window already spent, then 2 answers every 3 s) and counts what reached the API, and from
// whom: the server's renders or the browser. Run by scripts/test.sh, which builds the server
// and the site.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { launch, assertAccessible } from './browser.mjs';
import { serve as startServer, stopAll } from './processes.mjs';

const SERVER = process.env.SSR_SERVER;
const SITE = process.env.SSR_SITE;
const OUTPUT_NAME = process.env.SSR_OUTPUT_NAME;
const SHOTS = process.env.E2E_SHOTS ?? 'target/screenshots';
assert.ok(SERVER && SITE && OUTPUT_NAME, 'SSR_SERVER, SSR_SITE, SSR_OUTPUT_NAME: run with scripts/test.sh');
mkdirSync(SHOTS, { recursive: true });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let browser;
before(async () => { browser = await launch(); });
after(async () => {
  await browser?.close();
  stopAll();
});

/** A fresh server (processes.mjs); resolves to its URL. */
async function serve(args = []) {
  return (await startServer(args)).url;
}

/**
 * Every API request so far: collection, status, whether it carried the app's key, who sent it
 * (`from`: server or browser) and when (`at_ms`).
 */
async function apiLog(url) {
  return (await fetch(`${url}/api/log`)).json();
}

/** Who asked for one collection, and what the API answered, in order: `server 429`, … */
const asked = (log, collection) =>
  log.filter((r) => r.collection === collection).map((r) => `${r.from} ${r.status}`);

/**
 * The first render's reads on a spent window: each screen's read sends its attempt and meets a
 * 429, unless the other's 429 reached the server's ledger first and holds it back unsent.
 * Either way the API saw one or two 429s from the server and nothing else.
 */
function assertFirstRender(log) {
  assert.ok(log.length >= 1 && log.length <= 2, JSON.stringify(log));
  assert.ok(log.every((r) => r.from === 'server' && r.status === 429), JSON.stringify(log));
}

/** The app's key, which the server's requests carry and the page must never show. */
const KEY = 'ssr-example-key-3f9d';

/**
 * What the page's console said beyond the browser's own line for each `429` the server logged
 * (Chromium reports every 4xx answer as a failed resource): nothing, where all is well.
 */
function unexpected(problems, log) {
  const refused = log.filter((r) => r.status === 429 && r.from === 'browser').length;
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
 * warnings (hydration warnings among them), uncaught errors and CSP violations; `html` is the
 * page as the server sent it.
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
  const response = await page.goto(url);
  const html = await response.text();
  return { page, html, problems, violations: () => page.evaluate(() => window.__violations) };
}

/** The page is hydrated: a handler of its own runs. */
async function assertLive(page) {
  await page.getByTestId('clicks').click();
  assert.equal(await page.getByTestId('clicks').textContent(), 'Clicks: 1');
}

/** What the server sent holds none of what the server's requests carried. */
function assertNoSecret(html) {
  assert.ok(!html.includes(KEY), 'the key the server sends is not in the page');
  assert.ok(!html.includes('X-Api-Key'), 'nor is the header it goes in');
}

/**
 * Opens `path` on a server whose API answers 200: the page hydrates (a handler of its own
 * runs), both screens show the palettes the render read, the keyed screen's trace is the
 * server's one attempt, and the page sends the API nothing of its own. Closes it.
 */
async function assertHydratedFromTheRender(url, path) {
  const before = (await apiLog(url)).length;
  const opened = await open(`${url}${path}`);
  const { page } = opened;
  await assertLive(page);
  assert.equal(await page.locator('#coast [data-testid=palette]').count(), 2);
  assert.equal(await page.locator('#keyed [data-testid=palette]').count(), 1);
  // The trace is the server's: its one attempt, answered 200.
  await page.locator('#keyed details.trace summary').click();
  assert.match(await page.locator('#keyed [data-testid=trace]').textContent(), /attempt 1 started.*200/s);
  await sleep(1000);
  const log = await apiLog(url);
  assert.equal(log.length, before + 2, 'the render read each screen once');
  assert.deepEqual(log.filter((r) => r.from === 'browser'), [], 'the browser sent nothing');
  await assertCleanAndClose(opened, log);
}

test('the API answers 200: the palettes are in the HTML, and the hydrated page sends nothing', async () => {
  const url = await serve(['--first-window', 'open', '--quota', '10']);
  const raw = await fetch(`${url}/`);
  const html = await raw.text();
  assert.equal(raw.status, 200);
  const policy = raw.headers.get('content-security-policy');
  assert.match(policy, /^default-src 'self'; script-src 'self' 'nonce-[\w+/=-]+' 'wasm-unsafe-eval'; style-src 'self' 'nonce-[\w+/=-]+'$/);
  for (const name of ['Tide Pool', 'Sandbar', 'Ridge']) assert.ok(html.includes(name), `${name} in the HTML`);
  assert.ok(!html.includes('style='), 'no style attribute for the CSP to block');
  assertNoSecret(html);
  assert.deepEqual(asked(await apiLog(url), 'coast'), ['server 200']);

  // Without scripts, as a crawler reads it: the palettes are there, in place.
  const noScript = await browser.newContext({ javaScriptEnabled: false });
  const bare = await noScript.newPage();
  await bare.goto(`${url}/`);
  assert.equal(await bare.locator('#coast [data-testid=palette]').count(), 2);
  assert.equal(await bare.locator('#keyed [data-testid=palette]').count(), 1);
  await noScript.close();

  await assertHydratedFromTheRender(url, '/');
});

test('streamed out of order, as leptos streams by default: each screen\'s part follows in the stream, and the hydrated page sends nothing', async () => {
  const url = await serve(['--first-window', 'open', '--quota', '10']);
  const html = await (await fetch(`${url}/streamed`)).text();
  // The fallback first, the read's views in a chunk of their own once it has come to something.
  assert.match(html, /<template id="[\d-]+f">/, 'an out-of-order chunk');
  for (const name of ['Tide Pool', 'Sandbar', 'Ridge']) assert.ok(html.includes(name), `${name} in the stream`);
  assertNoSecret(html);

  await assertHydratedFromTheRender(url, '/streamed');
});

test('a 429 during the render: the HTML shows the wait, and the browser goes on with attempt 2 no earlier than asked', async () => {
  const url = await serve();
  const opened = await open(`${url}/`);
  const { page, html } = opened;
  // Attempt 2 after the read's own 429, or attempt 1 where the other's held it back.
  assert.equal(html.match(/Attempt [12] of 3 in [123] s/g)?.length, 2, html);
  assertNoSecret(html);
  const first = await apiLog(url);
  assertFirstRender(first);
  // What the render's reads came to, as the server's /metrics serves it to an operator: each
  // 429 it met, and both reads handed over.
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const server429s = first.filter((r) => r.from === 'server' && r.status === 429).length;
  assert.match(metrics, new RegExp(`^retry_budget_attempts_total\\{status_class="4xx"\\} ${server429s}$`, 'm'), metrics);
  assert.match(metrics, /^retry_budget_hand_overs_total 2$/m, metrics);
  assert.doesNotMatch(metrics, /palettes|collection/, metrics);
  await assertLive(page);
  await assertAccessible(page, 'both screens waiting, as the server left them');
  for (const screen of ['#coast', '#keyed']) {
    await page.locator(`${screen} [data-testid=palettes]`).waitFor({ timeout: 8000 });
  }
  await assertAccessible(page, 'both loaded');
  // One timeline for one action: the server's part (its attempt and the 429, where it made
  // one), the hand-over, then the browser's attempt.
  await page.locator('#keyed details.trace summary').click();
  const trace = await page.locator('#keyed [data-testid=trace]').textContent();
  assert.match(trace, /^0 s action started.*handed over after [01] attempts.*attempt [12] started.*200/s, trace);
  if (trace.includes('handed over after 1 attempts')) {
    assert.match(trace, /attempt 1 started.*429.*handed over after 1 attempts.*attempt 2 started.*200/s, trace);
  }
  assert.equal(trace.match(/action started/g)?.length, 1, trace);
  await assertAccessible(page, 'the trace open');
  await page.screenshot({ path: `${SHOTS}/ssr-loaded.png`, fullPage: true });

  const log = await apiLog(url);
  const blocked = Math.min(...log.filter((r) => r.status === 429).map((r) => r.at_ms));
  for (const collection of ['coast', 'dune']) {
    const asks = asked(log, collection);
    assert.ok(['server 429,browser 200', 'browser 200'].includes(asks.join()), JSON.stringify(log));
    const browserRead = log.find((r) => r.collection === collection && r.from === 'browser');
    assert.ok(browserRead.at_ms - blocked >= 2999, `${collection}: the browser waited out Retry-After: 3 (${JSON.stringify(log)})`);
  }
  // The read that met the 429 went on in the browser as attempt 2 of the same action.
  assert.ok(['coast', 'dune'].some((c) => asked(log, c).join() === 'server 429,browser 200'), JSON.stringify(log));
  // The key the page sets reaches the API on every attempt of its read, from either side (one
  // attempt or two: the read the other's 429 held back sends only the browser's).
  const keys = (collection) => log.filter((r) => r.collection === collection).map((r) => r.key);
  for (const [collection, key] of [['dune', 'as_expected'], ['coast', 'missing']]) {
    const sent = keys(collection);
    assert.ok(sent.length >= 1 && sent.every((k) => k === key), `${collection}: ${sent}`);
  }

  // Under the CSP: the swatches painted, the live regions hidden, and nothing blocked.
  const fill = await page.locator('#coast .swatch rect').first().evaluate((r) => getComputedStyle(r).fill);
  assert.equal(fill, 'rgb(10, 61, 98)');
  for (const region of await page.getByTestId('announce').all()) {
    assert.deepEqual(await region.evaluate((r) => [r.offsetWidth, r.offsetHeight]), [1, 1]);
  }
  await assertCleanAndClose(opened, log);
});

test('a Retry-After past the budget: the stop is in the HTML, and the browser sends nothing', async () => {
  const url = await serve(['--window-s', '30']);
  const opened = await open(`${url}/`);
  const { page, html } = opened;
  assert.equal(html.match(/data-testid="stop" data-outcome="budget_exhausted"/g)?.length, 2, html);
  assert.equal(html.match(/data-testid="retry"/g)?.length, 2, 'Try again, not Cancel');
  await assertLive(page);
  await page.locator('#coast [data-testid=stop]').waitFor({ timeout: 2000 });
  await assertAccessible(page, 'both stopped, as the server left them');
  await sleep(1500);
  const log = await apiLog(url);
  assertFirstRender(log);
  await assertCleanAndClose(opened, log);
});

test('leaving the route during a wait the server handed over sends nothing more', async () => {
  const url = await serve();
  const opened = await open(`${url}/`);
  const { page } = opened;
  await assertLive(page);
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
  assertFirstRender(log);
  await assertCleanAndClose(opened, log);
});

test('after a 429, the next render sends nothing during the block, nor does its browser', async () => {
  const url = await serve();
  // The first render meets the 429s; its block is in the server's one ledger.
  await (await fetch(`${url}/`)).text();
  const opened = await open(`${url}/`);
  const { page, html } = opened;
  // Its reads wait for the block before their first attempt.
  assert.equal(html.match(/Attempt 1 of 3 in [123] s/g)?.length, 2, html);
  for (const screen of ['#coast', '#keyed']) {
    await page.locator(`${screen} [data-testid=palettes]`).waitFor({ timeout: 8000 });
  }
  const log = await apiLog(url);
  const blocked = Math.min(...log.filter((r) => r.status === 429).map((r) => r.at_ms));
  const first = log.filter((r) => r.from === 'server');
  assertFirstRender(first);
  const rest = log.slice(first.length);
  assert.deepEqual(rest.map((r) => `${r.from} ${r.status}`), ['browser 200', 'browser 200'], JSON.stringify(log));
  assert.ok(rest.every((r) => r.at_ms - blocked >= 2999), `nothing before the block's end: ${JSON.stringify(log)}`);
  await assertCleanAndClose(opened, log);
});

test('another query stops the read it replaces and starts one new read', async () => {
  const url = await serve();
  const opened = await open(`${url}/`);
  const { page } = opened;
  await assertLive(page);
  await page.locator('a[href="/?collection=harbour"]').click();
  await page.locator('#keyed h2', { hasText: 'Palettes: harbour' }).waitFor({ timeout: 2000 });
  for (const screen of ['#coast', '#keyed']) {
    await page.locator(`${screen} [data-testid=palettes]`).waitFor({ timeout: 8000 });
  }
  assert.equal(await page.locator('#keyed [data-testid=palette]').first().locator('.name').textContent(), 'Quay');
  await sleep(1000);
  const log = await apiLog(url);
  // dune's read stopped in its wait: the server's one 429, nothing after. harbour's began in
  // the browser, waited out the block the hand-over seeded, and loaded at once; coast's went
  // on from the server's as it was.
  assert.deepEqual(asked(log, 'dune').filter((a) => a.startsWith('browser')), [], JSON.stringify(log));
  assert.deepEqual(asked(log, 'harbour'), ['browser 200'], JSON.stringify(log));
  assert.equal(asked(log, 'coast').at(-1), 'browser 200', JSON.stringify(log));
  assertFirstRender(log.filter((r) => r.from === 'server'));
  assert.ok(log.filter((r) => r.collection !== 'coast').every((r) => r.key === 'as_expected'));
  await assertCleanAndClose(opened, log);
});
