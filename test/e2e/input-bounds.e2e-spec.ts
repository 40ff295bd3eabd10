import { request as httpRequest } from 'node:http';
import { MAX_OBJECT_KEYS } from '@crm/contracts';
import { api, type ServiceProcess } from '@crm/testing';
import { setupE2e, type Json } from './setup';

/**
 * Request input bounds, routing and metrics (decisions.md): bodies past the input bounds, raw
 * paths that used to stall the router or grow the metrics, /metrics off the public ports.
 */
describe('request input bounds, routing and metrics (e2e)', () => {
  const { services, admin } = setupE2e();

  /** Short keys, so that 110,000 of them fit under the 1 MiB body limit (as the reported 940 KB body). */
  const manyKeys = (count: number): Record<string, number> => {
    const object: Record<string, number> = {};
    for (let i = 0; i < count; i += 1) object[i.toString(36)] = 0;
    return object;
  };

  /** A request Node's fetch refuses to make (a GET with a body), through node:http. */
  function rawRequest(url: string, method: string, headers: Record<string, string>, body: string): Promise<{ status: number; json: Json }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(url, { method, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString()) }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  const credentials = () => ({ authorization: `Basic ${Buffer.from(`${admin.user.id}:${admin.user.api_key}`).toString('base64')}` });
  const serviceProcess = (app: string): ServiceProcess => services.processes.find((p) => p.app === app)!;

  describe('a body of 110,000 keys (class-transformer took about 21 s to de-duplicate them)', () => {
    const body = JSON.stringify({ last_name: 'Flood', ...manyKeys(110_000) });

    it('fits the 1 MiB body limit', () => {
      expect(Buffer.byteLength(body)).toBeLessThan(1024 * 1024);
    });

    it('is 400 invalid_request_data naming the object and the limit, on a POST', async () => {
      const res = await rawRequest(
        `${services.gatewayUrl}/api/v3/contacts`,
        'POST',
        { ...credentials(), 'content-type': 'application/json' },
        body,
      );
      expect(res).toEqual({
        status: 400,
        json: {
          status: 400,
          message: 'Invalid request data',
          error_name: 'invalid_request_data',
          error_message: expect.stringContaining('larger than the API accepts'),
          errors: { body: `must have at most ${MAX_OBJECT_KEYS} keys` },
        },
      });
    });

    it('is 400 as well on a GET, whose body is merged into the request too; the gateway keeps serving', async () => {
      const res = await rawRequest(
        `${services.gatewayUrl}/api/v3/users/${admin.user.id}`,
        'GET',
        { ...credentials(), 'content-type': 'application/json' },
        body,
      );
      expect(res.status).toBe(400);
      expect(res.json.errors).toEqual({ body: `must have at most ${MAX_OBJECT_KEYS} keys` });
      expect((await api(services, admin)('GET', `/users/${admin.user.id}`)).status).toBe(200);
    });
  });

  describe('paths', () => {
    it('still resolves a route with trailing slashes', async () => {
      expect((await api(services, admin)('GET', `/users/${admin.user.id}///`)).status).toBe(200);
    });

    it('answers a path over 2,048 bytes 404 in the envelope before any routing, on the gateway and the auth-server', async () => {
      for (const url of [
        `${services.gatewayUrl}/api/v3/contacts${'/'.repeat(16_000)}`,
        `${services.gatewayUrl}/api/v3/${'a'.repeat(2_100)}`,
        `${services.authUrl}/operator${'/'.repeat(16_000)}`,
        `${services.authUrl}/oauth/authorize/${'a'.repeat(2_100)}`,
      ]) {
        const res = await fetch(url);
        expect({ url: url.slice(0, 60), status: res.status, body: await res.json() }).toEqual({
          url: url.slice(0, 60),
          status: 404,
          body: expect.objectContaining({
            error_name: 'resource_not_found',
            error_message: 'No such route (paths are at most 2048 bytes)',
          }),
        });
      }
    });

    it('answers POST to the OpenAPI document and the docs page 405 with Allow: GET (they were 500)', async () => {
      for (const path of ['/api/v3/openapi.json', '/api/v3/docs']) {
        const res = await fetch(`${services.gatewayUrl}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        expect({ path, status: res.status, allow: res.headers.get('allow') }).toEqual({ path, status: 405, allow: 'GET' });
        expect(await res.json()).toMatchObject({ error_name: 'method_not_allowed' });
        expect((await fetch(`${services.gatewayUrl}${path}`)).status).toBe(200);
      }
    });
  });

  describe('metrics', () => {
    const metricsText = async (app: string) => (await fetch(`http://127.0.0.1:${serviceProcess(app).metricsPort}/metrics`)).text();

    it('are not served on the public ports, only on METRICS_PORT', async () => {
      for (const base of [services.gatewayUrl, services.authUrl]) {
        const res = await fetch(`${base}/metrics`);
        expect({ base, status: res.status }).toEqual({ base, status: 404 });
        expect(await res.text()).not.toContain('process_cpu_seconds_total');
      }
      expect(await metricsText('api-gateway')).toMatch(/^process_cpu_seconds_total\{/m);
      expect(await metricsText('auth-server')).toMatch(/^process_cpu_seconds_total\{/m);
    });

    it.each([
      ['api-gateway', () => services.gatewayUrl, ['/probe', '/api/v3/probe', '/api/v3/contacts/x/probe']],
      ['auth-server', () => services.authUrl, ['/probe', '/operator/probe', '/oauth/probe']],
    ])(
      '10,000 unknown paths add no series on the %s (the route label was the raw path: about 15 series each)',
      async (app, base, prefixes) => {
        const probe = async (from: number, count: number) => {
          let next = from;
          const worker = async () => {
            while (next < from + count) {
              const i = (next += 1);
              const res = await fetch(`${base()}${prefixes[i % prefixes.length]}-${i}`);
              await res.arrayBuffer();
              expect(res.status).toBe(404);
            }
          };
          await Promise.all(Array.from({ length: 16 }, worker));
        };
        const httpLines = (text: string) => text.split('\n').filter((line) => line.startsWith('http_request'));

        await probe(0, 30); // the one "unmatched" series exists from the first unknown path on
        const before = await metricsText(app);
        await probe(1_000_000, 10_000);
        const after = await metricsText(app);

        expect(httpLines(after)).toHaveLength(httpLines(before).length);
        expect(after).not.toContain('probe');
        expect(after).toMatch(/^http_requests_total\{[^}]*route="unmatched"[^}]*status="404"[^}]*\} \d+$/m);
        // Everything else (Node's own series included) stays put too, within a handful of lines.
        expect(after.split('\n').length - before.split('\n').length).toBeLessThan(20);
      },
      180_000,
    );
  });
});
