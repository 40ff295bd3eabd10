import { randomUUID } from 'node:crypto';

/**
 * The packet format of @nestjs/microservices' NATS transport, in one place: the gateway's
 * {@link RpcClient} speaks it to Nest message handlers.
 */
export interface NestRequestPacket<T = unknown> {
  pattern: string;
  data: T;
  id: string;
}

export interface NestResponsePacket<T = unknown> {
  id?: string;
  response?: T;
  err?: unknown;
  isDisposed?: boolean;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeRequest<T>(pattern: string, data: T): Uint8Array {
  const packet: NestRequestPacket<T> = { pattern, data, id: randomUUID() };
  return encoder.encode(JSON.stringify(packet));
}

export function decodeResponse(bytes: Uint8Array): NestResponsePacket {
  return JSON.parse(decoder.decode(bytes)) as NestResponsePacket;
}
