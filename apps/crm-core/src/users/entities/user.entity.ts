import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** The CRM user profile: names, role, rights and settings (credentials live in the auth schema). */
@Entity({ name: 'users' })
@Index('users_account_idx', ['accountId', 'lastName', 'firstName'])
export class UserEntity {
  @PrimaryColumn({ type: 'varchar', length: 24 })
  id: string;

  @Column({ type: 'varchar', length: 24, name: 'account_id' })
  accountId: string;

  @Column({ type: 'varchar', length: 100, name: 'first_name' })
  firstName: string;

  @Column({ type: 'varchar', length: 100, name: 'last_name' })
  lastName: string;

  @Column({ type: 'varchar', length: 254 })
  email: string;

  @Column({ type: 'varchar', length: 16 })
  role: 'admin' | 'user';

  @Column({ type: 'text', array: true, name: 'account_rights', default: () => "'{}'" })
  accountRights: string[];

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  permissions: string[];

  @Column({ type: 'varchar', length: 200, name: 'company_name', default: '' })
  companyName: string;

  @Column({ type: 'varchar', length: 2000, name: 'photo_url', default: '' })
  photoUrl: string;

  @Column({ type: 'varchar', length: 2, name: 'country_code', default: '' })
  countryCode: string;

  @Column({ type: 'varchar', length: 254, name: 'bcc_email' })
  bccEmail: string;

  @Column({ type: 'varchar', length: 254, name: 'google_contacts_email', default: '' })
  googleContactsEmail: string;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', name: 'modified_at' })
  modifiedAt: Date;
}
