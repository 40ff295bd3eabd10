import { EmptyRequest } from '../routes/empty.request';
import type { RouteDeclaration } from '../routes/route-declaration';
import { CountrySubjects } from './country.subjects';

/** The fixed list of countries (issue 13). */
export const COUNTRY_ROUTES: readonly RouteDeclaration[] = [
  {
    operationId: 'listCountries',
    method: 'GET',
    path: '/countries',
    subject: CountrySubjects.CountriesList,
    access: 'read',
    request: EmptyRequest,
    reply: 'ListCountriesReply',
    successStatus: 200,
    summary: 'List every ISO 3166-1 country (249) by code, with its name and phone prefix (complete, not paged)',
    tag: 'Countries',
  },
];
