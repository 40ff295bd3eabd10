import type { ApiError } from '../errors/api-error';
import {
  LIST_FORMAT_HEADER,
  listFormatChoice,
  listFormatOfHeader,
  ONEPAGECRM_LIST_CAP,
  ONEPAGECRM_USERS_CAP,
  onePageCrmWindow,
} from './list-format';

/** The fields a 400 names; none when it passes. */
function refused(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    return Object.keys((error as ApiError).errors);
  }
  return [];
}

describe('list formats (OnePageCRM bare arrays on request)', () => {
  it('reads the header in any letter case, and refuses any other value naming the header', () => {
    expect(listFormatOfHeader(undefined)).toBeUndefined();
    expect(listFormatOfHeader('OnePageCRM')).toBe('onepagecrm');
    expect(listFormatOfHeader('PAGED')).toBe('paged');
    for (const bad of ['', 'array', 'onepage', 'paged,onepagecrm']) {
      expect(refused(() => listFormatOfHeader(bad))).toEqual([LIST_FORMAT_HEADER]);
    }
  });

  it('notes whether the query pages, beside the format the header asked for', () => {
    expect(listFormatChoice(undefined, {})).toEqual({ paged: false });
    expect(listFormatChoice('onepagecrm', { since: '2024-01-01' })).toEqual({ format: 'onepagecrm', paged: false });
    expect(listFormatChoice('onepagecrm', { page: '2' })).toEqual({ format: 'onepagecrm', paged: true });
    expect(listFormatChoice(undefined, { per_page: '5' })).toEqual({ paged: true });
  });

  it('reads the first `cap` entries when the query does not page, else the page asked for', () => {
    const request = { page: 1, per_page: 10, since: 'x' };
    expect(onePageCrmWindow(request, false, ONEPAGECRM_LIST_CAP)).toEqual({ page: 1, per_page: ONEPAGECRM_LIST_CAP, since: 'x' });
    expect(onePageCrmWindow({ ...request, page: 3 }, true, ONEPAGECRM_LIST_CAP)).toEqual({ page: 3, per_page: 10, since: 'x' });
    expect(onePageCrmWindow(request, false, ONEPAGECRM_USERS_CAP).per_page).toBe(ONEPAGECRM_USERS_CAP);
  });

  it('keeps an unpaginated list of users with every field at its longest under NATS 1 MiB', () => {
    // crm.users column limits: names 100 + 100, email and BCC and Google e-mails 254 each, company 200, photo_url 2,000.
    const longest = {
      user: {
        id: 'x'.repeat(24),
        first_name: 'x'.repeat(100),
        last_name: 'x'.repeat(100),
        email: 'x'.repeat(254),
        company_name: 'x'.repeat(200),
        account_rights: ['activity', 'edit_target', 'pipeline', 'export', 'private_contacts'],
        permissions: ['delete_contacts'],
        role: 'admin',
        photo_url: 'x'.repeat(2000),
        country_code: 'xx',
        bcc_email: 'x'.repeat(254),
        google_contacts_email: 'x'.repeat(254),
      },
    };
    expect(ONEPAGECRM_USERS_CAP * (JSON.stringify(longest).length + 1)).toBeLessThan(1024 * 1024 * 0.9);
    expect(ONEPAGECRM_USERS_CAP).toBeLessThanOrEqual(ONEPAGECRM_LIST_CAP);
  });
});
