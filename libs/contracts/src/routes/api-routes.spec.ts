import * as contracts from '../index';
import { API_ROUTES } from './api-routes';
import { Subjects } from '../rpc/subjects';

// A published route, subject or export never changes by accident: moving contracts between files
// must leave these snapshots as they are.
describe('the published contract surface', () => {
  it('declares every route, in order, with its subject, request, reply and status', () => {
    const routes = API_ROUTES.map((r) =>
      [
        r.operationId,
        r.method,
        r.path,
        r.subject,
        r.successStatus,
        r.access,
        r.apiKeyOnly ?? '-',
        r.mcpWrite ? 'mcpWrite' : '-',
        ...(r.replyCarriesSecret ? ['secret reply'] : []),
        ...(r.adminOnly ? ['admin'] : []),
        r.request.name,
        r.reply,
        ...(r.replySummary ? ['summary blocks'] : []),
        r.tag,
        r.summary,
      ].join(' | '),
    );
    expect(routes).toMatchSnapshot();
  });

  it('keeps every subject name and value', () => {
    expect(Object.entries(Subjects).map(([name, subject]) => `${name}: ${subject}`)).toMatchSnapshot();
  });

  it('keeps every exported name', () => {
    const names = Object.entries(contracts).map(([name, value]) => `${name}: ${typeof value}`);
    expect(names.sort()).toMatchSnapshot();
  });
});
