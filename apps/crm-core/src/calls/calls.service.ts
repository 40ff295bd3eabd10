import { Injectable } from '@nestjs/common';
import { newId } from '@crm/common';
import {
  ApiError,
  CallIdRequest,
  CreateCallRequest,
  ListCallsRequest,
  UpdateCallRequest,
  type Caller,
  type CallDto,
  type CallReply,
  type ListCallsReply,
} from '@crm/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { writeEvent } from '../outbox/outbox';
import { deleteAttachments, replaceAttachments } from '../records/attachments';
import { findContact, normalizeId, parseRecord } from '../records/record-common';
import { listPage, touchLastActivity } from '../records/record-list';
import { CALL_SELECT, toCallDto, type CallRow } from './call.serializer';

interface StoredCall {
  id: string;
  contact_id: string;
  text: string;
  call_result: string;
  call_time_int: string;
  via: string;
  phone_number: string;
  recording_link: string;
  c_status_id: string;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Calls logged with contacts (spec "Call", decisions.md "Deals and actions"). */
@Injectable()
export class CallsService {
  constructor(private readonly dataSource: DataSource) {}

  async list(caller: Caller, payload: unknown): Promise<ListCallsReply> {
    const request = parseRecord(ListCallsRequest, payload);
    const { rows, page } = await listPage<CallRow>(this.dataSource.manager, caller.account_id, request, {
      select: CALL_SELECT,
      table: 'crm.calls',
      alias: 'l',
      defaultOrder: 'l.call_time_int DESC, l.id DESC',
    });
    return { calls: rows.map((row) => ({ call: toCallDto(row) })), ...page };
  }

  async get(caller: Caller, payload: unknown): Promise<CallReply> {
    const { call_id } = parseRecord(CallIdRequest, payload);
    return {
      call: await this.load(this.dataSource.manager, caller.account_id, call_id),
    };
  }

  /** Logs a call (call_time_int defaults to now); the contact's last activity moves to now. */
  async create(caller: Caller, payload: unknown): Promise<CallReply> {
    const request = parseRecord(CreateCallRequest, payload);
    return this.dataSource.transaction(async (m) => {
      const contact = await findContact(m, caller.account_id, request.contact_id);
      const id = newId();
      await m.query(
        'INSERT INTO crm.calls (id, account_id, contact_id, author_id, text, call_result, call_time_int, via, phone_number, recording_link) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
        [
          id,
          caller.account_id,
          contact.id,
          caller.user_id,
          request.text ?? '',
          request.call_result ?? '',
          request.call_time_int ?? nowSeconds(),
          request.via ?? '',
          request.phone_number ?? '',
          request.recording_link ?? '',
        ],
      );
      if (request.attachments?.length) await replaceAttachments(m, caller.account_id, 'call', id, contact.id, request.attachments);
      await touchLastActivity(m, contact.id);
      const call = await this.load(m, caller.account_id, id);
      await writeEvent(m, {
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
  async update(caller: Caller, payload: unknown): Promise<CallReply> {
    const request = parseRecord(UpdateCallRequest, payload);
    const partial = request.partial === true;
    return this.dataSource.transaction(async (m) => {
      const current = await this.lock(m, caller.account_id, request.call_id);
      const pick = <T>(sent: T | null | undefined, currentValue: T, fallback: T): T =>
        sent === undefined ? (partial ? currentValue : fallback) : sent === null ? fallback : sent;
      await m.query(
        'UPDATE crm.calls SET text = $2, call_result = $3, call_time_int = $4, via = $5, phone_number = $6, recording_link = $7, modified_at = now() WHERE id = $1',
        [
          current.id,
          pick(request.text, current.text, ''),
          pick(request.call_result, current.call_result, ''),
          pick<number>(request.call_time_int, Number(current.call_time_int), nowSeconds()),
          pick(request.via, current.via, ''),
          pick(request.phone_number, current.phone_number, ''),
          pick(request.recording_link, current.recording_link, ''),
        ],
      );
      const attachments = request.attachments !== undefined ? (request.attachments ?? []) : partial ? null : [];
      if (attachments !== null) await replaceAttachments(m, caller.account_id, 'call', current.id, current.contact_id, attachments);
      const call = await this.load(m, caller.account_id, current.id);
      await writeEvent(m, {
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

  async delete(caller: Caller, payload: unknown): Promise<Record<string, never>> {
    const { call_id } = parseRecord(CallIdRequest, payload);
    return this.dataSource.transaction(async (m) => {
      const current = await this.lock(m, caller.account_id, call_id);
      await m.query('DELETE FROM crm.calls WHERE id = $1', [current.id]);
      await deleteAttachments(m, current.id);
      await writeEvent(m, {
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

  private async load(m: EntityManager, accountId: string, callId: string): Promise<CallDto> {
    const id = normalizeId(callId);
    const [row]: CallRow[] = id
      ? await m.query(`${CALL_SELECT} WHERE l.id = $1 AND l.account_id = $2 AND c.deleted_at IS NULL`, [id, accountId])
      : [];
    if (!row) throw ApiError.notFound('Call not found');
    return toCallDto(row);
  }

  private async lock(m: EntityManager, accountId: string, callId: string): Promise<StoredCall> {
    const id = normalizeId(callId);
    const [row]: StoredCall[] = id
      ? await m.query(
          'SELECT l.id, l.contact_id, l.text, l.call_result, l.call_time_int, l.via, l.phone_number, l.recording_link, c.status_id AS c_status_id FROM crm.calls l JOIN crm.contacts c ON c.id = l.contact_id WHERE l.id = $1 AND l.account_id = $2 AND c.deleted_at IS NULL FOR UPDATE OF l',
          [id, accountId],
        )
      : [];
    if (!row) throw ApiError.notFound('Call not found');
    return row;
  }
}
