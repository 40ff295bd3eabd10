import type { ArgumentsHost } from '@nestjs/common';
import { NotFoundException } from '@nestjs/common';
import { ApiError, ErrorName } from '@crm/contracts';
import { createLogger } from '@crm/observability';
import { Writable } from 'node:stream';
import { GatewayConfig } from '../config/gateway.config';
import { GatewayExceptionFilter } from './gateway-exception.filter';

function answer(exception: unknown) {
  const sent: { status?: number; body?: Record<string, unknown> } = {};
  const res = {
    headersSent: false,
    setHeader: () => undefined,
    status(code: number) {
      sent.status = code;
      return this;
    },
    json(body: Record<string, unknown>) {
      sent.body = body;
    },
  };
  const host = { switchToHttp: () => ({ getResponse: () => res }) } as unknown as ArgumentsHost;
  const config = Object.assign(new GatewayConfig(), { PUBLIC_URL: 'https://crm.example.com' });
  const quiet = new Writable({ write: (_chunk, _enc, done) => done() });
  new GatewayExceptionFilter(createLogger('api-gateway', 'info', quiet), config).catch(exception, host);
  return sent;
}

describe('GatewayExceptionFilter', () => {
  it('points a path nothing serves to the API reference, keeping the error name', () => {
    const sent = answer(new NotFoundException('Cannot GET /v3/contacts'));
    expect(sent.status).toBe(404);
    expect(sent.body).toMatchObject({
      error_name: ErrorName.ResourceNotFound,
      error_message: 'No such route; the API reference is at https://crm.example.com/api/v3/docs',
    });
  });

  it("leaves the API's own 404s (a record that does not exist) as they are", () => {
    const sent = answer(new ApiError(ErrorName.ResourceNotFound, 'Contact not found'));
    expect(sent.body).toMatchObject({ error_name: ErrorName.ResourceNotFound, error_message: 'Contact not found' });
  });
});
