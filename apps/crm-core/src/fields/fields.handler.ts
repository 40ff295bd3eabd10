import { Controller, Inject, UseInterceptors, type Type } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import {
  FIELD_SET_INFO,
  FIELD_SETS,
  type Caller,
  type CreateFieldRequest,
  type FieldSet,
  type ListFieldsRequest,
  type PatchFieldRequest,
  type UpdateFieldRequest,
} from '@crm/contracts';
import { FieldsService } from './fields.service';

/**
 * The NATS handler of one field set: each set has its own subjects (the gateway's route
 * declarations carry no constant), all served by the one FieldsService.
 */
function fieldsHandlerFor(set: FieldSet): Type<unknown> {
  const subjects = FIELD_SET_INFO[set].subjects;

  @Controller()
  @UseInterceptors(RpcReplyInterceptor)
  class FieldSetHandler {
    constructor(@Inject(FieldsService) private readonly fields: FieldsService) {}

    @MessagePattern(subjects.list)
    list(@RpcCaller() caller: Caller, @ValidRequest() request: ListFieldsRequest): Promise<unknown> {
      return this.fields.list(set, caller, request);
    }

    @MessagePattern(subjects.get)
    get(@RpcCaller() caller: Caller, @ValidRequest() request: object): Promise<unknown> {
      return this.fields.get(set, caller, request);
    }

    @MessagePattern(subjects.create)
    create(@RpcCaller() caller: Caller, @ValidRequest() request: CreateFieldRequest): Promise<unknown> {
      return this.fields.create(set, caller, request);
    }

    @MessagePattern(subjects.update)
    update(@RpcCaller() caller: Caller, @ValidRequest() request: UpdateFieldRequest): Promise<unknown> {
      return this.fields.update(set, caller, request);
    }

    @MessagePattern(subjects.patch)
    patch(@RpcCaller() caller: Caller, @ValidRequest() request: PatchFieldRequest): Promise<unknown> {
      return this.fields.patch(set, caller, request);
    }

    @MessagePattern(subjects.delete)
    delete(@RpcCaller() caller: Caller, @ValidRequest() request: object): Promise<unknown> {
      return this.fields.delete(set, caller, request);
    }
  }

  const name = `${set.replace(/(^|_)([a-z])/g, (_m, _sep: string, c: string) => c.toUpperCase())}Handler`;
  Object.defineProperty(FieldSetHandler, 'name', { value: name });
  return FieldSetHandler;
}

/** CustomFieldsHandler, CompanyFieldsHandler, DealFieldsHandler. */
export const FIELD_HANDLERS: Array<Type<unknown>> = FIELD_SETS.map(fieldsHandlerFor);
