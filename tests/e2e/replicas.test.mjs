// Three replicas of the SSR example in front of one rate-limited API, their renders' ledger
// shared through one redis-server: real processes on loopback, each stopping by itself. The
// API is a fourth instance of the example, whose API the replicas read (`--api`), and which
// counts every request and who sent it. No browser is needed: what the renders send is counted
// at the API, and what they hand over is in their HTML. Run by scripts/test.sh.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, startRedis, stopAll } from './processes.mjs';

after(stopAll);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** What reached the API: `from status` for each request, in order. */
async function reached(api) {
  const log = await (await fetch(`${api}/api/log`)).json();
  return log.map((r) => `${r.from} ${r.status}`);
}

/** A render of the palettes page: its HTML, and how long the server took. */
async function render(replica) {
  const started = Date.now();
  const response = await fetch(`${replica.url}/`);
  assert.equal(response.status, 200);
  return { html: await response.text(), took: Date.now() - started };
}

/** The page hands a wait over to the browser, with no data: the countdown is in the HTML. */
function assertHandedOver(html) {
  assert.match(html, /Attempt [12] of 3 in \d+ s/, html);
  assert.doesNotMatch(html, /Tide Pool/);
}

/** The API, one answer every `windowS` s, its first window spent; three replicas before it. */
async function fleet(windowS, redis, replicas = 3) {
  const api = (await serve(['--quota', '1', '--window-s', String(windowS)])).url;
  const all = [];
  for (let i = 0; i < replicas; i++) all.push(await serve(['--api', api, '--redis', redis.url]));
  return { api, replicas: all };
}

test('a 429 met by one replica holds back the other two: they send nothing, and hand the wait over', async () => {
  const redis = await startRedis();
  const { api, replicas: [one, two, three] } = await fleet(6, redis);
  assertHandedOver((await render(one)).html);
  const first = await reached(api);
  assert.ok(first.length >= 1 && first.every((r) => r === 'server 429'), first.join());
  await sleep(100);
  for (const other of [two, three]) {
    const { html, took } = await render(other);
    assertHandedOver(html);
    assert.ok(took < 1000, `held ${took} ms`);
  }
  assert.deepEqual(await reached(api), first, 'the other replicas sent nothing');
  // A replica that shares nothing learns the block by meeting it.
  const alone = await serve(['--api', api]);
  assertHandedOver((await render(alone)).html);
  assert.ok((await reached(api)).length > first.length);
  await redis.stop();
});

test('Redis stopped halfway and started again: each replica keeps what it knows, and they share again within a second', async () => {
  let redis = await startRedis();
  const { api, replicas: [one, two] } = await fleet(8, redis, 2);
  await redis.stop();
  // Redis gone: the first replica meets the 429 and holds it; its next render sends nothing.
  assertHandedOver((await render(one)).html);
  const met = await reached(api);
  assertHandedOver((await render(one)).html);
  assert.deepEqual(await reached(api), met, 'nothing during a block the replica knows of');
  // The second cannot hear of it, and meets it too; then it holds it as well.
  const { took } = await render(two);
  assert.ok(took < 1000, `a render held ${took} ms waiting for Redis`);
  const both = await reached(api);
  assert.ok(both.length > met.length);
  await render(two);
  assert.deepEqual(await reached(api), both);
  for (const r of [one, two]) {
    assert.equal(r.log().match(/WARN .*Redis away: this process reads with its own ledger until it answers/g)?.length, 1, r.log());
  }
  // Redis back, empty: within a second each replica says so and writes its block again, so a
  // replica started now sends nothing.
  redis = await startRedis(redis.port);
  await sleep(1000);
  for (const r of [one, two]) assert.match(r.log(), /INFO .*Redis back: sharing again, running blocks published again .*republished=1/);
  const three = await serve(['--api', api, '--redis', redis.url]);
  assertHandedOver((await render(three)).html);
  assert.deepEqual(await reached(api), both, 'the new replica sent nothing');
  await redis.stop();
});

/** What the API saw at most at once, from any client. */
async function mostAtOnce(api) {
  return (await (await fetch(`${api}/api/stats`)).json()).in_flight_max;
}

/** A render one of whose reads was sent and loaded: some collection's palettes are in the HTML
 * (the page reads more than one: coast's Tide Pool, dune's Ridge, harbour's Quay). */
const loaded = (html) => /Tide Pool|Ridge|Quay/.test(html);

test('a replica killed holding the scope\'s one place: the other sends once its cap and margin have passed, never before', async () => {
  const redis = await startRedis();
  // Every answer takes 3 s; the scope allows one request in flight, shared by both replicas.
  const api = (await serve(['--quota', '100', '--window-s', '1', '--first-window', 'open', '--api-latency-ms', '3000'])).url;
  const replicas = [];
  for (let i = 0; i < 2; i++) replicas.push(await serve(['--api', api, '--redis', redis.url, '--in-flight-limit', '1']));
  const [dying, living] = replicas;
  // A Redis used for the first time gives no place for a second from the first replica's
  // connect: a render now sends nothing; then that second passes.
  assert.ok(!loaded((await render(dying)).html));
  await sleep(1100);
  const taken = Date.now();
  const held = fetch(`${dying.url}/`).catch(() => null);
  await sleep(500);
  dying.kill('SIGKILL');
  await held;
  // Its place lives the attempt's cap (4 s) and the margin (1 s) from when it was taken. Until
  // then the other replica's renders find it taken and hand their read to the browser unsent,
  // each within its allowance; then one is sent.
  let sent;
  for (;;) {
    const started = Date.now();
    const { html, took } = await render(living);
    if (loaded(html)) {
      sent = started - taken;
      break;
    }
    assert.ok(took < 1000, `a render held ${took} ms`);
    assert.ok(Date.now() - taken < 8000, 'the dead replica\'s place was never freed');
    await sleep(200);
  }
  // A render asks for a place for at most the share's timeout (250 ms) before it lets its read
  // go: the first one sent may have started that long before the place was freed.
  assert.ok(sent >= 4500 && sent < 6500, `sent ${sent} ms after the dead replica took its place`);
  assert.equal(await mostAtOnce(api), 1);
  await redis.stop();
});

test('Redis paused while replicas render: each render within its allowance on its own limit, and shared again once Redis resumes', async () => {
  const redis = await startRedis();
  const { api, replicas } = await fleet(4, redis);
  // Past the first second (from the first replica's connect) of a Redis used for the first time.
  await sleep(1100);
  redis.signal('SIGSTOP');
  for (const r of replicas) {
    const { html, took } = await render(r);
    assertHandedOver(html);
    // The share's timeout (250 ms here) for the block, and again for the place: no more.
    assert.ok(took < 1000, `a render held ${took} ms while Redis was paused`);
  }
  for (const r of replicas) {
    assert.match(r.log(), /WARN .*Redis away: this process reads with its own ledger until it answers/);
  }
  redis.signal('SIGCONT');
  await sleep(1000);
  for (const r of replicas) assert.match(r.log(), /INFO .*Redis back/);
  // Each met the 429 on its own while Redis was paused, and holds its block; a replica started
  // now hears of the block from Redis and sends nothing.
  const met = await reached(api);
  const late = await serve(['--api', api, '--redis', redis.url]);
  assertHandedOver((await render(late)).html);
  assert.deepEqual(await reached(api), met, 'the new replica sent nothing');
  await redis.stop();
});

test('a wrong Redis URL or an unreachable host is named at start, and the replica serves with its own ledger', async () => {
  const api = (await serve(['--quota', '1', '--window-s', '3'])).url;
  const wrong = await serve(['--api', api, '--redis', 'http://127.0.0.1:6379/']);
  const unreachable = await serve(['--api', api, '--redis', 'redis://:hunter2@127.0.0.1:1/']);
  await sleep(300);
  assert.match(wrong.log(), /--redis: the Redis URL cannot be used: Redis URL did not parse - InvalidClientConfig; this server reads with its own ledger/);
  assert.match(unreachable.log(), /WARN .*Redis away: this process reads with its own ledger until it answers redis=127\.0\.0\.1:1 error=Redis at 127\.0\.0\.1:1 cannot be used: /);
  assert.doesNotMatch(unreachable.log(), /hunter2/);
  for (const r of [wrong, unreachable]) {
    assertHandedOver((await render(r)).html);
  }
});
