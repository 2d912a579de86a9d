// What the end-to-end tests share: Debian's headless Chromium through playwright-core (it
// downloads no browser), and axe-core's verdict on a page as it stands.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const { chromium } = require(process.env.PLAYWRIGHT_CORE ?? 'playwright-core');
const AXE = readFileSync(join(process.env.AXE_CORE ?? 'axe-core', 'axe.min.js'), 'utf8');

/** Headless Chromium, offline apart from loopback. */
export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic',
      '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
}

/**
 * Fails on any axe-core violation on the page as it is now (`state` names it in the message).
 * axe is evaluated through the browser's devtools protocol, which a page's CSP does not govern.
 */
export async function assertAccessible(page, state) {
  await page.evaluate(AXE);
  const { violations } = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  const found = violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  assert.deepEqual(found, [], `axe-core at ${state}:\n${found.join('\n')}`);
}
