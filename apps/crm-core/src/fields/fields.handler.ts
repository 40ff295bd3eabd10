import { Controller, Inject, UseInterceptors, type Type } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcReplyInterceptor } from '@crm/messaging';
import { FIELD_SET_INFO, FIELD_SETS, type FieldSet, type RpcRequest } from '@crm/contracts';
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
    list(@Payload() request: RpcRequest): Promise<unknown> {
      return this.fields.list(set, request.caller, request.payload);
    }

    @MessagePattern(subjects.get)
    get(@Payload() request: RpcRequest): Promise<unknown> {
      return this.fields.get(set, request.caller, request.payload);
    }

    @MessagePattern(subjects.create)
    create(@Payload() request: RpcRequest): Promise<unknown> {
      return this.fields.create(set, request.caller, request.payload);
    }

    @MessagePattern(subjects.update)
    update(@Payload() request: RpcRequest): Promise<unknown> {
      return this.fields.update(set, request.caller, request.payload);
    }

    @MessagePattern(subjects.patch)
    patch(@Payload() request: RpcRequest): Promise<unknown> {
      return this.fields.patch(set, request.caller, request.payload);
    }

    @MessagePattern(subjects.delete)
    delete(@Payload() request: RpcRequest): Promise<unknown> {
      return this.fields.delete(set, request.caller, request.payload);
    }
  }

  const name = `${set.replace(/(^|_)([a-z])/g, (_m, _sep: string, c: string) => c.toUpperCase())}Handler`;
  Object.defineProperty(FieldSetHandler, 'name', { value: name });
  return FieldSetHandler;
}

/** CustomFieldsHandler, CompanyFieldsHandler, DealFieldsHandler. */
export const FIELD_HANDLERS: Array<Type<unknown>> = FIELD_SETS.map(fieldsHandlerFor);
