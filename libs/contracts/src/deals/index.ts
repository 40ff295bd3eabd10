export * from './deal.dto';
export * from './deal.requests';
export * from './deal.routes';
export * from './deal.subjects';
