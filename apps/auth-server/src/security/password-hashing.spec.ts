import { hashPassword } from '@crm/common';
import { ErrorName } from '@crm/contracts';
import { createLogger } from '@crm/observability';
import { AuthServerConfig } from '../config/auth-server.config';
import { BoundedGate, HashingBusyError, PasswordHashing } from './password-hashing';

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('BoundedGate', () => {
  it('runs at most `concurrency` tasks, queues `queue` more and refuses the rest at once', async () => {
    const gate = new BoundedGate(2, 1);
    const release = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = release.map((d, i) =>
      gate.run(async () => {
        started.push(i);
        await d.promise;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect([gate.running, gate.queued]).toEqual([2, 1]);

    const refused = gate.run(async () => 'never');
    await expect(refused).rejects.toBeInstanceOf(HashingBusyError);
    await expect(refused).rejects.toMatchObject({ errorName: ErrorName.ServiceUnavailable });

    release[0].resolve();
    await expect(runs[0]).resolves.toBe(0);
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    expect([gate.running, gate.queued]).toEqual([2, 0]);
    release[1].resolve();
    release[2].resolve();
    await expect(Promise.all(runs)).resolves.toEqual([0, 1, 2]);
    expect([gate.running, gate.queued]).toEqual([0, 0]);
  });

  it('frees the slot of a task that failed', async () => {
    const gate = new BoundedGate(1, 0);
    await expect(gate.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(gate.run(async () => 'next')).resolves.toBe('next');
  });
});

describe('PasswordHashing', () => {
  it('refuses a hash beyond the configured capacity with 503 service_unavailable', async () => {
    const config = Object.assign(new AuthServerConfig(), { AUTH_HASH_CONCURRENCY: 1, AUTH_HASH_QUEUE: 0 });
    const hashing = new PasswordHashing(config, createLogger('test', 'silent'));
    const stored = await hashPassword('correct horse');
    const first = hashing.verify('correct horse', stored);
    await expect(hashing.verify('guess', stored)).rejects.toBeInstanceOf(HashingBusyError);
    await expect(first).resolves.toBe(true);
    await expect(hashing.verify('guess', stored)).resolves.toBe(false);
  });
});
