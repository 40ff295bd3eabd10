import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { auth as sdkAuth, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CreatedAccount } from '@crm/testing';
import { registerPublicClient, signInAndConsent, TEST_REDIRECT_URI } from './oauth-helpers';
import { calls, setupE2e, type Json } from './setup';

/**
 * The MCP endpoint as an assistant meets it: the official SDK client, unchanged, discovers our
 * authorization server from the protected resource metadata, goes through authorize (PKCE, the
 * `resource` of the MCP server) -> login -> consent -> token, then lists and calls every tool.
 */
describe('MCP server (e2e)', () => {
  const password = 'correct horse battery staple';
  const e2e = setupE2e({ admin: { password }, stranger: { password } });
  const { services, admin, stranger } = e2e;
  const { ok } = calls(services);
  const redirectUrl = TEST_REDIRECT_URI;

  /** An assistant's OAuth state, as the SDK asks a host application to keep it. */
  class AssistantAuth implements OAuthClientProvider {
    authorizationUrl?: URL;
    private verifier = '';
    private saved?: OAuthTokens;
    constructor(
      private readonly client: OAuthClientInformationMixed,
      private readonly scope: string,
      /** Ask for a token of the REST API (no `resource`), as a REST app would. */
      private readonly forRestApi = false,
    ) {}
    async validateResourceURL(serverUrl: URL | string): Promise<URL | undefined> {
      return this.forRestApi ? undefined : new URL(serverUrl);
    }
    get redirectUrl() {
      return redirectUrl;
    }
    get clientMetadata(): OAuthClientMetadata {
      return { client_name: 'Test assistant', redirect_uris: [redirectUrl], token_endpoint_auth_method: 'none', scope: this.scope };
    }
    clientInformation() {
      return this.client;
    }
    tokens() {
      return this.saved;
    }
    saveTokens(tokens: OAuthTokens) {
      this.saved = tokens;
    }
    redirectToAuthorization(url: URL) {
      this.authorizationUrl = url;
    }
    saveCodeVerifier(verifier: string) {
      this.verifier = verifier;
    }
    codeVerifier() {
      return this.verifier;
    }
  }

  const signInAndConsentAs = (authorizationUrl: URL, who: CreatedAccount) => signInAndConsent(services, authorizationUrl, who, password);

  const register = async (scope: string) => ({ client_id: await registerPublicClient(services, scope) });

  /** The SDK client connected as `who` with a token of `scope`, through the whole OAuth flow. */
  async function connect(who: CreatedAccount, scope: string): Promise<{ client: Client; auth: AssistantAuth }> {
    const registered = await register(scope);
    const auth = new AssistantAuth({ client_id: registered.client_id }, scope);
    const url = new URL(`${services.gatewayUrl}/mcp`);
    if (scope === 'mcp') {
      // The default path: the 401's challenge and the resource metadata say what to ask for.
      const first = new StreamableHTTPClientTransport(url, { authProvider: auth });
      await expect(new Client({ name: 'test', version: '1' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
      expect(auth.authorizationUrl?.searchParams.get('scope')).toBe('mcp');
      expect(auth.authorizationUrl?.searchParams.get('resource')).toBe(url.href);
      expect(auth.authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256');
      await first.finishAuth(await signInAndConsentAs(auth.authorizationUrl!, who));
    } else {
      // A client registered for another scope asks for it explicitly (the SDK's own auth()).
      expect(await sdkAuth(auth, { serverUrl: url, scope })).toBe('REDIRECT');
      expect(auth.authorizationUrl?.searchParams.get('scope')).toBe(scope);
      const code = await signInAndConsentAs(auth.authorizationUrl!, who);
      expect(await sdkAuth(auth, { serverUrl: url, scope, authorizationCode: code })).toBe('AUTHORIZED');
    }
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: auth }));
    return { client, auth };
  }

  type ToolAnswer = { isError?: boolean; structuredContent?: Json; content: Array<{ type: string; text?: string }> };
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as ToolAnswer;
  const data = (answer: ToolAnswer) => {
    if (answer.isError) throw new Error(`tool error: ${answer.content[0]?.text}`);
    expect(JSON.parse(answer.content[0].text!)).toEqual(answer.structuredContent);
    return answer.structuredContent;
  };

  let assistant: Client;
  let mcpToken: string;
  let contactId: string;
  let dealId: string;
  let companyId: string;

  beforeAll(async () => {
    const contact = await ok(
      admin,
      'POST',
      '/contacts',
      { first_name: 'Ada', last_name: 'Lovelace', company_name: 'Analytical Engines' },
      201,
    );
    contactId = contact.contact.id;
    companyId = contact.contact.company_id;
    dealId = (await ok(admin, 'POST', `/contacts/${contactId}/deals`, { name: 'Engine No. 2', amount: 5000 }, 201)).deal.id;
    await ok(admin, 'POST', '/notes', { contact_id: contactId, text: 'Met at the Royal Society' }, 201);
    await ok(admin, 'POST', '/actions', { contact_id: contactId, text: 'Send the plans', status: 'date', date: '2031-01-15' }, 201);
    const connected = await connect(admin, 'mcp');
    assistant = connected.client;
    mcpToken = connected.auth.tokens()!.access_token;
  });

  afterAll(async () => {
    await assistant?.close();
  });

  it('answers an unauthenticated request 401 with the resource metadata, which names our authorization server', async () => {
    const res = await fetch(`${services.gatewayUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer /);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)![1];
    const metadata = (await (await fetch(metadataUrl)).json()) as Json;
    expect(metadata).toMatchObject({ resource: `${services.gatewayUrl}/mcp`, authorization_servers: [services.authUrl] });
    expect(metadata.scopes_supported).toContain('mcp');
    const root = (await (await fetch(`${services.gatewayUrl}/.well-known/oauth-protected-resource`)).json()) as Json;
    expect(root).toEqual(metadata);

    const bad = await fetch(`${services.gatewayUrl}/mcp`, {
      method: 'POST',
      headers: { authorization: 'Bearer not-a-token', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // An API key is not a credential here: assistants use OAuth.
    const basic = await fetch(`${services.gatewayUrl}/mcp`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${admin.user.id}:${admin.user.api_key}`).toString('base64')}` },
    });
    expect(basic.status).toBe(401);
    expect(basic.headers.get('www-authenticate')).toContain('resource_metadata=');
  });

  it('takes one JSON-RPC message per request: a batch is refused, so the limits count every tool call', async () => {
    const call = { jsonrpc: '2.0', method: 'tools/call', params: { name: 'search_contacts', arguments: {} } };
    const res = await fetch(`${services.gatewayUrl}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${mcpToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify(Array.from({ length: 50 }, (_, id) => ({ ...call, id }))),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error.code).toBe(-32600);
    const get = await fetch(`${services.gatewayUrl}/mcp`, { headers: { authorization: `Bearer ${mcpToken}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('tells a client that tries dynamic registration where to get a client', async () => {
    const res = await fetch(`${services.authUrl}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: 'access_denied', error_description: 'registration is closed' });
    const help = /^<([^>]+)>; rel="help"$/.exec(res.headers.get('link') ?? '');
    expect(help).not.toBeNull();
    const page = await fetch(help![1]);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/operator/clients');
  });

  it('keeps tokens to their resource: an MCP token is refused by the REST API, a REST token by /mcp', async () => {
    const rest = await fetch(`${services.gatewayUrl}/api/v3/contacts/${contactId}`, { headers: { authorization: `Bearer ${mcpToken}` } });
    expect(rest.status).toBe(401);
    expect(((await rest.json()) as Json).error_name).toBe('invalid_access_token');

    const url = new URL(`${services.gatewayUrl}/mcp`);
    const restAuth = new AssistantAuth({ client_id: (await register('mcp')).client_id }, 'mcp', true);
    expect(await sdkAuth(restAuth, { serverUrl: url, scope: 'mcp' })).toBe('REDIRECT');
    expect(restAuth.authorizationUrl!.searchParams.has('resource')).toBe(false);
    await sdkAuth(restAuth, {
      serverUrl: url,
      scope: 'mcp',
      authorizationCode: await signInAndConsentAs(restAuth.authorizationUrl!, admin),
    });
    const restToken = restAuth.tokens()!.access_token;
    const headers = { authorization: `Bearer ${restToken}`, 'content-type': 'application/json' };
    expect((await fetch(`${services.gatewayUrl}/api/v3/contacts/${contactId}`, { headers })).status).toBe(200);
    const atMcp = await fetch(url, {
      method: 'POST',
      headers: { ...headers, accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(atMcp.status).toBe(401);
    expect(atMcp.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // Scope mcp writes only what decisions.md allows, on REST as through the tools.
    const forbidden = await fetch(`${services.gatewayUrl}/api/v3/contacts/${contactId}/notes`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ text: 'per-contact create needs crm' }),
    });
    expect(forbidden.status).toBe(403);
  });

  it('lists tools whose input schemas come from the API contracts', async () => {
    const { tools } = await assistant.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'complete_action',
        'create_action',
        'create_call',
        'create_note',
        'get_company',
        'get_contact',
        'get_deal',
        'list_action_stream',
        'search_companies',
        'search_contacts',
        'search_deals',
      ].sort(),
    );
    const createNote = tools.find((t) => t.name === 'create_note')!;
    expect(createNote.inputSchema.required).toContain('contact_id');
    expect(createNote.inputSchema.properties).toHaveProperty('idempotency_key');
    expect(createNote.annotations).toMatchObject({ readOnlyHint: false });
    expect(tools.find((t) => t.name === 'search_contacts')!.annotations).toMatchObject({ readOnlyHint: true });
  });

  it('searches and reads contacts with their next action, deals and recent notes', async () => {
    const found = data(await call(assistant, 'search_contacts', { search: 'Lovelace' }));
    expect(found.total_count).toBe(1);
    expect(found.contacts[0].contact).toMatchObject({ id: contactId, last_name: 'Lovelace' });
    const contact = data(await call(assistant, 'get_contact', { contact_id: contactId }));
    expect(contact.contact).toMatchObject({ id: contactId, first_name: 'Ada' });
    expect(contact.next_action).toMatchObject({ text: 'Send the plans', date: '2031-01-15' });
    expect(contact.deals.deals.map((d: Json) => d.deal.id)).toEqual([dealId]);
    expect(contact.recent_notes.notes.map((n: Json) => n.note.text)).toEqual(['Met at the Royal Society']);
  });

  it('searches and reads companies and deals', async () => {
    const companies = data(await call(assistant, 'search_companies', { search: 'Analytical' }));
    expect(companies.companies.map((c: Json) => c.company.id)).toEqual([companyId]);
    expect(data(await call(assistant, 'get_company', { company_id: companyId })).company).toMatchObject({ name: 'Analytical Engines' });
    const deals = data(await call(assistant, 'search_deals', { status: 'pending', contact_id: contactId }));
    expect(deals.deals.map((d: Json) => d.deal.id)).toEqual([dealId]);
    expect(data(await call(assistant, 'get_deal', { deal_id: dealId })).deal).toMatchObject({ name: 'Engine No. 2', amount: 5000 });
  });

  it("lists the caller's action stream, a page at a time", async () => {
    const stream = data(await call(assistant, 'list_action_stream', { per_page: 500 }));
    expect(stream.per_page).toBe(25);
    expect(stream.contacts.map((w: Json) => w.contact.id)).toContain(contactId);
    expect(stream.contacts.find((w: Json) => w.contact.id === contactId).next_action.text).toBe('Send the plans');
  });

  it('logs notes and calls once per idempotency key, and creates and completes actions', async () => {
    const args = { contact_id: contactId, text: 'Agreed a demo on Tuesday', idempotency_key: 'note-demo-1' };
    const note = data(await call(assistant, 'create_note', args));
    const again = data(await call(assistant, 'create_note', args));
    expect(again.note.id).toBe(note.note.id);
    const notes = await ok(admin, 'GET', `/notes?contact_id=${contactId}&per_page=100`);
    expect(notes.notes.filter((n: Json) => n.note.text === 'Agreed a demo on Tuesday')).toHaveLength(1);

    const callLogged = data(
      await call(assistant, 'create_call', { contact_id: contactId, text: 'Left a voicemail', call_result: 'left_message' }),
    );
    expect((await ok(admin, 'GET', `/calls/${callLogged.call.id}`)).call).toMatchObject({ text: 'Left a voicemail' });

    const action = data(
      await call(assistant, 'create_action', { contact_id: contactId, text: 'Demo', status: 'date', date: '2031-02-01' }),
    );
    const done = data(await call(assistant, 'complete_action', { action_id: action.action.id }));
    expect(done.action).toMatchObject({ id: action.action.id, status: 'done', done: true });
  });

  it("returns API errors as tool errors with the error_name and field errors, and never another account's record", async () => {
    const invalid = await call(assistant, 'create_note', { text: 'No contact' });
    expect(invalid.isError).toBe(true);
    expect(invalid.structuredContent).toMatchObject({ error_name: 'invalid_request_data', errors: { contact_id: expect.any(String) } });
    const unknownArgument = await call(assistant, 'search_contacts', { serach: 'typo' });
    expect(unknownArgument.structuredContent).toMatchObject({ error_name: 'invalid_request_data', errors: { serach: expect.any(String) } });

    const other = await connect(stranger, 'mcp');
    try {
      const foreign = await call(other.client, 'get_contact', { contact_id: contactId });
      expect(foreign.isError).toBe(true);
      expect(foreign.structuredContent).toMatchObject({ error_name: 'resource_not_found' });
      expect(data(await call(other.client, 'search_contacts', { search: 'Lovelace', team: true })).total_count).toBe(0);
      const write = await call(other.client, 'create_note', { contact_id: contactId, text: 'intrusion' });
      expect(write.structuredContent).toMatchObject({ error_name: 'resource_not_found' });
    } finally {
      await other.client.close();
    }
  });

  it('holds the scope rules: crm.readonly reads but cannot write; mcp writes only what decisions.md allows', async () => {
    const readonly = await connect(admin, 'crm.readonly');
    try {
      expect(data(await call(readonly.client, 'get_contact', { contact_id: contactId })).contact.id).toBe(contactId);
      const write = await call(readonly.client, 'create_note', { contact_id: contactId, text: 'not allowed' });
      expect(write.isError).toBe(true);
      expect(write.structuredContent).toMatchObject({ error_name: 'no_permission_to_complete_action' });
    } finally {
      await readonly.client.close();
    }
    // The same mcp token at the REST endpoint that mcp may not write (per-contact create) is refused
    // there too, and no tool reaches such a route: every write tool is an mcp write.
    const notes = await ok(admin, 'GET', `/notes?contact_id=${contactId}&per_page=100`);
    expect(notes.notes.some((n: Json) => n.note.text === 'not allowed')).toBe(false);
  });

  it('serves the account configuration as resources and offers prompts', async () => {
    const { resources } = await assistant.listResources();
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(['crm://account/statuses', 'crm://account/users']));
    const users = await assistant.readResource({ uri: 'crm://account/users' });
    expect((users.contents[0] as { text: string }).text).toContain(admin.user.id);
    const { prompts } = await assistant.listPrompts();
    expect(prompts.map((p) => p.name)).toContain('follow_up');
    const prompt = await assistant.getPrompt({ name: 'follow_up', arguments: { contact_id: contactId } });
    expect(JSON.stringify(prompt.messages)).toContain(contactId);
  });

  it('keeps every answer bounded', async () => {
    const long = 'x'.repeat(90_000);
    await ok(admin, 'POST', '/notes', { contact_id: contactId, text: long }, 201);
    const answer = await call(assistant, 'get_contact', { contact_id: contactId });
    expect(answer.isError).toBeFalsy();
    expect(answer.content[0].text!.length).toBeLessThanOrEqual(40_000);
    expect(answer.content[0].text).toContain('(90000 characters)');
  });
});
