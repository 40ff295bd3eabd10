import { REPLY_SCHEMAS, type ContactDto } from '@crm/contracts';
import { JsonFragment } from '@crm/messaging';

/**
 * A contact's stored document (crm.contact_documents, decisions.md "Contact documents"): its
 * `contact` object as JSON text, rendered once and spliced into replies as it is (a JsonFragment),
 * with the four live counters in between the stored `head` and `tail`.
 *
 * It is a ContactDto: the counters and the fields readers use (`id`, `owner_id`, `company_id`,
 * `modified_at`) are its own; any other field parses the text once, on first use. Its fields other
 * than `company_size` cannot be assigned.
 */
export class ContactDocument extends JsonFragment implements ContactDto {
  /** The contact's company's `contacts_count`; the reader fills it in. */
  company_size = 0;
  private parsed: Record<string, unknown> | undefined;
  // The stored fields: getters (defined below) that read the text, parsed once on first use.
  declare readonly title: ContactDto['title'];
  declare readonly first_name: ContactDto['first_name'];
  declare readonly last_name: ContactDto['last_name'];
  declare readonly job_title: ContactDto['job_title'];
  declare readonly starred: ContactDto['starred'];
  declare readonly photo_url: ContactDto['photo_url'];
  declare readonly company_name: ContactDto['company_name'];
  declare readonly urls: ContactDto['urls'];
  declare readonly phones: ContactDto['phones'];
  declare readonly emails: ContactDto['emails'];
  declare readonly address_list: ContactDto['address_list'];
  declare readonly status: ContactDto['status'];
  declare readonly status_id: ContactDto['status_id'];
  declare readonly tags: ContactDto['tags'];
  declare readonly lead_source_id: ContactDto['lead_source_id'];
  declare readonly lead_source: ContactDto['lead_source'];
  declare readonly background: ContactDto['background'];
  declare readonly custom_fields: ContactDto['custom_fields'];
  declare readonly letter: ContactDto['letter'];
  declare readonly sales_closed_for: ContactDto['sales_closed_for'];
  declare readonly closed_sales: ContactDto['closed_sales'];
  declare readonly google_contacts_data: ContactDto['google_contacts_data'];
  declare readonly created_at: ContactDto['created_at'];

  constructor(
    readonly id: string,
    readonly owner_id: string,
    /** '' when none, as ContactDto has it. */
    readonly company_id: string,
    readonly modified_at: string,
    readonly pending_deal: boolean,
    readonly total_pendings: number,
    readonly total_deals_count: number,
    private readonly head: string,
    private readonly tail: string,
  ) {
    super();
  }

  fragmentJson(): string {
    return `${this.head}"pending_deal":${this.pending_deal},"total_pendings":${this.total_pendings},"total_deals_count":${this.total_deals_count},"company_size":${this.company_size}${this.tail}`;
  }

  /** The stored fields, parsed once. */
  stored(): Record<string, unknown> {
    return (this.parsed ??= JSON.parse(`${this.head}${this.tail.slice(1)}`) as Record<string, unknown>);
  }
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
    Object.defineProperty(ContactDocument.prototype, key, {
      get(this: ContactDocument) {
        return this.stored()[key];
      },
      enumerable: false,
      configurable: false,
    });

export function isContactDocument(value: unknown): value is ContactDocument {
  return value instanceof ContactDocument;
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
