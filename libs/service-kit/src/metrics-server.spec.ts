import { Counter, Registry } from 'prom-client';
import { serveMetrics, type MetricsServer } from './metrics-server';

describe('serveMetrics', () => {
  let server: MetricsServer;
  const registry = new Registry();
  new Counter({ name: 'things_total', help: 'things', registers: [registry] }).inc(3);

  beforeAll(async () => {
    server = await serveMetrics(registry, 0, '127.0.0.1');
  });
  afterAll(() => server.close());

  const get = (path: string, method = 'GET') => fetch(`http://127.0.0.1:${server.port}${path}`, { method });

  it('serves the registry on GET /metrics of its own port', async () => {
    const res = await get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(registry.contentType);
    expect(await res.text()).toMatch(/^things_total 3$/m);
  });

  it('serves nothing else: 404 for other paths, 405 for other methods', async () => {
    expect((await get('/healthz')).status).toBe(404);
    expect((await get('/metrics/x')).status).toBe(404);
    const post = await get('/metrics', 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});
