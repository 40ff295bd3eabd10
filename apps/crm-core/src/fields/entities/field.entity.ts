import type { FieldSet, FieldType } from '@crm/contracts';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One field definition of an account: contact custom fields, company fields and deal fields live
 * in one table, told apart by `field_set`. Names are unique per account and set regardless of
 * letter case (unique index `fields_name_uq` on lower(name), created by the migration).
 */
@Entity({ name: 'fields' })
@Index('fields_order_idx', ['accountId', 'fieldSet', 'position', 'createdAt', 'id'])
export class FieldEntity {
  @PrimaryColumn({ type: 'varchar', length: 24 })
  id: string;

  @Column({ type: 'varchar', length: 24, name: 'account_id' })
  accountId: string;

  @Column({ type: 'varchar', length: 16, name: 'field_set' })
  fieldSet: FieldSet;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'varchar', length: 16 })
  type: FieldType;

  @Column({ type: 'integer' })
  position: number;

  /** Only for select_box and multiple_choice; null otherwise. */
  @Column({ type: 'text', array: true, nullable: true })
  choices: string[] | null;

  /** Set by the service (not the database) so the answer shows exactly what was stored. */
  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @Column({ type: 'timestamptz', name: 'modified_at' })
  modifiedAt: Date;
}
