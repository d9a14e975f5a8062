import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestCancelledError, TaskNotFoundError, TimeoutError } from '../index.js';
import { connectForTest, whileServerStopped } from '../test-support/harness.js';

test('a request that gets no answer in time rejects with TimeoutError', async (t) => {
  const client = await connectForTest(t);
  const error = await whileServerStopped(client, () => client.get('x', { timeout: 100 }).catch((e) => e));
  assert.ok(error instanceof TimeoutError, `got ${error}`);
  assert.equal(error.method, 'tasks/get');
  assert.equal(error.timeout, 100);
  assert.equal((await client.create({ title: 'still usable' })).title, 'still usable');
});

test('the requestTimeout option sets the default timeout', async (t) => {
  // Long enough for initialize, which it bounds too, on a loaded machine.
  const client = await connectForTest(t, { requestTimeout: 1500 });
  const error = await whileServerStopped(client, () => client.fetch().catch((e) => e));
  assert.ok(error instanceof TimeoutError, `got ${error}`);
  assert.equal(error.timeout, 1500);
});

// Requests queued ahead of the one to cancel, so the server is still busy with
// them when it reads the $/cancelRequest that follows.
function keepServerBusy(client) {
  return Promise.all(Array.from({ length: 50 }, (_, i) => client.create({ title: `ahead ${i}` })));
}

test('a timed-out request is cancelled on the server when it has not started', async (t) => {
  const client = await connectForTest(t);
  let queuedAhead;
  await whileServerStopped(client, async () => {
    queuedAhead = keepServerBusy(client);
    await assert.rejects(client.create({ id: 'timed-out', title: 'too late' }, { timeout: 50 }), TimeoutError);
  });
  await queuedAhead;
  await assert.rejects(client.get('timed-out'), TaskNotFoundError);
});

test('aborting a request rejects it with RequestCancelledError and cancels it on the server', async (t) => {
  const client = await connectForTest(t);
  const controller = new AbortController();
  let queuedAhead;
  await whileServerStopped(client, async () => {
    queuedAhead = keepServerBusy(client);
    const request = client.create({ id: 'aborted', title: 'never' }, { signal: controller.signal });
    controller.abort(new Error('user changed their mind'));
    const error = await request.catch((e) => e);
    assert.ok(error instanceof RequestCancelledError, `got ${error}`);
    assert.equal(error.code, -32800);
    assert.equal(error.cause.message, 'user changed their mind');
  });
  await queuedAhead;
  await assert.rejects(client.get('aborted'), TaskNotFoundError);
});

test('a signal that is already aborted rejects without sending the request', async (t) => {
  const client = await connectForTest(t);
  await assert.rejects(
    client.create({ id: 'not-sent', title: 'never' }, { signal: AbortSignal.abort() }),
    RequestCancelledError,
  );
  await assert.rejects(client.get('not-sent'), TaskNotFoundError);
});

test('aborting after the answer arrived changes nothing', async (t) => {
  const client = await connectForTest(t);
  const controller = new AbortController();
  const task = await client.create({ title: 'kept' }, { signal: controller.signal });
  controller.abort();
  assert.deepEqual(await client.get(task.id), task);
});
