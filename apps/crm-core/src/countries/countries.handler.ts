import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import { Subjects, type EmptyRequest, type ListCountriesReply } from '@crm/contracts';
import { COUNTRIES } from './countries.data';

/** Built once: the list never changes while the process runs. */
const REPLY: ListCountriesReply = {
  countries: COUNTRIES.map(([code, name, phonePrefix]) => ({ country: { name, code, phone_prefix: phonePrefix } })),
};

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class CountriesHandler {
  @MessagePattern(Subjects.CountriesList)
  list(@ValidRequest() _request: EmptyRequest): ListCountriesReply {
    return REPLY;
  }
}
