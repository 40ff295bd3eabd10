import { REPO_ROOT } from '@crm/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** What bench/chaos.mjs writes to --json (the fields this test reads). */
interface ChaosResult {
  eventsIssued: number;
  apiConfirmed: number;
  recordsPerKey: Record<string, number>;
  duplicateRecords: number;
  keysWithoutRecord: number;
  committedBeyondConfirmed: number;
  delivered: number;
  lost: number;
  refused: unknown[];
  unconfirmed: unknown[];
  restarts: { nats: number };
  statuses: Record<string, number>;
}

/**
 * The CI-sized idempotency soak (decisions.md "Idempotency recorded with the write"): the chaos
 * logic of `npm run bench:webhooks -- --chaos` (bench/chaos.mjs, as a child process) at small
 * scale: a few hundred writes through the API, each retried with its own Idempotency-Key until a
 * 2xx, while a private NATS is restarted (replies lost, or late: the gateway waits 2 s). Every key
 * makes exactly one record, every write is acknowledged, and every event is delivered.
 */
describe('Idempotency-Key under NATS restarts (e2e, CI-sized chaos soak)', () => {
  let dir: string;
  let child: ChildProcess | undefined;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'crm-idem-chaos-'));
  });

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('300 writes with NATS restarts: one record per key, none lost', async () => {
    const json = path.join(dir, 'result.json');
    const args = [
      'bench/chaos.mjs',
      ...['--events', '300', '--clients', '4', '--kinds', 'nats', '--chaos-every', '1,2', '--down', '0.5,1.5', '--dispatchers', '1'],
      ...['--rpc-timeout', '2', '--drain-timeout', '60', '--request-deadline', '60', '--stall', '45', '--json', json, '--no-build'],
    ];
    const driver = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child = driver;
    driver.stdout.on('data', (chunk: Buffer) => process.stderr.write(chunk));
    driver.stderr.on('data', (chunk: Buffer) => process.stderr.write(chunk));
    const code = await new Promise<number | null>((resolve) => driver.once('exit', (c) => resolve(c)));
    // 0: no duplicate, nothing lost; 1: figures written, something wrong; 2: the run itself failed (its error is above).
    expect([0, 1]).toContain(code);

    const result = JSON.parse(readFileSync(json, 'utf8')) as ChaosResult;
    expect(result.restarts.nats).toBeGreaterThanOrEqual(1);
    expect(result.refused).toEqual([]);
    expect(result.unconfirmed).toEqual([]);
    // The headline: one record per key, every write acknowledged, every event delivered.
    expect(result.duplicateRecords).toBe(0);
    expect(result.recordsPerKey).toEqual({ 1: result.eventsIssued });
    expect(result.keysWithoutRecord).toBe(0);
    expect(result.apiConfirmed).toBe(result.eventsIssued);
    expect(result.committedBeyondConfirmed).toBe(0);
    expect(result.lost).toBe(0);
    expect(result.delivered).toBeGreaterThanOrEqual(result.apiConfirmed);
    expect(code).toBe(0);
  }, 400_000);
});
