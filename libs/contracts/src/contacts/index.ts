export * from './contact.subjects';
export * from './contact.routes';
