/**
 * The derived columns of crm.contacts, computed on every write from the fields they follow (the
 * same rules for the API and for bulk seeding): `sort_name` (the "by name" order and cascade key),
 * `letter` (alphabetical grouping) and `search_text` (what `search` matches, trigram-indexed).
 */

export interface NameParts {
  first_name: string;
  last_name: string;
  company_name: string;
}

export interface SearchParts extends NameParts {
  phones: ReadonlyArray<{ value: string }>;
  emails: ReadonlyArray<{ value: string }>;
  urls: ReadonlyArray<{ value: string }>;
}

/** Lower case without diacritics: "Émile" -> "emile". */
export function fold(value: string): string {
  return value.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

/** Digits only: what phone search compares ("+1 (555) 010-2000" -> "15550102000"). */
export function digitsOf(value: string): string {
  return value.replace(/\D/g, '');
}

/** Last name (or company name without one), a space, first name; folded and trimmed. */
export function sortNameOf(parts: NameParts): string {
  const family = parts.last_name.trim() || parts.company_name.trim();
  return fold(`${family} ${parts.first_name.trim()}`).trim().slice(0, 500);
}

/** a-z: the first character of the sort name; '1' when it is not a letter a-z. */
export function letterOf(sortName: string): string {
  const first = sortName.charAt(0);
  return first >= 'a' && first <= 'z' ? first : '1';
}

/**
 * Folded names both ways ("ada lovelace", "lovelace ada"), company, emails, urls, and each phone
 * as written and as digits, separated by newlines (a search never matches across two parts).
 */
export function searchTextOf(parts: SearchParts): string {
  const first = parts.first_name.trim();
  const last = parts.last_name.trim();
  const pieces = [`${first} ${last}`.trim(), `${last} ${first}`.trim(), parts.company_name.trim()];
  for (const phone of parts.phones) pieces.push(phone.value, digitsOf(phone.value));
  for (const email of parts.emails) pieces.push(email.value);
  for (const url of parts.urls) pieces.push(url.value);
  return fold(pieces.filter((p) => p.length > 0).join('\n'));
}

/**
 * What a `search` term is compared with: folded text, or the digits alone when the term looks like
 * a phone number (so "+1 555-0102" finds "(555) 0102").
 */
export function searchTermOf(term: string): string {
  const trimmed = term.trim();
  if (/^[\d\s()+\-./]+$/.test(trimmed) && /\d/.test(trimmed)) return digitsOf(trimmed);
  return fold(trimmed);
}
