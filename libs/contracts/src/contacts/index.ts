export * from './contact.subjects';
export * from './contact.dto';
export * from './contact.requests';
export * from './company.requests';
export * from './contact.routes';
