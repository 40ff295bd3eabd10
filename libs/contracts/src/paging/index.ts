export * from './paging.request';
export * from './record-list.request';
export * from './time-filter.request';
export * from './list-format';
