import type { Request, Response } from 'express';
import { MAX_PATH_BYTES, pathLengthLimit } from './path-length.middleware';

function send(url: string): { passed: boolean; status?: number; body?: unknown } {
  const answer: { passed: boolean; status?: number; body?: unknown } = { passed: false };
  const res = {
    status(code: number) {
      answer.status = code;
      return this;
    },
    json(body: unknown) {
      answer.body = body;
      return this;
    },
  } as unknown as Response;
  pathLengthLimit()({ originalUrl: url, url } as Request, res, () => (answer.passed = true));
  return answer;
}

describe('pathLengthLimit', () => {
  it(`passes paths up to ${MAX_PATH_BYTES} bytes, whatever the query string's length`, () => {
    expect(send(`/${'a'.repeat(MAX_PATH_BYTES - 1)}`).passed).toBe(true);
    expect(send(`/api/v3/contacts?ids=${'a'.repeat(10_000)}`).passed).toBe(true);
  });

  it('answers a longer path 404 resource_not_found in the error envelope, counting bytes', () => {
    for (const url of [`/${'/'.repeat(16_384)}`, `/${'a'.repeat(MAX_PATH_BYTES)}`, `/${'é'.repeat(MAX_PATH_BYTES / 2)}?q=1`]) {
      expect(send(url)).toEqual({
        passed: false,
        status: 404,
        body: {
          status: 404,
          message: 'Not found',
          error_name: 'resource_not_found',
          error_message: `No such route (paths are at most ${MAX_PATH_BYTES} bytes)`,
          errors: {},
        },
      });
    }
  });
});
