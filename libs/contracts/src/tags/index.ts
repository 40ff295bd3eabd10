export * from './tag.dto';
export * from './tag.requests';
export * from './tag.routes';
export * from './tag.subjects';
