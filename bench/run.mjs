// Drives the timer bench page (bench/timers, built by scripts/bench.sh) in Debian's headless
// Chromium through playwright-core, and prints its figures beside their baselines and targets.
// Usage: node bench/run.mjs URL
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { chromium } = require(process.env.PLAYWRIGHT_CORE ?? 'playwright-core');

const url = process.argv[2];
assert.ok(url, 'usage: node bench/run.mjs URL');
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
    '--no-first-run', '--disable-background-networking', '--disable-component-update'],
});
try {
  const page = await browser.newPage();
  page.on('pageerror', (e) => { throw e; });
  await page.goto(url);
  // About 2 x the delays' sum (the runtime and the bare chain, taking turns), then a 10 s wait.
  await page.locator('#results').waitFor({ state: 'attached', timeout: 600_000 });
  const r = JSON.parse(await page.locator('#results').textContent());
  const f = r.fidelity;
  const ms = (x) => `${x.toFixed(2)} ms`;
  const pad = (s, n) => String(s).padEnd(n);
  console.log(`timer fidelity: attempt-start lateness against the plan, ${f.runtime.n} waits of ` +
    `${f.delays_ms.min}-${f.delays_ms.max} ms (${(f.delays_ms.sum / 1000).toFixed(1)} s in all), headless Chromium`);
  console.log(`  ${pad('', 34)}${pad('p50', 12)}${pad('p99', 12)}max`);
  for (const [name, q] of [['runtime (the library)', f.runtime], ['bare setTimeout chain (baseline)', f.bare_set_timeout]]) {
    console.log(`  ${pad(name, 34)}${pad(ms(q.p50), 12)}${pad(ms(q.p99), 12)}${ms(q.max)}`);
  }
  const ratio = f.runtime.p99 / Math.max(f.bare_set_timeout.p99, 0.001);
  console.log(`  p99 ratio runtime/bare: ${ratio.toFixed(2)} (target: p99 <= 4 ms and ratio <= 1.1)`);
  const w = r.wakes;
  const per = (n) => (n / w.wait_s).toFixed(2);
  console.log(`wakes during one ${w.wait_s.toFixed(1)} s wait`);
  console.log(`  timer callbacks:     ${w.timer_callbacks} (${per(w.timer_callbacks)}/s); floor ${w.floor_callbacks} ` +
    '(one per change of the whole seconds shown, plus the core\'s timer)');
  console.log(`  signal writes:       ${w.signal_writes} (${per(w.signal_writes)}/s)`);
  console.log(`  live-region changes: ${w.live_region_changes} (what a screen reader hears while it waits)`);
} finally {
  await browser.close();
}
