import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './chromium';
import { setupE2e } from './setup';

const PHONE = { width: 390, height: 844 };

/** The API reference at /api/v3/docs as a person reads it: Chromium, offline, at phone width. */
describe('the interactive API reference (e2e)', () => {
  const { services } = setupE2e({ services: { crmCoreReplicas: 1 }, admin: false });
  let browser: Browser;
  /** Every request the page tried that did not go to the gateway (refused by the route below). */
  const elsewhere: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
  });

  /** A page whose network is the local gateway only: anything else is aborted and recorded. */
  async function offlinePage(viewport: { width: number; height: number }): Promise<Page> {
    const page = await browser.newPage({ viewport });
    // Swagger UI renders a large operation (GET /contacts has 60 parameters) in seconds on a busy
    // 2-core machine with software rendering: waits get 90 s, not Playwright's default 30 s.
    page.setDefaultTimeout(90_000);
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${services.gatewayUrl}/`)) return route.continue();
      elsewhere.push(url);
      return route.abort();
    });
    return page;
  }

  /**
   * The operation `tag`/`operationId` of the reference, opened by deep linking alone (the URL's
   * fragment). Swagger UI 5.33 and later render the operations list virtualized and land a deep link
   * elsewhere on a phone, where operations are taller than its estimate: this fails if that comes back.
   */
  async function openedByDeepLink(page: Page, tag: string, operationId: string) {
    const operation = page.locator(`#operations-${tag}-${operationId}`);
    await operation.locator('.opblock-body').first().waitFor();
    return operation;
  }

  it('renders an operation with its typed request body, an example and its typed reply, from local files only', async () => {
    const page = await offlinePage({ width: 1280, height: 900 });
    const assets: string[] = [];
    page.on('response', (res) => assets.push(`${res.status()} ${new URL(res.url()).pathname}`));
    await page.goto(`${services.gatewayUrl}/api/v3/docs#/Deals/createDeal`);

    const operation = page.locator('#operations-Deals-createDeal');
    await operation.waitFor();
    // Deep linking opened it; the body is typed (a model with the contract's fields) and has an example.
    await operation.getByText('Request body').first().waitFor();
    await operation.getByRole('tab', { name: 'Example Value' }).first().waitFor();
    const example = await operation.locator('.body-param__example, .highlight-code').first().innerText();
    expect(JSON.parse(example)).toMatchObject({ contact_id: expect.any(String), name: expect.any(String) });

    await operation.getByRole('tab', { name: 'Schema' }).first().click();
    const schema = operation.locator('.model-box').first();
    await schema.getByText('deal_items').first().waitFor();
    // The contract's required fields are marked required (OpenAPI 3.1: Swagger UI's JSON Schema 2020-12 view).
    const required = schema.locator(
      '.json-schema-2020-12-property--required > article > .json-schema-2020-12-head .json-schema-2020-12__title',
    );
    expect(await required.allInnerTexts()).toEqual(expect.arrayContaining(['contact_id', 'name']));

    // The 201 reply is the envelope around the deal, not a bare object.
    const created = operation.locator('tr.response[data-code="201"]');
    expect(await created.innerText()).toContain('"data"');
    expect(await created.innerText()).toContain('"deal"');

    expect(elsewhere).toEqual([]);
    expect(assets.filter((a) => !a.startsWith('200 ') && !a.startsWith('304 '))).toEqual([]);
    expect(assets).toEqual(expect.arrayContaining(['200 /api/v3/docs/swagger-ui-bundle.js', '200 /api/v3/openapi.json']));
    await page.close();
  }, 300_000);

  it('fits a 390 px wide phone without horizontal scrolling, an operation open', async () => {
    const page = await offlinePage(PHONE);
    await page.goto(`${services.gatewayUrl}/api/v3/docs#/Contacts/listContacts`);
    const operation = await openedByDeepLink(page, 'Contacts', 'listContacts');
    await operation.locator('.parameters').first().waitFor();
    // Evaluated in the page (a string: the test's TypeScript has no DOM types).
    const widths = (await page.evaluate(
      '({ viewport: window.innerWidth, document: document.documentElement.scrollWidth, body: document.body.scrollWidth })',
    )) as { viewport: number; document: number; body: number };
    mkdirSync(path.join('test-results'), { recursive: true });
    await page.screenshot({ path: path.join('test-results', 'api-docs-390.png'), fullPage: false });
    expect(widths.viewport).toBe(PHONE.width);
    expect(widths.document).toBeLessThanOrEqual(PHONE.width);
    expect(widths.body).toBeLessThanOrEqual(PHONE.width);

    // An operation with a request body schema open (the widest part of the page).
    const deals = await offlinePage(PHONE);
    await deals.goto(`${services.gatewayUrl}/api/v3/docs#/Deals/createDeal`);
    await openedByDeepLink(deals, 'Deals', 'createDeal');
    const bodyWidths = (await deals.evaluate('({ document: document.documentElement.scrollWidth, body: document.body.scrollWidth })')) as {
      document: number;
      body: number;
    };
    expect(bodyWidths.document).toBeLessThanOrEqual(PHONE.width);
    expect(bodyWidths.body).toBeLessThanOrEqual(PHONE.width);
    expect(elsewhere).toEqual([]);
    await deals.close();
    await page.close();
  }, 300_000);

  it('serves only the listed files of the reference', async () => {
    expect((await fetch(`${services.gatewayUrl}/api/v3/docs/package.json`)).status).toBe(404);
    expect((await fetch(`${services.gatewayUrl}/api/v3/docs/..%2fpackage.json`)).status).toBe(404);
    const page = await fetch(`${services.gatewayUrl}/api/v3/docs`);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
  });
});
