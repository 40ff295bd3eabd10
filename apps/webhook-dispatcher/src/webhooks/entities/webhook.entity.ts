import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A receiver registered by an account (decisions.md "Webhooks"). */
@Entity({ name: 'webhooks' })
@Index('webhooks_account_idx', ['accountId'])
export class WebhookEntity {
  @PrimaryColumn({ type: 'varchar', length: 24 })
  id: string;

  @Column({ type: 'varchar', length: 24, name: 'account_id' })
  accountId: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 2000, name: 'hook_url' })
  hookUrl: string;

  /** Sent in every body as `secretkey` ("" when none). */
  @Column({ type: 'varchar', length: 200, default: '' })
  secretkey: string;

  /** Entity filter; empty means every type. */
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  types: string[];

  @Column({ type: 'varchar', length: 24, name: 'status_id', nullable: true })
  statusId: string | null;

  @Column({ type: 'boolean', default: true })
  active: boolean;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', name: 'modified_at' })
  modifiedAt: Date;
}
