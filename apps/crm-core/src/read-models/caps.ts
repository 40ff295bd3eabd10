/**
 * How many entries an embedded array holds at most (docs/decisions.md "Bounded embedded arrays"):
 * no reply or event grows with the data. The rest is reached through the lists named beside each.
 */

/** Contact wrappers a company embeds (its non-deleted contacts by name); the rest: GET /contacts?company_id=. */
export const COMPANY_CONTACTS_CAP = 100;

/**
 * Contact wrappers each entry of GET /companies embeds (a page holds up to 100 companies, so the
 * single-company cap would not fit NATS's 1 MiB; arithmetic in docs/decisions.md); the rest:
 * GET /companies/{id} and GET /contacts?company_id=.
 */
export const COMPANY_LIST_CONTACTS_CAP = 3;

/** Pending deals a company embeds (newest date first); the rest: GET /deals?company_id=&status=pending. */
export const COMPANY_PENDING_DEALS_CAP = 25;

/** Queued actions in a contact wrapper or contact event (the queue's first, by position), and as many date conflicts. */
export const QUEUED_ACTIONS_CAP = 25;

/** Entries of each `fields=deals(all),notes(all),...` array per contact (newest first); the rest: the resource's own list. */
export const CONTACT_RECORDS_CAP = 25;

/**
 * Contacts in each entry of `GET /deals?fields=contacts(all)`: the primary contact, then the first
 * linked ones in the deal's order (a deal may link 100, a page holds 100 deals); the rest: the
 * deal's `linked_contacts` and GET /contacts/{id}.
 */
export const DEAL_LIST_CONTACTS_CAP = 5;

/**
 * Entries of `company.contacts` inside a contact wrapper (the company's first non-deleted contacts
 * by name, as in a company's own `contacts`); the rest: GET /companies/{id} and GET /contacts?company_id=.
 */
export const WRAPPER_COMPANY_CONTACTS_CAP = 3;

/**
 * Bytes (JSON) of `company.contacts` inside a contact wrapper: its entries stop before the one that
 * would pass this, so large contacts (long backgrounds, many fields) never push a single-contact
 * answer, or a write's, past one NATS message (1 MiB; a larger answer goes in parts, and more slowly). The first entry is left out too when it
 * alone is larger; `contacts_count` still gives the total.
 */
export const WRAPPER_COMPANY_CONTACTS_MAX_BYTES = 64 * 1024;
