import type { RouteDeclaration } from '../routes/route-declaration';

/** Contacts and companies (issue 3). */
export const CONTACT_ROUTES: readonly RouteDeclaration[] = [];
