/** Subjects of the country list (issue 13): gateway -> crm-core; spread into {@link Subjects}. */
export const CountrySubjects = {
  CountriesList: 'crm.countries.list.v1',
} as const;
