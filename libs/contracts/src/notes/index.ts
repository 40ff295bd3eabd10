export * from './note.dto';
export * from './note.requests';
export * from './note.routes';
export * from './note.subjects';
