import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { BillingStatus } from '@crm/contracts';

/**
 * `provisioning` until crm-core has made its half; only `active` accounts authenticate, so a
 * half-made account is never usable.
 */
export type AccountStatus = 'provisioning' | 'active';

@Entity({ name: 'accounts' })
export class AccountEntity {
  @PrimaryColumn({ type: 'varchar', length: 24 })
  id: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 32 })
  region: string;

  @Column({ type: 'varchar', length: 16 })
  status: AccountStatus;

  @Column({ type: 'varchar', length: 32, name: 'billing_status' })
  billingStatus: BillingStatus;

  /** The crm-core provisioning message, kept until it has been acknowledged. */
  @Column({ type: 'jsonb', name: 'provisioning_payload', nullable: true })
  provisioningPayload: object | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;
}
