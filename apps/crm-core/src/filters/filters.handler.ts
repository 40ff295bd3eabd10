import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import {
  Subjects,
  type Caller,
  type CreateFilterRequest,
  type ListFiltersRequest,
  type PatchFilterRequest,
  type FilterIdRequest,
  type UpdateFilterRequest,
} from '@crm/contracts';
import { FiltersService } from './filters.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class FiltersHandler {
  constructor(private readonly filters: FiltersService) {}

  @MessagePattern(Subjects.FiltersList)
  list(@RpcCaller() caller: Caller, @ValidRequest() request: ListFiltersRequest) {
    return this.filters.list(caller, request);
  }

  @MessagePattern(Subjects.FiltersCreate)
  create(@RpcCaller() caller: Caller, @ValidRequest() request: CreateFilterRequest) {
    return this.filters.create(caller, request);
  }

  @MessagePattern(Subjects.FiltersGet)
  get(@RpcCaller() caller: Caller, @ValidRequest() request: FilterIdRequest) {
    return this.filters.get(caller, request);
  }

  @MessagePattern(Subjects.FiltersUpdate)
  update(@RpcCaller() caller: Caller, @ValidRequest() request: UpdateFilterRequest) {
    return this.filters.update(caller, request);
  }

  @MessagePattern(Subjects.FiltersPatch)
  patch(@RpcCaller() caller: Caller, @ValidRequest() request: PatchFilterRequest) {
    return this.filters.patch(caller, request);
  }

  @MessagePattern(Subjects.FiltersDelete)
  delete(@RpcCaller() caller: Caller, @ValidRequest() request: FilterIdRequest) {
    return this.filters.delete(caller, request);
  }
}
