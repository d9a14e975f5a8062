import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import {
  InvalidParamsError,
  MethodNotFoundError,
  StorageError,
  TaskAlreadyExistsError,
  TaskNotFoundError,
  TasklineError,
  VersionConflictError,
} from '../index.js';
import { connectForTest, tempDbPath } from '../test-support/harness.js';

async function rejection(promise) {
  const error = await promise.then(
    (value) => assert.fail(`expected a rejection, got ${JSON.stringify(value)}`),
    (e) => e,
  );
  assert.ok(error instanceof TasklineError, `not a TasklineError: ${error}`);
  return error;
}

test('a missing task is TaskNotFoundError (1001) for get, update and delete', async (t) => {
  const client = await connectForTest(t);
  for (const request of [client.get('nope'), client.update('nope', { title: 'x' }), client.delete('nope')]) {
    const error = await rejection(request);
    assert.ok(error instanceof TaskNotFoundError, `got ${error.name}`);
    assert.equal(error.code, 1001);
    assert.equal(error.id, 'nope');
    assert.deepEqual(error.data, { id: 'nope' });
  }
});

test('a stale ifVersion is VersionConflictError (1002) carrying the current task', async (t) => {
  const client = await connectForTest(t);
  const task = await client.create({ title: 'v1' });
  const current = await client.update(task.id, { title: 'v2' });
  for (const request of [
    client.update(task.id, { title: 'lost' }, { ifVersion: 1 }),
    client.delete(task.id, { ifVersion: 1 }),
  ]) {
    const error = await rejection(request);
    assert.ok(error instanceof VersionConflictError, `got ${error.name}`);
    assert.equal(error.code, 1002);
    assert.deepEqual(error.currentTask, current);
  }
  assert.deepEqual(await client.get(task.id), current, 'nothing changed');
});

test('creating an id that exists is TaskAlreadyExistsError (1003)', async (t) => {
  const client = await connectForTest(t);
  await client.create({ id: 'dup', title: 'first' });
  const error = await rejection(client.create({ id: 'dup', title: 'second' }));
  assert.ok(error instanceof TaskAlreadyExistsError, `got ${error.name}`);
  assert.equal(error.code, 1003);
  assert.equal(error.id, 'dup');
});

test('invalid params are InvalidParamsError (-32602) naming the field', async (t) => {
  const client = await connectForTest(t);
  const task = await client.create({ title: 'valid' });
  const cases = [
    [client.create({ title: 'x', colour: 'red' }), 'colour'],
    [client.create({ title: '   ' }), 'title'],
    [client.create({ title: 'x', tags: ['ok', 'not ok'] }), 'tags[1]'],
    [client.update(task.id, { priority: 7 }), 'changes.priority'],
    [client.fetch({ limit: 0 }), 'limit'],
  ];
  for (const [request, field] of cases) {
    const error = await rejection(request);
    assert.ok(error instanceof InvalidParamsError, `got ${error.name} for ${field}`);
    assert.equal(error.code, -32602);
    assert.equal(error.field, field);
  }
});

test('an unknown method is MethodNotFoundError (-32601) naming the method', async (t) => {
  const client = await connectForTest(t);
  const error = await rejection(client.request('tasks/archive', { id: 'x' }));
  assert.ok(error instanceof MethodNotFoundError, `got ${error.name}`);
  assert.equal(error.code, -32601);
  assert.equal(error.method, 'tasks/archive');
});

const hasSqlite3 = spawnSync('sqlite3', ['-version']).status === 0;

test('a database locked past the busy timeout is StorageError (1004)', { skip: !hasSqlite3 && 'needs the sqlite3 CLI' }, async (t) => {
  const db = await tempDbPath(t);
  const client = await connectForTest(t, { db, args: ['--busy-timeout', '100'] });
  await client.create({ title: 'creates the schema' });

  const locker = spawn('sqlite3', [db], { stdio: ['pipe', 'pipe', 'inherit'] });
  t.after(() => locker.kill());
  locker.stdin.write("BEGIN IMMEDIATE;\nSELECT 'locked';\n");
  await once(locker.stdout, 'data');

  const error = await rejection(client.create({ title: 'blocked' }));
  assert.ok(error instanceof StorageError, `got ${error.name}: ${error.message}`);
  assert.equal(error.code, 1004);
  assert.equal(typeof error.data.code, 'number');
  assert.equal(typeof error.data.extendedCode, 'number');
  assert.equal(error.data.kind, 'busy');
  assert.equal(error.data.retryable, true);
});
