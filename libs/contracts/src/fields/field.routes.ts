import type { RouteDeclaration } from '../routes/route-declaration';

/** /custom_fields, /company_fields, /deal_fields (issue 4). */
export const FIELD_ROUTES: readonly RouteDeclaration[] = [];
