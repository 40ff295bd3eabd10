export * from './attachment.dto';
export * from './attachment.requests';
