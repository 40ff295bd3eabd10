import type { INestApplication } from '@nestjs/common';
import type { AddressInfo } from 'node:net';

/** Listens on all interfaces; returns the bound port (useful when 0 asked for any free one). */
export async function listenOn(app: INestApplication, port: number): Promise<number> {
  await app.listen(port, '0.0.0.0');
  return (app.getHttpServer().address() as AddressInfo).port;
}
