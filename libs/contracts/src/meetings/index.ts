export * from './meeting.dto';
export * from './meeting.requests';
export * from './meeting.routes';
export * from './meeting.subjects';
