import { REPLY_SCHEMAS, type ContactDto } from '@crm/contracts';
import { JsonFragment } from '@crm/messaging';
import { isoOf } from '../records/record-common';

/** A current document as a read finds it: the stored text and the contact's live columns (contact-documents.repository). */
export interface CurrentDocumentRow {
  id: string;
  owner_id: string;
  /** '' when none, as ContactDto has it. */
  company_id: string;
  /** As PostgreSQL's JSON writes a timestamptz. */
  modified_at: string;
  deals_count: number;
  pending_deals_count: number;
  pending_deals_amount: number;
  head: string;
  tail: string;
}

/**
 * A contact's stored document (crm.contact_documents, decisions.md "Contact documents"): its
 * `contact` object as JSON text, rendered once and spliced into replies as it is (a JsonFragment),
 * with the four live counters in between the stored `head` and `tail`.
 *
 * It is a ContactDto ({@link ContactDocument}): the counters and the fields readers use (`id`,
 * `owner_id`, `company_id`, `modified_at`) are its own; any other field is a getter (defined
 * below) that parses the text once, on first use. Its fields other than `company_size` cannot be
 * assigned.
 */
class StoredContact extends JsonFragment {
  readonly id: string;
  readonly owner_id: string;
  readonly company_id: string;
  readonly modified_at: string;
  readonly pending_deal: boolean;
  readonly total_pendings: number;
  readonly total_deals_count: number;
  /** The contact's company's `contacts_count`; the reader fills it in. */
  company_size = 0;
  private readonly head: string;
  private readonly tail: string;
  private parsed: Record<string, unknown> | undefined;

  constructor(row: CurrentDocumentRow) {
    super();
    this.id = row.id;
    this.owner_id = row.owner_id;
    this.company_id = row.company_id;
    this.modified_at = isoOf(row.modified_at);
    this.pending_deal = row.pending_deals_count > 0;
    this.total_pendings = row.pending_deals_amount;
    this.total_deals_count = row.deals_count;
    this.head = row.head;
    this.tail = row.tail;
  }

  fragmentJson(): string {
    return `${this.head}"pending_deal":${this.pending_deal},"total_pendings":${this.total_pendings},"total_deals_count":${this.total_deals_count},"company_size":${this.company_size}${this.tail}`;
  }

  /** The stored fields, parsed once. */
  stored(): Record<string, unknown> {
    return (this.parsed ??= JSON.parse(`${this.head}${this.tail.slice(1)}`) as Record<string, unknown>);
  }
}

/** A stored document read as the contact it is. */
export type ContactDocument = StoredContact & ContactDto;

/** The contact of a current document, its live counters from `row`. */
export function contactDocument(row: CurrentDocumentRow): ContactDocument {
  return new StoredContact(row) as ContactDocument;
}

/**
 * A contact's fields in the order the contract's ContactDto schema lists them (the order of
 * contact.view.ts toContactDto, which the unit spec checks): the stored head, the live counters,
 * the stored tail.
 */
const CONTACT_KEYS = (REPLY_SCHEMAS.ContactDto as { required: Array<keyof ContactDto> }).required;

/** The live counters, between the head and the tail. */
export const LIVE_KEYS = ['pending_deal', 'total_pendings', 'total_deals_count', 'company_size'] as const satisfies ReadonlyArray<
  keyof ContactDto
>;

/** The document's fields before the live counters. */
export const HEAD_KEYS: ReadonlyArray<keyof ContactDto> = CONTACT_KEYS.slice(0, CONTACT_KEYS.indexOf(LIVE_KEYS[0]));

/** The document's fields after the live counters. */
export const TAIL_KEYS: ReadonlyArray<keyof ContactDto> = CONTACT_KEYS.slice(CONTACT_KEYS.indexOf(LIVE_KEYS[3]) + 1);

if (CONTACT_KEYS.slice(HEAD_KEYS.length, HEAD_KEYS.length + LIVE_KEYS.length).join() !== LIVE_KEYS.join())
  throw new Error('contact documents: the ContactDto schema no longer lists the live counters together');

const OWN = new Set<string>(['id', 'owner_id', 'company_id', 'modified_at', ...LIVE_KEYS]);
for (const key of [...HEAD_KEYS, ...TAIL_KEYS])
  if (!OWN.has(key))
    Object.defineProperty(StoredContact.prototype, key, {
      get(this: StoredContact) {
        return this.stored()[key];
      },
      enumerable: false,
      configurable: false,
    });

export function isContactDocument(value: unknown): value is ContactDocument {
  return value instanceof StoredContact;
}

/** A contact as its document stores it: the text before and after the live counters. */
export interface RenderedContact {
  head: string;
  tail: string;
}

/** The document of a contact (its full ContactDto): `head` ends with `,`, `tail` starts with `,`. */
export function renderContactDocument(contact: ContactDto): RenderedContact {
  const pick = (keys: readonly (keyof ContactDto)[]) => Object.fromEntries(keys.map((key) => [key, contact[key]]));
  return {
    head: `${JSON.stringify(pick(HEAD_KEYS)).slice(0, -1)},`,
    tail: `,${JSON.stringify(pick(TAIL_KEYS)).slice(1)}`,
  };
}
