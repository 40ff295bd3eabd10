import type { UpdateUserRequest } from '@crm/contracts';

type Profile = { first_name: string; last_name: string; company_name: string };

/** The profile a PUT /users/{id} leads to: replaced (absent company_name: empty), or with `partial=true` merged. */
export function updatedProfile(
  current: Profile,
  request: Pick<UpdateUserRequest, 'first_name' | 'last_name' | 'company_name' | 'partial'>,
): Profile {
  const partial = request.partial === true;
  return {
    first_name: request.first_name ?? current.first_name,
    last_name: request.last_name ?? current.last_name,
    company_name: request.company_name ?? (partial && request.company_name === undefined ? current.company_name : ''),
  };
}
