import { WebhookDeliveryErrors } from '@crm/contracts';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { deliveryErrorOf, ReceiverClient } from './receiver-client';

/** What the delivery log shows of a failed attempt: a category, never the address, port or DNS answer behind it. */
describe('receiver client errors in the delivery log', () => {
  const clients: ReceiverClient[] = [];
  const client = (allowPrivate: boolean) => {
    const c = new ReceiverClient({ timeoutMs: 5000, allowPrivate, userAgent: 'test' });
    clients.push(c);
    return c;
  };
  afterAll(() => clients.forEach((c) => c.close()));

  /** A port nothing listens on (taken, then released). */
  async function closedPort(): Promise<number> {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    await new Promise((r) => server.close(r));
    return port;
  }

  const noAddress = (error: string | null, port?: number) => {
    expect(error).not.toMatch(/127\.0\.0\.1|::1|\d\.\d/);
    if (port !== undefined) expect(error).not.toContain(String(port));
  };

  it('says "connection refused" without the address and port it tried', async () => {
    const port = await closedPort();
    const result = await client(true).post(`http://127.0.0.1:${port}/hook`, {}, '{}');
    expect(result).toMatchObject({ responseCode: null, failure: 'network', error: WebhookDeliveryErrors.refused });
    noAddress(result.error, port);
    expect(result.detail).toContain('ECONNREFUSED'); // kept for the service's own log
  });

  it('says "blocked: private address" without what the name resolved to', async () => {
    const byName = await client(false).post('http://localhost:8080/hook', {}, '{}');
    expect(byName).toMatchObject({ failure: 'refused_address', error: WebhookDeliveryErrors.blocked });
    noAddress(byName.error, 8080);
    const literal = await client(false).post('http://10.1.2.3:8080/hook', {}, '{}');
    expect(literal).toMatchObject({ failure: 'refused_address', error: WebhookDeliveryErrors.blocked });
  });

  it('says "DNS lookup failed" for a name that does not resolve', async () => {
    const result = await client(false).post('http://no-such-receiver.invalid/hook', {}, '{}');
    expect(result).toMatchObject({ failure: 'network', error: WebhookDeliveryErrors.dns });
    expect(result.error).not.toContain('no-such-receiver');
  });

  it('says "TLS error" when the handshake fails', async () => {
    const plain = http.createServer((_req, res) => res.end());
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    try {
      const { port } = plain.address() as AddressInfo;
      const result = await client(true).post(`https://127.0.0.1:${port}/hook`, {}, '{}');
      expect(result).toMatchObject({ failure: 'network', error: WebhookDeliveryErrors.tls });
      noAddress(result.error, port);
    } finally {
      plain.closeAllConnections();
      await new Promise((r) => plain.close(r));
    }
  });

  it('maps the other network errors by code', () => {
    const err = (code: string, message = `${code} 10.0.0.5:443`) => Object.assign(new Error(message), { code });
    expect(deliveryErrorOf(err('ECONNRESET'))).toBe('connection reset');
    expect(deliveryErrorOf(err('EHOSTUNREACH'))).toBe('host unreachable');
    expect(deliveryErrorOf(err('ETIMEDOUT'))).toBe('timeout');
    expect(deliveryErrorOf(err('EAI_AGAIN'))).toBe('DNS lookup failed');
    expect(deliveryErrorOf(err('CERT_HAS_EXPIRED'))).toBe('TLS error');
    expect(deliveryErrorOf(err('HPE_INVALID_CONSTANT'))).toBe('invalid HTTP response');
    expect(deliveryErrorOf(err('ESOMETHINGELSE'))).toBe('network error');
  });
});
