import type { RouteDeclaration } from '../routes/route-declaration';
import { BootstrapRequest } from './bootstrap.requests';
import { BootstrapSubjects } from './bootstrap.subjects';

/** The bootstrap: everything a client needs at start in one reply (issue 4). */
export const BOOTSTRAP_ROUTES: readonly RouteDeclaration[] = [
  {
    operationId: 'bootstrap',
    method: 'GET',
    path: '/bootstrap',
    subject: BootstrapSubjects.Bootstrap,
    access: 'read',
    request: BootstrapRequest,
    reply: 'BootstrapReply',
    replySummary: true,
    successStatus: 200,
    summary:
      "Everything a client reads on connect: the caller's user (auth_key is always null), team, settings, custom/company/deal fields, filters, call results, predefined actions, relationship types, contact titles, statuses, lead sources, tags and pipelines",
    tag: 'Bootstrap',
  },
];
