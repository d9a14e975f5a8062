// What the client does when a listener throws, the script forgets close(), the
// server dies, or a request is one the server would reject unread.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { ServerExitedError, UnsendableRequestError } from '../index.js';
import { connectForTest, serverPath, tempDbPath } from '../test-support/harness.js';

const indexUrl = new URL('../index.js', import.meta.url).href;

function isGone(pid) {
  try {
    return /\nState:\tZ/.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return true;
  }
}

async function waitUntil(condition) {
  for (let i = 0; i < 500 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  return condition();
}

test('a listener that throws stops neither the other listeners nor later responses', async (t) => {
  const client = await connectForTest(t, { requestTimeout: 5000 });
  const reported = t.mock.method(console, 'error', () => {});
  client.on('change', () => {
    throw new Error('a bug in the application');
  });
  const seen = [];
  let notifications = 0;
  client.on('change', ({ changes }) => {
    notifications += 1;
    seen.push(...changes);
  });
  // Answers and notifications arrive in the same chunks as the ones whose listener throws.
  const made = await Promise.all(Array.from({ length: 20 }, (_, i) => client.create({ title: `t${i}` })));
  await client.fetch();
  assert.deepEqual(seen.map((change) => change.id).sort(), made.map((task) => task.id).sort());
  assert.equal(reported.mock.callCount(), notifications);
});

test('a script that forgets close() still ends, and so does its server', async (t) => {
  const db = await tempDbPath(t);
  const script = `
    import { connect } from ${JSON.stringify(indexUrl)};
    const client = await connect({ server: ${JSON.stringify(serverPath)}, db: ${JSON.stringify(db)} });
    await client.create({ title: 'left open' });
    console.log(client.pid);
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    timeout: 20_000,
  });
  const pid = Number(stdout.trim());
  assert.ok(pid > 0);
  assert.ok(await waitUntil(() => isGone(pid)), 'the server outlived its script');
});

test('Symbol.asyncDispose closes the client', async (t) => {
  const client = await connectForTest(t);
  await client[Symbol.asyncDispose]();
  assert.ok(isGone(client.pid));
  await assert.rejects(client.get('x'), ServerExitedError);
});

test('changeStream() yields changes and missed ranges, and ends when the client closes', async (t) => {
  const client = await connectForTest(t);
  const stream = client.changeStream();
  const made = await client.create({ title: 'streamed' });
  const first = await stream.next();
  assert.equal(first.value.type, 'change');
  assert.equal(first.value.params.changes[0].id, made.id);
  await client.close();
  assert.deepEqual(await stream.next(), { value: undefined, done: true });
});

test('a full changeStream() names what it left out', async (t) => {
  const client = await connectForTest(t);
  const stream = client.changeStream({ maxBuffered: 3 });
  for (let i = 0; i < 10; i += 1) await client.create({ title: `t${i}` });
  const { seq } = await client.fetch(); // answered after the last notification
  const read = [];
  for (let i = 0; i < 4; i += 1) read.push((await stream.next()).value);
  assert.deepEqual(read.map((entry) => entry.type), ['change', 'change', 'change', 'missedChanges']);
  assert.deepEqual(read[3].params, { since: read[2].params.seq, seq, reason: 'overflow' });
  const page = await client.changes(read[3].params.since);
  assert.equal(page.changes.length, 7);
  await client.create({ title: 'after the gap' });
  assert.equal((await stream.next()).value.params.seq, seq + 1);
});

test('changeStream() rejects with ServerExitedError when the server dies', async (t) => {
  const client = await connectForTest(t);
  const stream = client.changeStream();
  process.kill(client.pid, 'SIGKILL');
  await assert.rejects(stream.next(), (error) => error instanceof ServerExitedError && error.signal === 'SIGKILL');
});

test('a string with a lone surrogate is refused at once, not answered with id null', async (t) => {
  const client = await connectForTest(t, { requestTimeout: 5000 });
  const errors = [];
  client.on('error', (error) => errors.push(error));
  const refused = await client.create({ title: 'cut in half \ud83d' }).catch((error) => error);
  assert.ok(refused instanceof UnsendableRequestError, `got ${refused}`);
  assert.equal(refused.method, 'tasks/create');
  assert.equal((await client.create({ title: 'whole \u{1f600}' })).title, 'whole \u{1f600}');
  assert.deepEqual(errors, []);
});

test('a message over the server\'s limit is refused at once', async (t) => {
  const client = await connectForTest(t, { requestTimeout: 5000, args: ['--max-message-bytes', '4096'] });
  assert.equal(client.capabilities.limits.maxMessageBytes, 4096);
  const refused = await client.create({ title: 'long', notes: 'n'.repeat(5000) }).catch((error) => error);
  assert.ok(refused instanceof UnsendableRequestError, `got ${refused}`);
  assert.match(refused.message, /4096/);
  assert.equal((await client.create({ title: 'short', notes: 'n'.repeat(100) })).notes, 'n'.repeat(100));
});

test('initialize names the database, and each page has the seq it was read at', async (t) => {
  const db = await tempDbPath(t);
  const client = await connectForTest(t, { db });
  assert.equal(client.database.seq, 0);
  assert.match(client.database.id, /^[0-9a-f]+$/);
  const made = await client.create({ title: 'one' });
  const page = await client.fetch();
  assert.deepEqual(page.tasks, [made]);
  assert.equal(page.seq, 1);
  assert.deepEqual((await client.changes(page.seq)).changes, []);
  await client.close();
  const again = await connectForTest(t, { db });
  assert.deepEqual(again.database, { id: client.database.id, seq: 1 });
  assert.notEqual((await connectForTest(t)).database.id, client.database.id);
});
