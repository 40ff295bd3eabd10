export * from './company.dto';
export * from './company.requests';
export * from './company.routes';
export * from './company.subjects';
