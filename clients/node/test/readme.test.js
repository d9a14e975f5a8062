// The README's catch-up example (Replica, follow), run as it is written there.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { connectForTest, tempDbPath } from '../test-support/harness.js';

const readmeUrl = new URL('../README.md', import.meta.url);
const indexUrl = new URL('../index.js', import.meta.url);

/** The README's code block that defines Replica, as a module importing this checkout. */
async function loadExample(t) {
  const readme = await readFile(readmeUrl, 'utf8');
  const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1]);
  const matching = blocks.filter((block) => block.includes('class Replica'));
  assert.equal(matching.length, 1, 'one README block defines Replica');
  const code = matching[0].replaceAll("from 'taskline-client'", `from '${indexUrl.href}'`);
  const folder = await mkdtemp(join(tmpdir(), 'taskline-readme-'));
  t.after(() => rm(folder, { recursive: true, force: true }));
  const file = join(folder, 'example.mjs');
  await writeFile(file, code);
  return import(pathToFileURL(file).href);
}

/** Records the methods `client` sends. */
function logRequests(client) {
  const methods = [];
  const send = client.request.bind(client);
  client.request = (method, ...rest) => {
    methods.push(method);
    return send(method, ...rest);
  };
  return methods;
}

async function everything(client) {
  const tasks = new Map();
  for await (const task of client.tasks()) tasks.set(task.id, task);
  return tasks;
}

async function waitUntil(condition, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

test('the first sync loads with one fetch and follows on from its seq', async (t) => {
  const { Replica } = await loadExample(t);
  const db = await tempDbPath(t);
  const writer = await connectForTest(t, { db });
  const kept = await writer.create({ title: 'kept' });
  await writer.update((await writer.create({ title: 'gone' })).id, { done: true });
  await writer.delete((await writer.create({ title: 'gone too' })).id);
  await writer.update(kept.id, { title: 'renamed' });
  const reader = await connectForTest(t, { db });
  const methods = logRequests(reader);
  const replica = new Replica();
  await replica.sync(reader);
  assert.deepEqual(replica.tasks, await everything(writer));
  assert.equal(replica.tasks.size, 2);
  assert.equal(replica.seq, (await writer.changes(0)).seq);
  assert.deepEqual(methods, ['tasks/fetch', 'tasks/changes']); // no replay of the history
});

test('a reconnect catches up with one tasks/changes', async (t) => {
  const { Replica } = await loadExample(t);
  const db = await tempDbPath(t);
  const replica = new Replica();
  const first = await connectForTest(t, { db });
  const doomed = await first.create({ title: 'doomed' });
  const changed = await first.create({ title: 'changed' });
  await replica.sync(first);
  await first.close();
  // While the replica is away, another process writes (and reuses a deleted id).
  const other = await connectForTest(t, { db });
  await other.apply([
    { delete: { id: doomed.id } },
    { update: { id: changed.id, changes: { priority: 3 } } },
    { create: { title: 'new' } },
  ]);
  await other.delete(changed.id);
  await other.create({ id: changed.id, title: 'back again' });
  const again = await connectForTest(t, { db });
  const methods = logRequests(again);
  await replica.sync(again);
  assert.deepEqual(replica.tasks, await everything(other));
  assert.deepEqual([...replica.tasks.values()].map((task) => task.title).sort(), ['back again', 'new']);
  assert.deepEqual(methods, ['tasks/changes']);
});

test('an expired history falls back to a reload', async (t) => {
  const { Replica } = await loadExample(t);
  const db = await tempDbPath(t);
  const replica = new Replica();
  const first = await connectForTest(t, { db });
  await first.create({ title: 'one' });
  await replica.sync(first);
  await first.close();
  const other = await connectForTest(t, { db });
  await other.create({ title: 'two' });
  await other.create({ title: 'two and a half' });
  await other.close();
  const forgetful = await connectForTest(t, { db, args: ['--history-days', '0'] }); // keeps only the newest change
  const methods = logRequests(forgetful);
  await replica.sync(forgetful);
  assert.deepEqual([...replica.tasks.values()].map((task) => task.title).sort(), ['one', 'two', 'two and a half']);
  assert.ok(methods.includes('tasks/fetch'), methods);
  const made = await forgetful.create({ title: 'three' });
  await replica.sync(forgetful); // the seq the reload ended on is one the server knows
  assert.deepEqual(replica.tasks, await everything(forgetful));
  assert.ok(replica.tasks.has(made.id));
});

test('another database at the same path falls back to a reload', async (t) => {
  const { Replica } = await loadExample(t);
  const db = await tempDbPath(t);
  const replica = new Replica();
  const first = await connectForTest(t, { db });
  await first.create({ title: 'old' });
  await replica.sync(first);
  await first.close();
  for (const suffix of ['', '-wal', '-shm']) await rm(db + suffix, { force: true });
  const fresh = await connectForTest(t, { db });
  for (let i = 0; i < 3; i += 1) await fresh.create({ title: `new ${i}` }); // past the seq the replica knows
  await replica.sync(fresh);
  assert.deepEqual([...replica.tasks.values()].map((task) => task.title).sort(), ['new 0', 'new 1', 'new 2']);
});

test('follow keeps the replica current until the server exits', async (t) => {
  const { Replica, follow } = await loadExample(t);
  const db = await tempDbPath(t);
  const client = await connectForTest(t, { db });
  const writer = await connectForTest(t, { db });
  await writer.create({ title: 'before' });
  const replica = new Replica();
  const following = follow(client, replica);
  // Several changes in one notification, from another process.
  const results = await writer.apply([0, 1, 2, 3].map((i) => ({ create: { title: `batch ${i}` } })));
  await writer.delete(results[0].value.id);
  const expected = await everything(writer);
  assert.equal(expected.size, 4);
  await waitUntil(() => isDeepStrictEqual(replica.tasks, expected));
  assert.deepEqual(replica.tasks, expected);
  process.kill(client.pid, 'SIGKILL');
  await following;
});
