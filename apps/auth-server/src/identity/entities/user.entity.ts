import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { Role } from '@crm/contracts';

/** Login credentials of a user: email, password hash, API key hash. */
@Entity({ name: 'users' })
export class UserEntity {
  @PrimaryColumn({ type: 'varchar', length: 24 })
  id: string;

  @Column({ type: 'varchar', length: 24, name: 'account_id' })
  accountId: string;

  /** Stored lowercased; unique across the platform (the login name). */
  @Column({ type: 'varchar', length: 254 })
  email: string;

  @Column({ type: 'varchar', length: 200, name: 'password_hash' })
  passwordHash: string;

  @Column({ type: 'varchar', length: 16 })
  role: Role;

  /** HMAC-SHA256 (keyed with API_KEY_PEPPER) of the current API key. */
  @Column({ type: 'varchar', length: 64, name: 'api_key_hash', nullable: true })
  apiKeyHash: string | null;

  @Column({ type: 'timestamptz', name: 'api_key_created_at', nullable: true })
  apiKeyCreatedAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;
}
