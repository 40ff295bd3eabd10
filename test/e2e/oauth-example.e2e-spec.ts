import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { DEFAULT_TEST_PASSWORD } from '@crm/testing';
import { signInAndConsentCallback } from './oauth-helpers';
import { setupE2e } from './setup';

const EXAMPLE = path.join(__dirname, '../../docs/examples/oauth-client.mjs');

/** A port free now on 127.0.0.1, for the example's redirect URI. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** docs/examples/oauth-client.mjs, as docs/oauth-clients.md tells an app builder to run it. */
describe('the OAuth client example of docs/oauth-clients.md (e2e)', () => {
  const { services, admin } = setupE2e();

  it('registers a client, signs in with PKCE, calls the API, refreshes and calls it again', async () => {
    // The operator registers a public client (docs/oauth-clients.md, "Registering a client").
    const redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
    const registered = await fetch(`${services.operatorUrl}/operator/clients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${services.operatorToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Example app',
        redirect_uris: [redirectUri],
        scope: 'crm crm.readonly',
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(registered.status).toBe(201);
    const { client_id } = (await registered.json()) as { client_id: string };

    const child = spawn(process.execPath, [EXAMPLE], {
      env: { ...process.env, CRM_AUTH_URL: services.authUrl, CRM_CLIENT_ID: client_id, CRM_REDIRECT_URI: redirectUri, CRM_SCOPE: 'crm' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    // The example prints the authorization URL once it listens for the callback.
    const authorizationUrl = await new Promise<URL>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const line = stdout.split('\n').find((l) => l.startsWith(`${services.authUrl}/oauth/authorize?`));
        if (line) resolve(new URL(line));
      });
      void exited.then((code) => reject(new Error(`the example exited (${code}) before printing the URL: ${stdout}${stderr}`)));
    });
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');

    // The person signs in and allows; the browser follows the redirect to the example's callback.
    const callback = await signInAndConsentCallback(services, authorizationUrl, admin, DEFAULT_TEST_PASSWORD);
    expect(callback.href.startsWith(redirectUri)).toBe(true);
    expect((await fetch(callback)).status).toBe(200);

    expect({ code: await exited, stderr }).toEqual({ code: 0, stderr: '' });
    const steps = Object.fromEntries(
      stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { step: string })
        .map((s) => [s.step, s]),
    );
    expect(steps.discovery).toMatchObject({ token_endpoint: `${services.authUrl}/oauth/token` });
    expect(steps.tokens).toMatchObject({
      token_type: 'bearer',
      scope: 'crm',
      refresh_token: true,
      api_base_url: expect.stringMatching(/\/api\/v3$/),
    });
    expect(steps.api).toMatchObject({ total_count: 1, first_user_id: admin.user.id });
    expect(steps.refresh).toEqual({ step: 'refresh', new_access_token: true, rotated_refresh_token: true });
    expect(steps['api-after-refresh']).toMatchObject({ total_count: 1 });
    // No token reaches the output.
    expect(stdout).not.toMatch(/eyJ[\w-]+\.[\w-]+\./);
  });
});
