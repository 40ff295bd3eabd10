import { basicAuth } from '@crm/testing';
import { Agent, request } from 'node:http';
import { setupE2e } from './setup';

/**
 * A gateway stopped while a client keeps its connections busy (as a load balancer in front of it
 * does): every answer during the drain closes its connection, so the stop finishes within its time
 * (exit 0) instead of serving those connections until it overruns and cuts requests in flight.
 */
describe('api-gateway drain with keep-alive clients (e2e)', () => {
  const { services, admin } = setupE2e({ services: { env: { SHUTDOWN_TIMEOUT_MS: '3000', RATE_LIMIT_CONCURRENT: '50' } } });

  it('closes each busy connection after its answer and exits 0 within the shutdown time', async () => {
    const gateway = services.processes.find((p) => p.app === 'api-gateway')!;
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const url = new URL(`${services.gatewayUrl}/api/v3/users/${admin.user.id}`);
    const authorization = basicAuth(admin.user.id, admin.user.api_key);
    const get = () =>
      new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const req = request(url, { agent, headers: { authorization } }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
        });
        req.on('error', reject);
        req.end();
      });

    let exited = false;
    const answers: Array<{ status: number; connection: string | undefined; afterStop: boolean }> = [];
    let stopSent = false;
    const client = async () => {
      while (!exited) {
        const afterStop = stopSent;
        try {
          answers.push({ ...(await get()), afterStop });
        } catch {
          // Refused once the gateway stopped listening: the client would go to another replica.
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
    };
    const clients = Array.from({ length: 4 }, client);
    while (answers.length < 40) await new Promise((resolve) => setTimeout(resolve, 10));

    stopSent = true;
    const code = await gateway.stop('SIGTERM');
    exited = true;
    await Promise.all(clients);
    agent.destroy();

    expect(code).toBe(0);
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    // Before the stop the connections stay open; during the drain the answers close them.
    expect(answers.filter((a) => !a.afterStop).every((a) => a.connection !== 'close')).toBe(true);
    expect(answers.some((a) => a.afterStop && a.connection === 'close')).toBe(true);
  });
});
