import { PagingRequest } from '../paging/paging.request';

export class ListCallResultsRequest extends PagingRequest {}
