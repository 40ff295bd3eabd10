import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP receiver got it. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{
      spans?: Array<{ traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: OtlpAttribute[] }>;
    }>;
  }>;
}

/** OTLP/JSON ids are hex; the protobuf-to-JSON mapping would give base64: accept both. */
function hexId(id: string | undefined): string {
  if (!id) return '';
  return /^[0-9a-f]+$/.test(id) ? id : Buffer.from(id, 'base64').toString('hex');
}

function attributes(list: OtlpAttribute[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list ?? [])
    out[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue));
  return out;
}

/**
 * A small real OTLP/HTTP traces receiver (POST /v1/traces, JSON encoding, which the
 * @opentelemetry/exporter-trace-otlp-http exporter sends): keeps every span it gets, at most 50,000.
 */
export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  let posts = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      posts += 1;
      const body = JSON.parse(Buffer.concat(chunks).toString()) as OtlpExport;
      for (const rs of body.resourceSpans ?? []) {
        const service = String(attributes(rs.resource?.attributes)['service.name'] ?? '');
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            if (spans.length < 50_000)
              spans.push({
                service,
                traceId: hexId(s.traceId),
                spanId: hexId(s.spanId),
                parentSpanId: hexId(s.parentSpanId),
                name: s.name,
                kind: s.kind,
                attributes: attributes(s.attributes),
              });
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    get posts() {
      return posts;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
