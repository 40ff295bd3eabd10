import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from '@crm/contracts';
import type { Logger } from 'pino';
import type { ApiPipeline } from '../api/api-pipeline';
import { McpService } from './mcp.service';

const caller = { account_id: 'a'.repeat(24), user_id: 'b'.repeat(24), scopes: ['mcp'], auth_method: 'oauth' } as unknown as Caller;

/** What an MCP answer may echo of what the client sent: bounded, as tool answers are. */
describe('MCP bounds', () => {
  let client: Client;

  beforeEach(async () => {
    const pipeline = { run: jest.fn().mockResolvedValue({ status: 200, body: { data: {} } }) } as unknown as ApiPipeline;
    const logger = { error: jest.fn(), warn: jest.fn() } as unknown as Logger;
    const server = new McpService(pipeline, logger).createServer(caller);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name: 'test', version: '1' });
    await client.connect(clientSide);
  });

  afterEach(async () => {
    await client.close();
  });

  const failure = async (request: Promise<unknown>): Promise<McpError> => {
    try {
      await request;
    } catch (error) {
      return error as McpError;
    }
    throw new Error('expected the request to fail');
  };

  it('refuses a prompt argument over the bound with a JSON-RPC error that says what to do, and keeps a bounded prompt', async () => {
    const huge = 'x'.repeat(300_000);
    const error = await failure(client.getPrompt({ name: 'follow_up', arguments: { contact_id: 'c1', goal: huge } }));
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('goal');
    expect(error.message).toMatch(/at most \d+ characters/);
    expect(error.message.length).toBeLessThan(500);

    const fine = await client.getPrompt({ name: 'follow_up', arguments: { contact_id: 'c1', goal: 'book a demo' } });
    const text = (fine.messages[0].content as { text: string }).text;
    expect(text).toContain('book a demo');
    expect(text.length).toBeLessThan(5_000);
  });

  it('echoes unknown tool, resource and prompt names only in part', async () => {
    const name = `n${'y'.repeat(100_000)}`;
    for (const request of [
      () => client.callTool({ name, arguments: {} }),
      () => client.readResource({ uri: `crm://${name}` }),
      () => client.getPrompt({ name, arguments: {} }),
    ]) {
      const error = await failure(request());
      expect(error.code).toBe(-32602);
      expect(error.message.length).toBeLessThan(500);
      expect(error.message).toContain('…');
    }
  });

  it('names at most a few unknown tool arguments, each shortened', async () => {
    const args = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`${'k'.repeat(2_000)}${i}`, 1]));
    const result = await client.callTool({ name: 'search_contacts', arguments: args });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result).length).toBeLessThan(5_000);
  });
});
