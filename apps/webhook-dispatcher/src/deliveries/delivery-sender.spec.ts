import { SpanKind, startSpan, startTracing } from '@crm/observability';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-node';
import { attemptHeaders } from './delivery-sender';
import { signDelivery } from './delivery-signature';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const delivery = { id: 'd'.repeat(24), secrets: ['whsec_c2VjcmV0'], request_id: 'req-42', traceparent: TRACEPARENT };

describe('attemptHeaders', () => {
  it('sends the signature headers, the request id and the event traceparent as it came while tracing is off', () => {
    const headers = attemptHeaders(delivery, 1_700_000_000, '{}');
    expect(headers).toEqual({
      'webhook-id': delivery.id,
      'webhook-timestamp': '1700000000',
      'webhook-signature': signDelivery(delivery.id, 1_700_000_000, '{}', delivery.secrets),
      'x-request-id': 'req-42',
      traceparent: TRACEPARENT,
    });
  });

  it('sends neither when the event had none', () => {
    const headers = attemptHeaders({ ...delivery, request_id: null, traceparent: null }, 1, '{}');
    expect(Object.keys(headers).sort()).toEqual(['webhook-id', 'webhook-signature', 'webhook-timestamp']);
  });

  it("sends the attempt span's traceparent (same trace, the span as parent) while tracing", async () => {
    const tracing = startTracing({ service: 'test', exporter: new InMemorySpanExporter() });
    try {
      const span = startSpan('webhook deliver', SpanKind.CLIENT)!;
      const headers = attemptHeaders(delivery, 1, '{}', span);
      expect(headers.traceparent).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
      expect(headers['x-request-id']).toBe('req-42');
      span.end();
    } finally {
      await tracing.shutdown();
    }
  });
});
