import { Injectable } from '@nestjs/common';
import { isId, newId } from '@crm/common';
import {
  ApiError,
  ErrorName,
  pageInfo,
  type Caller,
  type ContactRelationshipIdRequest,
  type DeleteContactRelationshipRequest,
  type ContactRelationshipReply,
  type CreateContactRelationshipRequest,
  type ListContactRelationshipsReply,
  type ListContactRelationshipsRequest,
  type UpdateContactRelationshipRequest,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import type { Db } from '../common/sql';
import { checkDistinctContacts, chooseVariant, pairKey, RELATIONSHIP_UNDO_DAYS, type TypeVariant } from './contact-relationship.rules';
import { toContactRelationshipDto } from './contact-relationship.view';
import { ContactRelationshipsRepository } from './contact-relationships.repository';

/**
 * Relationships between contacts (decisions.md "Configuration and users"): any user of the
 * account may relate its contacts; both contacts must be the account's live contacts.
 */
@Injectable()
export class ContactRelationshipsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relationships: ContactRelationshipsRepository,
  ) {}

  async list(caller: Caller, request: ListContactRelationshipsRequest): Promise<ListContactRelationshipsReply> {
    const { page, per_page } = request;
    return this.dataSource.transaction('REPEATABLE READ', async (tx) => {
      const contactId = await this.contact(tx, caller.account_id, request.contact_id, 'contact_id');
      const filter = {
        ...request,
        relationship_type_id: request.relationship_type_id?.trim().toLowerCase(),
        contact_id_filter: request.contact_id_filter?.trim().toLowerCase(),
        variant_id_filter: request.variant_id_filter?.trim().toLowerCase(),
      };
      const { total, rows } = await this.relationships.page(tx, caller.account_id, contactId, filter, page, per_page);
      return {
        relationships: rows.map((row) => ({ relationship: toContactRelationshipDto(row, contactId) })),
        ...pageInfo(total, page, per_page),
      };
    });
  }

  async create(caller: Caller, request: CreateContactRelationshipRequest): Promise<ContactRelationshipReply> {
    return this.dataSource.transaction(async (tx) => {
      const contactId = await this.contact(tx, caller.account_id, request.contact_id, 'contact_id');
      const id = newId();
      await this.relationships.insert(tx, caller.account_id, await this.planned(tx, caller.account_id, contactId, id, request, null));
      const row = await this.relationships.find(tx, caller.account_id, contactId, id);
      return { relationship: toContactRelationshipDto(row!, contactId) };
    });
  }

  async get(caller: Caller, request: ContactRelationshipIdRequest): Promise<ContactRelationshipReply> {
    const db = this.dataSource.manager;
    const contactId = await this.contact(db, caller.account_id, request.contact_id, 'contact_id');
    return {
      relationship: toContactRelationshipDto(await this.found(db, caller.account_id, contactId, request.relationship_id), contactId),
    };
  }

  /**
   * PUT: the relationship is replaced as seen from the path's contact, which stays one of its ends:
   * the same checks as on create (the relationship itself aside when looking for a duplicate).
   */
  async update(caller: Caller, request: UpdateContactRelationshipRequest): Promise<ContactRelationshipReply> {
    return this.dataSource.transaction(async (tx) => {
      const contactId = await this.contact(tx, caller.account_id, request.contact_id, 'contact_id');
      const current = await this.found(tx, caller.account_id, contactId, request.relationship_id);
      await this.relationships.replace(tx, await this.planned(tx, caller.account_id, contactId, current.id, request, current.id));
      return {
        relationship: toContactRelationshipDto((await this.relationships.find(tx, caller.account_id, contactId, current.id))!, contactId),
      };
    });
  }

  /** The row a create or replace writes: the related contact, type and variant checked; one relationship of a type per pair. */
  private async planned(
    tx: Db,
    accountId: string,
    contactId: string,
    id: string,
    request: Pick<CreateContactRelationshipRequest, 'relationship_type_id' | 'related_contact_id' | 'variant_id'>,
    exceptId: string | null,
  ) {
    const relatedId = await this.contact(tx, accountId, request.related_contact_id, 'related_contact_id');
    const typeId = request.relationship_type_id.toLowerCase();
    const variants = isId(typeId) ? await this.relationships.typeVariants(tx, accountId, typeId) : [];
    if (variants.length === 0)
      throw new ApiError(ErrorName.ResourceNotFound, 'Relationship type not found', {
        relationship_type_id: 'names no relationship type of this account',
      });
    checkDistinctContacts(contactId, relatedId);
    const variantId = await this.variantFor(tx, accountId, variants, request.variant_id);
    // One relationship of a type per pair of contacts, whichever way round; the lock serializes writers of the same pair.
    if (await this.relationships.lockPairAndCheck(tx, accountId, typeId, contactId, relatedId, pairKey(contactId, relatedId), exceptId))
      throw new ApiError(ErrorName.DuplicatedEntity, 'These contacts already have a relationship of this type', {
        relationship_type_id: 'the two contacts already have a relationship of this type',
      });
    return { id, relationship_type_id: typeId, contact_id: contactId, related_contact_id: relatedId, variant_id: variantId };
  }

  /** A live relationship touching the contact, else 404. */
  private async found(db: Db, accountId: string, contactId: string, rawId: string) {
    const id = rawId.toLowerCase();
    const row = isId(id) ? await this.relationships.find(db, accountId, contactId, id) : undefined;
    if (!row) throw ApiError.notFound('Relationship not found');
    return row;
  }

  /**
   * Deletes a relationship (from either of its contacts); it can be restored for
   * RELATIONSHIP_UNDO_DAYS with `undo=true` (OnePageCRM's "repeat the same request with undo=true").
   */
  async delete(caller: Caller, request: DeleteContactRelationshipRequest): Promise<Record<string, never>> {
    await this.dataSource.transaction(async (tx) => {
      const contactId = await this.contact(tx, caller.account_id, request.contact_id, 'contact_id');
      const id = request.relationship_id.toLowerCase();
      if (request.undo === true) return this.restore(tx, caller.account_id, contactId, id);
      if (!isId(id) || !(await this.relationships.delete(tx, caller.account_id, contactId, id, RELATIONSHIP_UNDO_DAYS)))
        throw ApiError.notFound('Relationship not found');
    });
    return {};
  }

  /** Restores a relationship of the contact deleted within RELATIONSHIP_UNDO_DAYS; 409 if the pair has one of that type again. */
  private async restore(tx: Db, accountId: string, contactId: string, id: string): Promise<void> {
    const row = isId(id) ? await this.relationships.deleted(tx, accountId, contactId, id, RELATIONSHIP_UNDO_DAYS) : undefined;
    if (!row)
      throw ApiError.notFound(`No relationship of this contact was deleted with this id within the last ${RELATIONSHIP_UNDO_DAYS} days`);
    const other = row.contact_id === contactId ? row.related_contact_id : row.contact_id;
    if (!(await this.relationships.liveContactId(tx, accountId, other)))
      throw ApiError.notFound('The other contact of this relationship no longer exists');
    if (await this.relationships.lockPairAndCheck(tx, accountId, row.relationship_type_id, contactId, other, pairKey(contactId, other)))
      throw new ApiError(
        ErrorName.DuplicatedEntity,
        'These contacts have a relationship of this type again; delete it before restoring this one',
        {
          undo: 'the two contacts have a relationship of this type again',
        },
      );
    await this.relationships.restore(tx, id);
  }

  private async variantFor(db: Db, accountId: string, variants: TypeVariant[], sent: string | null | undefined): Promise<string> {
    const choice = chooseVariant(variants, sent);
    if ('id' in choice) return choice.id;
    if (isId(choice.unknown) && (await this.relationships.variantExists(db, accountId, choice.unknown)))
      throw ApiError.invalid({ variant_id: 'is a variant of another relationship type' });
    throw new ApiError(ErrorName.ResourceNotFound, 'Relationship variant not found', {
      variant_id: 'names no relationship variant of this account',
    });
  }

  /** A live (not deleted) contact of the account, else 404 naming `key`. */
  private async contact(db: Db, accountId: string, contactId: string, key: string): Promise<string> {
    const id = contactId.toLowerCase();
    const found = isId(id) ? await this.relationships.liveContactId(db, accountId, id) : undefined;
    if (!found)
      throw new ApiError(
        ErrorName.ResourceNotFound,
        'Contact not found',
        key === 'contact_id' ? {} : { [key]: 'names no contact of this account' },
      );
    return found;
  }
}
