import { Injectable } from '@nestjs/common';
import { newId } from '@crm/common';
import {
  ApiError,
  CreateMeetingRequest,
  ListMeetingsRequest,
  MeetingIdRequest,
  UpdateMeetingRequest,
  type Caller,
  type ListMeetingsReply,
  type MeetingDto,
  type MeetingReply,
} from '@crm/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { writeEvent } from '../outbox/outbox';
import { deleteAttachments, replaceAttachments } from '../records/attachments';
import { findContact, normalizeId, parseRecord } from '../records/record-common';
import { listPage, touchLastActivity } from '../records/record-list';
import { MEETING_SELECT, toMeetingDto, type MeetingRow } from './meeting.serializer';

interface StoredMeeting {
  id: string;
  contact_id: string;
  text: string;
  meeting_time_int: string;
  place: string;
  c_status_id: string;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Meetings with contacts (decisions.md "Deals and actions"). */
@Injectable()
export class MeetingsService {
  constructor(private readonly dataSource: DataSource) {}

  async list(caller: Caller, payload: unknown): Promise<ListMeetingsReply> {
    const request = parseRecord(ListMeetingsRequest, payload);
    const { rows, page } = await listPage<MeetingRow>(this.dataSource.manager, caller.account_id, request, {
      select: MEETING_SELECT,
      table: 'crm.meetings',
      alias: 'g',
      defaultOrder: 'g.meeting_time_int DESC, g.id DESC',
    });
    return {
      meetings: rows.map((row) => ({ meeting: toMeetingDto(row) })),
      ...page,
    };
  }

  async get(caller: Caller, payload: unknown): Promise<MeetingReply> {
    const { meeting_id } = parseRecord(MeetingIdRequest, payload);
    return {
      meeting: await this.load(this.dataSource.manager, caller.account_id, meeting_id),
    };
  }

  /** Logs a meeting (meeting_time_int defaults to now); the contact's last activity moves to now. */
  async create(caller: Caller, payload: unknown): Promise<MeetingReply> {
    const request = parseRecord(CreateMeetingRequest, payload);
    return this.dataSource.transaction(async (m) => {
      const contact = await findContact(m, caller.account_id, request.contact_id);
      const id = newId();
      await m.query(
        'INSERT INTO crm.meetings (id, account_id, contact_id, author_id, text, meeting_time_int, place) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [
          id,
          caller.account_id,
          contact.id,
          caller.user_id,
          request.text ?? '',
          request.meeting_time_int ?? nowSeconds(),
          request.place ?? '',
        ],
      );
      if (request.attachments?.length) await replaceAttachments(m, caller.account_id, 'meeting', id, contact.id, request.attachments);
      await touchLastActivity(m, contact.id);
      const meeting = await this.load(m, caller.account_id, id);
      await writeEvent(m, {
        account_id: caller.account_id,
        type: 'meeting',
        reason: 'created',
        record_id: id,
        contact_status_id: contact.status_id,
        data: { meeting },
      });
      return { meeting };
    });
  }

  /** PUT: absent fields are cleared (meeting_time_int: now); partial=true: only the fields sent change. */
  async update(caller: Caller, payload: unknown): Promise<MeetingReply> {
    const request = parseRecord(UpdateMeetingRequest, payload);
    const partial = request.partial === true;
    return this.dataSource.transaction(async (m) => {
      const current = await this.lock(m, caller.account_id, request.meeting_id);
      const pick = <T>(sent: T | null | undefined, currentValue: T, fallback: T): T =>
        sent === undefined ? (partial ? currentValue : fallback) : sent === null ? fallback : sent;
      await m.query('UPDATE crm.meetings SET text = $2, meeting_time_int = $3, place = $4, modified_at = now() WHERE id = $1', [
        current.id,
        pick(request.text, current.text, ''),
        pick<number>(request.meeting_time_int, Number(current.meeting_time_int), nowSeconds()),
        pick(request.place, current.place, ''),
      ]);
      const attachments = request.attachments !== undefined ? (request.attachments ?? []) : partial ? null : [];
      if (attachments !== null) await replaceAttachments(m, caller.account_id, 'meeting', current.id, current.contact_id, attachments);
      const meeting = await this.load(m, caller.account_id, current.id);
      await writeEvent(m, {
        account_id: caller.account_id,
        type: 'meeting',
        reason: 'updated',
        record_id: current.id,
        contact_status_id: current.c_status_id,
        data: { meeting },
      });
      return { meeting };
    });
  }

  async delete(caller: Caller, payload: unknown): Promise<Record<string, never>> {
    const { meeting_id } = parseRecord(MeetingIdRequest, payload);
    return this.dataSource.transaction(async (m) => {
      const current = await this.lock(m, caller.account_id, meeting_id);
      await m.query('DELETE FROM crm.meetings WHERE id = $1', [current.id]);
      await deleteAttachments(m, current.id);
      await writeEvent(m, {
        account_id: caller.account_id,
        type: 'meeting',
        reason: 'deleted',
        record_id: current.id,
        contact_status_id: current.c_status_id,
        data: { id: current.id },
      });
      return {};
    });
  }

  private async load(m: EntityManager, accountId: string, meetingId: string): Promise<MeetingDto> {
    const id = normalizeId(meetingId);
    const [row]: MeetingRow[] = id
      ? await m.query(`${MEETING_SELECT} WHERE g.id = $1 AND g.account_id = $2 AND c.deleted_at IS NULL`, [id, accountId])
      : [];
    if (!row) throw ApiError.notFound('Meeting not found');
    return toMeetingDto(row);
  }

  private async lock(m: EntityManager, accountId: string, meetingId: string): Promise<StoredMeeting> {
    const id = normalizeId(meetingId);
    const [row]: StoredMeeting[] = id
      ? await m.query(
          'SELECT g.id, g.contact_id, g.text, g.meeting_time_int, g.place, c.status_id AS c_status_id FROM crm.meetings g JOIN crm.contacts c ON c.id = g.contact_id WHERE g.id = $1 AND g.account_id = $2 AND c.deleted_at IS NULL FOR UPDATE OF g',
          [id, accountId],
        )
      : [];
    if (!row) throw ApiError.notFound('Meeting not found');
    return row;
  }
}
