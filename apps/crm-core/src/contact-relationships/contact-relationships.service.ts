import { Injectable } from '@nestjs/common';
import { isId, newId } from '@crm/common';
import {
  ApiError,
  ContactRelationshipIdRequest,
  CreateContactRelationshipRequest,
  ErrorName,
  ListContactRelationshipsRequest,
  pageInfo,
  parseContract,
  type Caller,
  type ContactRelationshipDto,
  type ContactRelationshipReply,
  type ListContactRelationshipsReply,
} from '@crm/contracts';
import { DataSource, type EntityManager } from 'typeorm';

interface RelationshipRow {
  id: string;
  relationship_type_id: string;
  contact_id: string;
  related_contact_id: string;
  symmetrical: boolean;
  variant_id: string;
  variant_name: string;
  other_id: string | null;
  other_name: string | null;
  created_at: Date;
}

/**
 * Live relationships (not soft-deleted, other end not deleted) touching contact $2 of account $1.
 * A row stores (contact_id, related_contact_id, variant_id): the related contact's label seen
 * from contact_id; a symmetrical type's only variant (also when variant_id is null); `other_*`
 * is the second variant of a directional type.
 */
const SELECT = `
  SELECT r.id, r.relationship_type_id, r.contact_id, r.related_contact_id, t.symmetrical, r.created_at,
         v.id AS variant_id, v.name AS variant_name, ov.id AS other_id, ov.name AS other_name
  FROM crm.contact_relationships r
  JOIN crm.relationship_types t ON t.id = r.relationship_type_id
  JOIN crm.relationship_variants v ON v.relationship_type_id = t.id AND (v.id = r.variant_id OR (r.variant_id IS NULL AND v.position = 0))
  LEFT JOIN crm.relationship_variants ov ON ov.relationship_type_id = t.id AND ov.id <> v.id
  JOIN crm.contacts oc ON oc.id = CASE WHEN r.contact_id = $2 THEN r.related_contact_id ELSE r.contact_id END AND oc.account_id = $1 AND oc.deleted_at IS NULL
  WHERE r.account_id = $1 AND (r.contact_id = $2 OR r.related_contact_id = $2) AND r.deleted_at IS NULL`;

/** The relationship as seen from `viewer` (one of its two contacts). */
function toDto(row: RelationshipRow, viewer: string): ContactRelationshipDto {
  const stored = { id: row.variant_id, name: row.variant_name };
  const other = row.symmetrical || !row.other_id ? stored : { id: row.other_id, name: row.other_name ?? '' };
  const fromStoredSide = row.contact_id === viewer;
  const label = fromStoredSide ? stored : other;
  const reverse = fromStoredSide ? other : stored;
  return {
    id: row.id,
    relationship_type_id: row.relationship_type_id,
    contact_id: viewer,
    related_contact_id: fromStoredSide ? row.related_contact_id : row.contact_id,
    variant_id: label.id,
    label: label.name,
    reverse_variant_id: reverse.id,
    reverse_label: reverse.name,
    symmetrical: row.symmetrical,
    created_at: new Date(row.created_at).toISOString(),
  };
}

/**
 * Relationships between contacts (decisions.md "Configuration and users"): any user of the
 * account may relate its contacts; both contacts must be the account's live contacts.
 */
@Injectable()
export class ContactRelationshipsService {
  constructor(private readonly dataSource: DataSource) {}

  async list(caller: Caller, payload: unknown): Promise<ListContactRelationshipsReply> {
    const { contact_id, page, per_page } = parseContract(ListContactRelationshipsRequest, payload);
    return this.dataSource.transaction('REPEATABLE READ', async (m) => {
      const contactId = await this.contact(m, caller.account_id, contact_id, 'contact_id');
      const [{ total }] = await m.query(`SELECT count(*)::int AS total FROM (${SELECT}) x`, [caller.account_id, contactId]);
      const rows: RelationshipRow[] = await m.query(`${SELECT} ORDER BY r.created_at, r.id LIMIT $3 OFFSET $4`, [
        caller.account_id,
        contactId,
        per_page,
        (page - 1) * per_page,
      ]);
      return { relationships: rows.map((row) => ({ relationship: toDto(row, contactId) })), ...pageInfo(total, page, per_page) };
    });
  }

  async create(caller: Caller, payload: unknown): Promise<ContactRelationshipReply> {
    const request = parseContract(CreateContactRelationshipRequest, payload);
    return this.dataSource.transaction(async (m) => {
      const contactId = await this.contact(m, caller.account_id, request.contact_id, 'contact_id');
      const relatedId = await this.contact(m, caller.account_id, request.related_contact_id, 'related_contact_id');
      const typeId = request.relationship_type_id.toLowerCase();
      const variants: Array<{ id: string; position: number; symmetrical: boolean }> = isId(typeId)
        ? await m.query(
            'SELECT v.id, v.position, t.symmetrical FROM crm.relationship_types t JOIN crm.relationship_variants v ON v.relationship_type_id = t.id WHERE t.id = $1 AND t.account_id = $2 ORDER BY v.position',
            [typeId, caller.account_id],
          )
        : [];
      if (variants.length === 0)
        throw new ApiError(ErrorName.ResourceNotFound, 'Relationship type not found', {
          relationship_type_id: 'names no relationship type of this account',
        });
      if (relatedId === contactId) throw ApiError.invalid({ related_contact_id: 'a contact cannot be related to itself' });
      const variantId = await this.variantFor(m, caller.account_id, variants, request.variant_id);

      // One relationship of a type per pair of contacts, whichever way round; the lock serializes creators of the same pair.
      const [low, high] = [contactId, relatedId].sort();
      await m.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`contact-relationship:${low}:${high}`]);
      const [existing] = await m.query(
        'SELECT 1 FROM crm.contact_relationships WHERE account_id = $1 AND relationship_type_id = $2 AND deleted_at IS NULL AND ((contact_id = $3 AND related_contact_id = $4) OR (contact_id = $4 AND related_contact_id = $3))',
        [caller.account_id, typeId, contactId, relatedId],
      );
      if (existing)
        throw new ApiError(ErrorName.DuplicatedEntity, 'These contacts already have a relationship of this type', {
          relationship_type_id: 'the two contacts already have a relationship of this type',
        });

      const id = newId();
      await m.query(
        'INSERT INTO crm.contact_relationships (id, account_id, relationship_type_id, contact_id, related_contact_id, variant_id) VALUES ($1, $2, $3, $4, $5, $6)',
        [id, caller.account_id, typeId, contactId, relatedId, variantId],
      );
      const [row]: RelationshipRow[] = await m.query(`${SELECT} AND r.id = $3`, [caller.account_id, contactId, id]);
      return { relationship: toDto(row, contactId) };
    });
  }

  /** Deletes a relationship (from either of its contacts), permanently. */
  async delete(caller: Caller, payload: unknown): Promise<Record<string, never>> {
    const request = parseContract(ContactRelationshipIdRequest, payload);
    await this.dataSource.transaction(async (m) => {
      const contactId = await this.contact(m, caller.account_id, request.contact_id, 'contact_id');
      const id = request.relationship_id.toLowerCase();
      const gone: unknown[] = isId(id)
        ? await m.query(
            'WITH gone AS (DELETE FROM crm.contact_relationships WHERE id = $1 AND account_id = $2 AND (contact_id = $3 OR related_contact_id = $3) AND deleted_at IS NULL RETURNING id) SELECT id FROM gone',
            [id, caller.account_id, contactId],
          )
        : [];
      if (gone.length === 0) throw ApiError.notFound('Relationship not found');
    });
    return {};
  }

  /**
   * The variant to store (the related contact's label): a directional type needs one of its two
   * variants; a symmetrical type takes its only one, sent or not.
   */
  private async variantFor(
    m: EntityManager,
    accountId: string,
    variants: Array<{ id: string; symmetrical: boolean }>,
    sent: string | undefined,
  ): Promise<string> {
    const symmetrical = variants[0].symmetrical;
    if (sent === undefined || sent === null) {
      if (symmetrical) return variants[0].id;
      throw ApiError.invalid({
        variant_id: 'is required for a directional relationship type: the id of the label the related contact gets',
      });
    }
    const id = sent.toLowerCase();
    if (variants.some((v) => v.id === id)) return id;
    const [elsewhere] = isId(id)
      ? await m.query('SELECT 1 FROM crm.relationship_variants WHERE id = $1 AND account_id = $2', [id, accountId])
      : [];
    if (elsewhere) throw ApiError.invalid({ variant_id: 'is a variant of another relationship type' });
    throw new ApiError(ErrorName.ResourceNotFound, 'Relationship variant not found', {
      variant_id: 'names no relationship variant of this account',
    });
  }

  /** A live (not deleted) contact of the account, else 404 naming `key`. */
  private async contact(m: EntityManager, accountId: string, contactId: string, key: string): Promise<string> {
    const id = contactId.toLowerCase();
    const [row] = isId(id)
      ? await m.query('SELECT id FROM crm.contacts WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL', [id, accountId])
      : [];
    if (!row)
      throw new ApiError(
        ErrorName.ResourceNotFound,
        'Contact not found',
        key === 'contact_id' ? {} : { [key]: 'names no contact of this account' },
      );
    return row.id;
  }
}
