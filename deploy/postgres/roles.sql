-- PostgreSQL roles of the CRM platform (deploy/README.md "Migrations", decisions.md "Operations:
-- migrations job, internal ports, overlays"). Run ONCE per database, as its owner or an admin
-- (RDS: the master user), before the first migration Job:
--
--   psql "postgres://ADMIN@HOST:5432/crm?sslmode=require" -v ON_ERROR_STOP=1 \
--     -v migrator_password="$(openssl rand -hex 24)" -v auth_password="$(openssl rand -hex 24)" \
--     -v crm_password="$(openssl rand -hex 24)" -v webhooks_password="$(openssl rand -hex 24)" \
--     -f deploy/postgres/roles.sql
--
-- crm_migrator owns the three schemas and every object in them: only the migration Job
-- (Secret crm-migrator) logs in as it. Each service logs in as its own runtime role, which may
-- read and write the rows of its own schema and nothing else: no CREATE, ALTER, DROP, TRUNCATE,
-- no other context's schema. Tables the Job creates later are granted by the default privileges.
--
-- An existing deployment whose tables belong to the old shared user: run this file, then
--   REASSIGN OWNED BY <old user> TO crm_migrator;   (in this database, as an admin)
-- and give the services the runtime roles' URLs.

CREATE ROLE crm_migrator LOGIN PASSWORD :'migrator_password';
CREATE ROLE crm_auth LOGIN PASSWORD :'auth_password';
CREATE ROLE crm_core LOGIN PASSWORD :'crm_password';
CREATE ROLE crm_webhooks LOGIN PASSWORD :'webhooks_password';

-- Nobody but the migrator creates anything; PUBLIC keeps CONNECT and TEMPORARY (the defaults).
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT CONNECT, CREATE ON DATABASE :"DBNAME" TO crm_migrator;
GRANT CONNECT ON DATABASE :"DBNAME" TO crm_auth, crm_core, crm_webhooks;

CREATE SCHEMA IF NOT EXISTS auth AUTHORIZATION crm_migrator;
CREATE SCHEMA IF NOT EXISTS crm AUTHORIZATION crm_migrator;
CREATE SCHEMA IF NOT EXISTS webhooks AUTHORIZATION crm_migrator;

-- auth-server: schema auth.
GRANT USAGE ON SCHEMA auth TO crm_auth;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA auth TO crm_auth;
GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA auth TO crm_auth;
ALTER DEFAULT PRIVILEGES FOR ROLE crm_migrator IN SCHEMA auth GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO crm_auth;
ALTER DEFAULT PRIVILEGES FOR ROLE crm_migrator IN SCHEMA auth GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO crm_auth;

-- crm-core: schema crm.
GRANT USAGE ON SCHEMA crm TO crm_core;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA crm TO crm_core;
GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA crm TO crm_core;
ALTER DEFAULT PRIVILEGES FOR ROLE crm_migrator IN SCHEMA crm GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO crm_core;
ALTER DEFAULT PRIVILEGES FOR ROLE crm_migrator IN SCHEMA crm GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO crm_core;

-- webhook-dispatcher: schema webhooks.
GRANT USAGE ON SCHEMA webhooks TO crm_webhooks;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA webhooks TO crm_webhooks;
GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA webhooks TO crm_webhooks;
ALTER DEFAULT PRIVILEGES FOR ROLE crm_migrator IN SCHEMA webhooks GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO crm_webhooks;
ALTER DEFAULT PRIVILEGES FOR ROLE crm_migrator IN SCHEMA webhooks GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO crm_webhooks;

-- crm-core refreshes the outbox's planner statistics after a slow claim (ANALYZE crm.outbox). Before
-- PostgreSQL 17 only the owner may: the runtime role's ANALYZE is skipped with a warning and
-- autovacuum keeps the statistics. On 17 or newer, after the first Job, let it:
--   GRANT MAINTAIN ON crm.outbox TO crm_core;
