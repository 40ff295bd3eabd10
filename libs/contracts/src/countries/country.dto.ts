/** OnePageCRM's Country: an ISO 3166-1 alpha-2 code, its English name and calling prefix (`+353`). */
export interface CountryDto {
  name: string;
  code: string;
  phone_prefix: string;
}

/** GET /countries: every country (249, a fixed list), by code, not paged. */
export interface ListCountriesReply {
  countries: Array<{ country: CountryDto }>;
}
