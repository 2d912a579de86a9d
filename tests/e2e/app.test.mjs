// End to end: the release build from `trunk build --release`, served with its scenario API on one
// loopback origin (`scenario-api --static dist`), driven in Debian's headless Chromium by
// playwright-core. Run by scripts/test.sh, which sets E2E_URL and E2E_SHOTS.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { launch, assertAccessible } from './browser.mjs';

const BASE = process.env.E2E_URL;
const SHOTS = process.env.E2E_SHOTS ?? 'target/screenshots';
assert.ok(BASE, 'E2E_URL is not set: run the end-to-end test with scripts/test.sh');
mkdirSync(SHOTS, { recursive: true });

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** How far a real run may be from the fixture's times: the browser tests' TOLERANCE, 150 ms. */
const TOLERANCE_S = 0.15;

/**
 * The summary line, word for word, with its elapsed time (written to the tenth) within the
 * tolerance of the fixture's: three round trips and two timers on a real clock can end at 14.06 s,
 * which reads "14.1 seconds".
 */
function assertSummary(text, status, attempts, seconds) {
  const m = text.match(/^Last response: (\d+)\. Attempts: (\d+) of 3\. Elapsed: ([\d.]+) seconds?\.$/);
  assert.ok(m, `not a summary line: ${text}`);
  assert.deepEqual([Number(m[1]), Number(m[2])], [status, attempts], text);
  assert.ok(Math.abs(Number(m[3]) - seconds) <= TOLERANCE_S + 1e-9,
    `${text}: elapsed is not within ${TOLERANCE_S} s of ${seconds} s`);
}

/** The newest run of a scenario, as the server counts it. */
async function latestRun(scenario) {
  const runs = await (await fetch(`${BASE}/api/runs`)).json();
  const mine = runs.filter((r) => r.scenario === scenario);
  assert.ok(mine.length > 0, `no run of ${scenario} reached the server`);
  return mine[mine.length - 1];
}

async function page(width = 1100, height = 820) {
  const p = await browser.newPage({ viewport: { width, height } });
  p.on('pageerror', (e) => { throw e; });
  return p;
}

test('Schedule A: the countdown, then the palettes, three requests on the wire', async () => {
  const p = await page();
  await p.goto(`${BASE}/one?scenario=schedule-a-seconds`);
  await p.getByTestId('attempt').waitFor({ timeout: 5000 });
  assert.equal(await p.getByTestId('attempt').textContent(), 'Attempt 1 of 3');
  await p.getByTestId('countdown').waitFor({ timeout: 5000 });
  assert.match(await p.getByTestId('countdown').textContent(), /^Attempt 2 of 3 in [1-3] s$/);
  assert.equal(await p.getByTestId('wait-reason').textContent(), 'The service asked for 3 s.');
  // The waiting state's picture and accessibility audit are taken in the next test's longer
  // wait: axe runs on the page's main thread, and here it would delay the timer whose
  // punctuality the summary below measures.
  await p.getByTestId('palettes').waitFor({ timeout: 20000 });
  assert.equal(await p.getByTestId('palette').count(), 4);
  assertSummary(await p.getByTestId('loaded-summary').textContent(), 200, 3, 14);
  await p.screenshot({ path: `${SHOTS}/loaded.png` });
  await assertAccessible(p, 'One screen, loaded');
  assert.equal((await latestRun('schedule-a-seconds')).requests, 3);
  await p.close();
});

test('a same-origin read redirected to another origin is judged by where it landed', async () => {
  // The page asks its own origin; the API answers 307 to the same server under another name
  // (localhost), which does not expose Retry-After. So the header may be hidden by CORS, and the
  // trace must say so: a runtime that judged by the requested URL would not.
  const p = await page();
  const port = new URL(BASE).port;
  await p.goto(`${BASE}/one?scenario=schedule-a-seconds&expose=none&moved_to=${encodeURIComponent(`http://localhost:${port}`)}`);
  await p.getByTestId('wait-reason').waitFor({ timeout: 5000 });
  assert.equal(await p.getByTestId('wait-reason').textContent(),
    'The service gave no usable hint; waiting the 2 s fallback.');
  assert.match(await p.getByTestId('trace').textContent(),
    /Retry-After missing \(cross-origin: the server may send it without exposing it\)/);
  await p.getByTestId('cancel').click();
  const run = await latestRun('schedule-a-seconds');
  assert.equal(run.requests, 1, 'the redirect is one attempt on the wire');
  await p.close();
});

test('navigating away mid-wait: nothing more reaches the server', async () => {
  const p = await page();
  await p.goto(`${BASE}/one?scenario=user-leaves-while-waiting`);
  await p.getByTestId('countdown').waitFor({ timeout: 5000 }); // 429 at 2 s asks for 8 s
  const t0 = Date.now();
  await p.locator('details.trace summary').click();
  await p.screenshot({ path: `${SHOTS}/waiting.png` });
  await assertAccessible(p, 'One screen, waiting, the trace open');
  await sleep(1000 - (Date.now() - t0));
  await p.getByRole('link', { name: 'About' }).click();
  await p.getByTestId('about').waitFor({ timeout: 2000 });
  // The About page's figures are the default policy's, read from RetryPolicy::new().
  assert.match(await p.getByTestId('about-budget').textContent(),
    /: 20 seconds from the first attempt's start, at most 3 attempts, 4 seconds reserved for each/);
  await assertAccessible(p, 'About');
  // The retry would have gone out about 8 s after the countdown appeared.
  await sleep(9000 - (Date.now() - t0));
  const run = await latestRun('user-leaves-while-waiting');
  assert.equal(run.requests, 1);
  const detail = await (await fetch(`${BASE}/api/runs/${run.run}`)).json();
  assert.deepEqual(detail.requests.map((r) => r.state), ['answered']);
  await p.close();
});

test('a wait that cannot fit: the SPEC message, on a desktop and a phone', async () => {
  for (const [name, w, h] of [['stopped', 1100, 820], ['phone', 390, 844]]) {
    const p = await page(w, h);
    await p.goto(`${BASE}/one?scenario=wait-exceeds-budget`);
    await p.getByTestId('stop').waitFor({ timeout: 6000 });
    // The SPEC's words exactly, but for the elapsed time: the 429 arrives 2 s after the
    // request does, and the client reads it 10 to 35 ms later on this machine (2.05 s would
    // read "2.1 seconds"). The model checks the whole message on its virtual clock.
    assert.deepEqual(
      [
        await p.getByTestId('stop-outcome').textContent(),
        await p.getByTestId('stop-detail').textContent(),
      ],
      [
        'Stopped: retry budget cannot fit another request.',
        'The service requested a 30-second delay. No retry was sent.',
      ],
    );
    assertSummary(await p.getByTestId('stop-last-response').textContent(), 429, 1, 2);
    await p.screenshot({ path: `${SHOTS}/${name}.png` });
    await assertAccessible(p, `One screen, stopped (${name})`);
    await p.close();
  }
  assert.equal((await latestRun('wait-exceeds-budget')).requests, 1);
});

test('the scenarios page: client trace and server requests side by side', async () => {
  const p = await page(1100, 900);
  await p.goto(`${BASE}/scenarios`);
  await p.getByTestId('play-attempt-cap').click();
  await p.getByTestId('stop').waitFor({ timeout: 12000 });
  assert.equal(await p.getByTestId('stop-outcome').textContent(), 'Stopped: all 3 attempts were used.');
  // Give the server table its next poll.
  await sleep(700);
  assert.equal(await p.locator('[data-testid=server-requests] tbody tr').count(), 3);
  await p.screenshot({ path: `${SHOTS}/scenarios.png` });
  await assertAccessible(p, 'Scenarios, a case played');
  await p.close();
});

/** A new limit on the scenario API (`quota=…&window_s=…[&spent=…]`): its id. */
async function newLimit(query) {
  const r = await fetch(`${BASE}/api/limits?${query}`, { method: 'POST' });
  const text = await r.text();
  assert.equal(r.status, 201, text);
  return JSON.parse(text).limit;
}

/** What reached the limit: each request's status, in order. */
async function limitStatuses(id) {
  const log = await (await fetch(`${BASE}/api/limits/${id}`)).json();
  return log.requests.map((r) => r.status);
}

test('the shared API: five identical screens send one request, and the ledger is shown', async () => {
  const id = await newLimit('quota=3&window_s=10');
  const p = await page(1100, 900);
  await p.goto(`${BASE}/?limit=${id}&screens=`);
  await p.getByTestId('add-five').click();
  for (let i = 0; i < 5; i++) {
    await p.getByTestId('shared-screen').nth(i).getByTestId('palettes').waitFor({ timeout: 5000 });
  }
  assert.deepEqual(await limitStatuses(id), [200], 'five screens, one request');
  await p.getByTestId('add-different').click();
  await p.getByTestId('shared-screen').nth(6).getByTestId('palettes').waitFor({ timeout: 5000 });
  // Three requests in the window: the fields say none is left, and the page paces itself.
  assert.deepEqual(await limitStatuses(id), [200, 200, 200]);
  await sleep(600);
  assert.equal(await p.getByTestId('ledger-remaining').textContent(), 'Quota left: 0.');
  assert.match(await p.getByTestId('ledger-next').textContent(),
    /^Next request allowed in \d+(\.\d)? s \(the quota's reset\)\.$/);
  await p.getByTestId('add-coast').click();
  const held = p.getByTestId('shared-screen').nth(7);
  await held.getByTestId('wait-reason').waitFor({ timeout: 2000 });
  assert.match(await held.getByTestId('wait-reason').textContent(),
    /^This API's quota is used up; the service said it resets in \d+ s\.$/);
  assert.match(await p.getByTestId('server-count').textContent(), /^3 requests reached the API: 3 admitted, 0 refused\.$/);
  await p.screenshot({ path: `${SHOTS}/shared-api.png` });
  await assertAccessible(p, 'Shared API, eight screens, one held back');
  await p.close();
});

test('two tabs: a 429 in one holds back the other', async () => {
  // The window is spent, and resets in 6 s: the first request anywhere is refused.
  const id = await newLimit('quota=2&window_s=6&spent=2');
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const [a, b] = [await context.newPage(), await context.newPage()];
  for (const p of [a, b]) p.on('pageerror', (e) => { throw e; });
  // Tab B is open on the API with no screen yet, and hears the other tabs.
  await b.goto(`${BASE}/?limit=${id}&screens=`);
  await b.getByTestId('ledger-next').waitFor({ timeout: 5000 });
  assert.equal(await b.getByTestId('ledger-next').textContent(), 'Requests allowed now.');
  // Tab A reads, and meets the 429.
  await a.goto(`${BASE}/?limit=${id}`);
  await a.getByTestId('wait-reason').waitFor({ timeout: 5000 });
  // The 429's Retry-After is what is left of the 6 s window when A's request arrived, in whole
  // seconds rounded up: 6 where the pages loaded within a second, 5 on a slower machine.
  const [refused] = (await (await fetch(`${BASE}/api/limits/${id}`)).json()).requests;
  const asked = Math.ceil((6000 - refused.arrived_ms - 0.5) / 1000);
  assert.ok(asked === 5 || asked === 6, `A's request arrived at ${refused.arrived_ms} ms`);
  assert.equal(await a.getByTestId('wait-reason').textContent(), `The service asked for ${asked} s.`);
  // Tab B learned of it, and a screen opened there now waits instead of asking.
  await sleep(300);
  assert.match(await b.getByTestId('ledger-next').textContent(),
    /^Next request allowed in \d(\.\d)? s \(a 429's Retry-After\)\.$/);
  await b.getByTestId('add-different').click();
  await b.getByTestId('wait-reason').first().waitFor({ timeout: 2000 });
  assert.equal(await b.getByTestId('wait-reason').first().textContent(),
    `The service asked every request to this API to wait ${asked} s.`);
  assert.deepEqual(await limitStatuses(id), [429], 'tab B sent nothing');
  // After the block: A's retry, and B's reads; none of them before the block's end.
  await a.getByTestId('palettes').waitFor({ timeout: 10000 });
  await sleep(1500);
  const log = (await (await fetch(`${BASE}/api/limits/${id}`)).json()).requests;
  assert.ok(log.length >= 3, `A's retry and B's two reads: ${JSON.stringify(log)}`);
  for (const r of log.slice(1)) {
    assert.ok(r.arrived_ms >= 6000, `a request before the block ended: ${JSON.stringify(log)}`);
  }
  await context.close();
});

test('the shared API, one at a time: screens queue, and the API never sees two at once', async () => {
  // Each answer is held 500 ms, so that two screens that read at once would overlap.
  const id = await newLimit('quota=10&window_s=60&answer_ms=500');
  const p = await page(1100, 900);
  await p.goto(`${BASE}/?limit=${id}&screens=`);
  await p.getByTestId('one-at-a-time').check();
  await p.getByTestId('add-different').click();
  const second = p.getByTestId('shared-screen').nth(1);
  await second.getByTestId('queued').waitFor({ timeout: 2000 });
  assert.equal(await second.getByTestId('queued').textContent(),
    'Attempt 1 of 3 waits its turn. At most 1 request to this API may be in flight at once.');
  for (let i = 0; i < 2; i++) {
    await p.getByTestId('shared-screen').nth(i).getByTestId('palettes').waitFor({ timeout: 5000 });
  }
  const log = (await (await fetch(`${BASE}/api/limits/${id}`)).json());
  assert.equal(log.most_in_flight, 1, JSON.stringify(log));
  assert.ok(log.requests[1].arrived_ms >= log.requests[0].answered_ms, JSON.stringify(log));
  await sleep(400);
  assert.equal(await p.getByTestId('server-in-flight').textContent(),
    'Most in flight at the API at once: 1.');
  assert.equal(await p.getByTestId('ledger-in-flight').textContent(), 'In flight: 0; queued: 0.');
  await p.close();
});
