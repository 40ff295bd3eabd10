// The sql tagged template lives in @crm/database (every service's repositories use it); crm-core's
// repositories keep importing it from here.
export { sql, SqlFragment, type Sql } from '@crm/database';
