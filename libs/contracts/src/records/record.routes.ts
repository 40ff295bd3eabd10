import type { RouteDeclaration } from '../routes/route-declaration';

/** Deals, notes, calls, meetings and actions (issue 5). */
export const RECORD_ROUTES: readonly RouteDeclaration[] = [];
