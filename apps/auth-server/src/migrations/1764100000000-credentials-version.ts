import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A version on every user's credential record, maintained by the database itself: any change of a
 * user row, and any change of its account's status or billing status, takes a fresh value from a
 * sequence. The value is taken once the row is locked, so for one user it grows in commit order,
 * and a rolled-back change never hands its value to a later one. The Redis mirror keeps the
 * highest version it was given and refuses older ones (credentials.cache.ts).
 */
export class CredentialsVersion1764100000000 implements MigrationInterface {
  name = 'CredentialsVersion1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SEQUENCE auth.credentials_version_seq`);
    await q.query(`ALTER TABLE auth.users ADD COLUMN credentials_version bigint NOT NULL DEFAULT nextval('auth.credentials_version_seq')`);
    await q.query(`
      CREATE FUNCTION auth.next_user_credentials_version() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.credentials_version := nextval('auth.credentials_version_seq');
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER users_credentials_version BEFORE UPDATE ON auth.users
      FOR EACH ROW EXECUTE FUNCTION auth.next_user_credentials_version()`);
    await q.query(`
      CREATE FUNCTION auth.next_account_credentials_version() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE auth.users SET credentials_version = nextval('auth.credentials_version_seq') WHERE account_id = NEW.id;
        RETURN NULL;
      END $$`);
    // Only the account fields a credential record carries; the users' trigger picks the new value.
    await q.query(`
      CREATE TRIGGER accounts_credentials_version AFTER UPDATE OF status, billing_status ON auth.accounts
      FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.billing_status IS DISTINCT FROM NEW.billing_status)
      EXECUTE FUNCTION auth.next_account_credentials_version()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER accounts_credentials_version ON auth.accounts`);
    await q.query(`DROP FUNCTION auth.next_account_credentials_version()`);
    await q.query(`DROP TRIGGER users_credentials_version ON auth.users`);
    await q.query(`DROP FUNCTION auth.next_user_credentials_version()`);
    await q.query(`ALTER TABLE auth.users DROP COLUMN credentials_version`);
    await q.query(`DROP SEQUENCE auth.credentials_version_seq`);
  }
}
