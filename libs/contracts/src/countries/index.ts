export * from './country.dto';
export * from './country.routes';
export * from './country.subjects';
