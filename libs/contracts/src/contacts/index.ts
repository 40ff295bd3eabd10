export * from './contact.dto';
export * from './contact.requests';
export * from './contact.routes';
export * from './contact.subjects';
