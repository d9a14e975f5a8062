import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import {
  ServerExitedError,
  ServerNotInitializedError,
  TasklineClient,
  TasklineError,
  connect,
} from '../index.js';
import { connectForTest, nextEvent, serverPath, tempDbPath } from '../test-support/harness.js';

test('connect runs initialize and exposes what the server said about itself', async (t) => {
  const client = await connectForTest(t);
  assert.equal(client.serverInfo.name, 'taskline');
  assert.equal(typeof client.serverInfo.version, 'string');
  assert.equal(client.protocolVersion, '1');
  // The server may add methods within protocol version 1: every method this
  // client calls must be there, and anything more is fine.
  const { methods } = client.capabilities;
  assert.ok(Array.isArray(methods) && methods.every((method) => typeof method === 'string'), `${methods}`);
  for (const method of ['tasks/create', 'tasks/get', 'tasks/fetch', 'tasks/update', 'tasks/delete',
    'tasks/changes', 'tasks/apply']) {
    assert.ok(methods.includes(method), `capabilities.methods lacks ${method}: ${methods}`);
  }
  assert.equal(client.capabilities.notifications.didChange, true);
});

test('close sends shutdown and exit: the server ends with code 0 and emits exit', async (t) => {
  const client = await connect({ server: serverPath, db: await tempDbPath(t) });
  const exitEvent = nextEvent(client, 'exit');
  assert.deepEqual(await client.close(), { code: 0, signal: null });
  assert.deepEqual(await exitEvent, [{ code: 0, signal: null }]);
  assert.deepEqual(await client.close(), { code: 0, signal: null }, 'closing twice is harmless');
});

test('requests after close reject with ServerExitedError', async () => {
  const client = await connect({ server: serverPath, db: ':memory:' });
  await client.close();
  await assert.rejects(client.get('anything'), ServerExitedError);
});

test('close waits for requests already sent', async (t) => {
  const client = await connect({ server: serverPath, db: await tempDbPath(t) });
  const created = client.create({ title: 'sent before close' });
  const closed = client.close();
  assert.equal((await created).title, 'sent before close');
  assert.equal((await closed).code, 0);
});

test('close kills a server that does not answer shutdown within the grace period', async (t) => {
  const client = await connect({ server: serverPath, db: ':memory:' });
  process.kill(client.pid, 'SIGSTOP');
  assert.deepEqual(await client.close({ grace: 200 }), { code: null, signal: 'SIGKILL' });
});

test('task requests before initialize reject with ServerNotInitializedError', async (t) => {
  const client = new TasklineClient({ server: serverPath, db: ':memory:' });
  t.after(() => client.close());
  const error = await client.get('x').catch((e) => e);
  assert.ok(error instanceof ServerNotInitializedError);
  assert.ok(error instanceof TasklineError);
  assert.equal(error.code, -32002);
  await client.initialize();
  await client.create({ title: 'works once initialized' });
});

test('a second initialize is rejected with -32600', async (t) => {
  const client = await connectForTest(t, { db: ':memory:' });
  await assert.rejects(client.initialize(), { name: 'TasklineError', code: -32600 });
});

test('exit without shutdown ends the server with code 1', async (t) => {
  const client = await connect({ server: serverPath, db: ':memory:' });
  const exitEvent = nextEvent(client, 'exit');
  client.notify('exit');
  assert.deepEqual(await exitEvent, [{ code: 1, signal: null }]);
});

test('a server that dies mid-request rejects the request with ServerExitedError', async (t) => {
  const client = await connect({ server: serverPath, db: ':memory:' });
  const exitEvent = nextEvent(client, 'exit');
  process.kill(client.pid, 'SIGSTOP'); // so the request cannot be answered before the kill
  const pending = client.get('x');
  process.kill(client.pid, 'SIGKILL');
  const error = await pending.catch((e) => e);
  assert.ok(error instanceof ServerExitedError, `got ${error}`);
  assert.equal(error.signal, 'SIGKILL');
  assert.deepEqual(await exitEvent, [{ code: null, signal: 'SIGKILL' }]);
});

test('a server binary that does not exist rejects connect with ServerExitedError', async () => {
  const error = await connect({ server: '/nonexistent/taskline' }).catch((e) => e);
  assert.ok(error instanceof ServerExitedError, `got ${error}`);
  assert.equal(error.cause.code, 'ENOENT');
});

test('a database the server cannot use rejects connect with exit code 3 and its stderr', async (t) => {
  const db = await tempDbPath(t);
  await writeFile(db, 'this is not a SQLite database, just text that is long enough to have a header');
  const error = await connect({ server: serverPath, db }).catch((e) => e);
  assert.ok(error instanceof ServerExitedError, `got ${error}`);
  assert.equal(error.exitCode, 3);
  assert.notEqual(error.stderr.trim(), '');
});

test('stderr is drained: a server logging at debug level keeps answering', async (t) => {
  const client = await connectForTest(t, { args: ['--log-level', 'debug'] });
  const titles = Array.from({ length: 300 }, (_, i) => `chatty ${i}`);
  const created = await Promise.all(titles.map((title) => client.create({ title })));
  assert.deepEqual(created.map((task) => task.title), titles);
  assert.notEqual(client.stderr, '');
});
