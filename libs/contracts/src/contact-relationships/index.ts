export * from './contact-relationship.dto';
export * from './contact-relationship.requests';
export * from './contact-relationship.routes';
export * from './contact-relationship.subjects';
