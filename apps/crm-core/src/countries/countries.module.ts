import { Module } from '@nestjs/common';
import { CountriesHandler } from './countries.handler';

/** The fixed list of countries: data in code, no table. */
@Module({ controllers: [CountriesHandler] })
export class CountriesModule {}
