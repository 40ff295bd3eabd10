import { Injectable } from '@nestjs/common';
import { newId } from '@crm/common';
import {
  ApiError,
  type CallDto,
  type CallIdRequest,
  type CallReply,
  type Caller,
  type CreateCallRequest,
  type ListCallsReply,
  type ListCallsRequest,
  type UpdateCallRequest,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import type { Db } from '../common/sql';
import { writeEvent } from '../outbox/outbox';
import { deleteAttachments, replaceAttachments } from '../records/attachments.repository';
import { normalizeId, pick, replacedList, resultIndex } from '../records/record-common';
import { findContact, touchLastActivity } from '../records/record-references.repository';
import { toCallDto } from './call.view';
import { NotificationsService } from '../notifications/notifications.service';
import { CallsRepository, type CallValues, type LockedCall } from './calls.repository';
import { assertIfMatch } from '../common/if-match.repository';

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Calls logged with contacts (spec "Call", decisions.md "Deals and actions"). */
@Injectable()
export class CallsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly calls: CallsRepository,
    private readonly notifications: NotificationsService,
  ) {}

  async list(caller: Caller, request: ListCallsRequest): Promise<ListCallsReply> {
    const { rows, page } = await this.calls.list(this.dataSource.manager, caller.account_id, request);
    return { calls: rows.map((row, i) => ({ call: toCallDto(row, resultIndex(page, i)) })), ...page };
  }

  async get(caller: Caller, request: CallIdRequest): Promise<CallReply> {
    return { call: await this.load(this.dataSource.manager, caller.account_id, request.call_id) };
  }

  /** Logs a call (call_time_int defaults to now); the contact's last activity moves to now. */
  async create(caller: Caller, request: CreateCallRequest): Promise<CallReply> {
    return this.dataSource.transaction(async (tx) => {
      const contact = await findContact(tx, caller.account_id, request.contact_id);
      const id = newId();
      await this.calls.insert(tx, id, caller.account_id, contact.id, caller.user_id, {
        text: request.text ?? '',
        call_result: request.call_result ?? '',
        call_time_int: request.call_time_int ?? nowSeconds(),
        via: request.via ?? '',
        phone_number: request.phone_number ?? '',
        recording_link: request.recording_link ?? '',
      });
      if (request.attachments?.length) await replaceAttachments(tx, caller.account_id, 'call', id, contact.id, request.attachments);
      await this.notifications.notifyOf(tx, caller, 'call', id, contact.id, request.user_ids_to_notify);
      await touchLastActivity(tx, contact.id);
      const call = await this.load(tx, caller.account_id, id);
      await writeEvent(tx, {
        account_id: caller.account_id,
        type: 'call',
        reason: 'created',
        record_id: id,
        contact_status_id: contact.status_id,
        data: { call },
      });
      return { call };
    });
  }

  /** PUT: absent fields are cleared (call_time_int: now); partial=true: only the fields sent change. */
  async update(caller: Caller, request: UpdateCallRequest): Promise<CallReply> {
    const partial = request.partial === true;
    return this.dataSource.transaction(async (tx) => {
      const current = await this.lock(tx, caller.account_id, request.call_id);
      const values: CallValues = {
        text: pick(partial, request.text, current.text, ''),
        call_result: pick(partial, request.call_result, current.call_result, ''),
        call_time_int: pick<number>(partial, request.call_time_int, Number(current.call_time_int), nowSeconds()),
        via: pick(partial, request.via, current.via, ''),
        phone_number: pick(partial, request.phone_number, current.phone_number, ''),
        recording_link: pick(partial, request.recording_link, current.recording_link, ''),
      };
      await this.calls.update(tx, current.id, values);
      const attachments = replacedList(partial, request.attachments);
      if (attachments !== null) await replaceAttachments(tx, caller.account_id, 'call', current.id, current.contact_id, attachments);
      await this.notifications.notifyOf(tx, caller, 'call', current.id, current.contact_id, request.user_ids_to_notify);
      const call = await this.load(tx, caller.account_id, current.id);
      await writeEvent(tx, {
        account_id: caller.account_id,
        type: 'call',
        reason: 'updated',
        record_id: current.id,
        contact_status_id: current.c_status_id,
        data: { call },
      });
      return { call };
    });
  }

  async delete(caller: Caller, request: CallIdRequest): Promise<Record<string, never>> {
    return this.dataSource.transaction(async (tx) => {
      const current = await this.lock(tx, caller.account_id, request.call_id);
      await this.calls.delete(tx, current.id);
      await deleteAttachments(tx, current.id);
      await this.notifications.forgetRecord(tx, caller, current.id);
      await writeEvent(tx, {
        account_id: caller.account_id,
        type: 'call',
        reason: 'deleted',
        record_id: current.id,
        contact_status_id: current.c_status_id,
        data: { id: current.id },
      });
      return {};
    });
  }

  private async load(db: Db, accountId: string, callId: string): Promise<CallDto> {
    const id = normalizeId(callId);
    const row = id ? await this.calls.byId(db, accountId, id) : undefined;
    if (!row) throw ApiError.notFound('Call not found');
    return toCallDto(row);
  }

  private async lock(db: Db, accountId: string, callId: string): Promise<LockedCall> {
    const id = normalizeId(callId);
    const row = id ? await this.calls.lock(db, accountId, id) : undefined;
    if (!row) throw ApiError.notFound('Call not found');
    await assertIfMatch(db, 'calls', row.id);
    return row;
  }
}
