import type { RouteDeclaration } from '../routes/route-declaration';

/** /relationship_types, /predefined_actions, /predefined_action_groups (issue 4). */
export const RELATIONSHIP_TYPE_ROUTES: readonly RouteDeclaration[] = [];
