import type { RouteDeclaration } from '../routes/route-declaration';

/** Statuses, lead sources, tags, saved filters, contact relationships, bootstrap (issue 4). */
export const CONFIGURATION_ROUTES: readonly RouteDeclaration[] = [];
