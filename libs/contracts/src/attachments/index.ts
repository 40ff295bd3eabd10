export * from './attachment.dto';
export * from './attachment.requests';
export * from './attachment-upload.requests';
export * from './attachment.replies';
export * from './attachment.routes';
export * from './attachment.subjects';
