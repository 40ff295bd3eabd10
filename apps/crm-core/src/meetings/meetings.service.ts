import { Injectable } from '@nestjs/common';
import { newId } from '@crm/common';
import {
  ApiError,
  type Caller,
  type CreateMeetingRequest,
  type ListMeetingsReply,
  type ListMeetingsRequest,
  type MeetingDto,
  type MeetingIdRequest,
  type MeetingReply,
  type UpdateMeetingRequest,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import type { Db } from '../common/sql';
import { writeEvent } from '../outbox/outbox';
import { deleteAttachments, replaceAttachments } from '../records/attachments.repository';
import { normalizeId, pick, replacedList, resultIndex } from '../records/record-common';
import { findContact, touchLastActivity } from '../records/record-references.repository';
import { toMeetingDto } from './meeting.view';
import { NotificationsService } from '../notifications/notifications.service';
import { MeetingsRepository, type LockedMeeting } from './meetings.repository';
import { assertIfMatch } from '../common/if-match.repository';

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Meetings with contacts (decisions.md "Deals and actions"). */
@Injectable()
export class MeetingsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly meetings: MeetingsRepository,
    private readonly notifications: NotificationsService,
  ) {}

  async list(caller: Caller, request: ListMeetingsRequest): Promise<ListMeetingsReply> {
    const { rows, page } = await this.meetings.list(this.dataSource.manager, caller.account_id, request);
    return { meetings: rows.map((row, i) => ({ meeting: toMeetingDto(row, resultIndex(page, i)) })), ...page };
  }

  async get(caller: Caller, request: MeetingIdRequest): Promise<MeetingReply> {
    return { meeting: await this.load(this.dataSource.manager, caller.account_id, request.meeting_id) };
  }

  /** Logs a meeting (meeting_time_int defaults to now); the contact's last activity moves to now. */
  async create(caller: Caller, request: CreateMeetingRequest): Promise<MeetingReply> {
    return this.dataSource.transaction(async (tx) => {
      const contact = await findContact(tx, caller.account_id, request.contact_id);
      const id = newId();
      await this.meetings.insert(tx, id, caller.account_id, contact.id, caller.user_id, {
        text: request.text ?? '',
        meeting_time_int: request.meeting_time_int ?? nowSeconds(),
        place: request.place ?? '',
      });
      if (request.attachments?.length) await replaceAttachments(tx, caller.account_id, 'meeting', id, contact.id, request.attachments);
      await this.notifications.notifyOf(tx, caller, 'meeting', id, contact.id, request.user_ids_to_notify);
      await touchLastActivity(tx, contact.id);
      const meeting = await this.load(tx, caller.account_id, id);
      await writeEvent(tx, {
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
  async update(caller: Caller, request: UpdateMeetingRequest): Promise<MeetingReply> {
    const partial = request.partial === true;
    return this.dataSource.transaction(async (tx) => {
      const current = await this.lock(tx, caller.account_id, request.meeting_id);
      await this.meetings.update(tx, current.id, {
        text: pick(partial, request.text, current.text, ''),
        meeting_time_int: pick<number>(partial, request.meeting_time_int, Number(current.meeting_time_int), nowSeconds()),
        place: pick(partial, request.place, current.place, ''),
      });
      const attachments = replacedList(partial, request.attachments);
      if (attachments !== null) await replaceAttachments(tx, caller.account_id, 'meeting', current.id, current.contact_id, attachments);
      await this.notifications.notifyOf(tx, caller, 'meeting', current.id, current.contact_id, request.user_ids_to_notify);
      const meeting = await this.load(tx, caller.account_id, current.id);
      await writeEvent(tx, {
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

  async delete(caller: Caller, request: MeetingIdRequest): Promise<Record<string, never>> {
    return this.dataSource.transaction(async (tx) => {
      const current = await this.lock(tx, caller.account_id, request.meeting_id);
      await this.meetings.delete(tx, current.id);
      await deleteAttachments(tx, current.id);
      await this.notifications.forgetRecord(tx, caller, current.id);
      await writeEvent(tx, {
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

  private async load(db: Db, accountId: string, meetingId: string): Promise<MeetingDto> {
    const id = normalizeId(meetingId);
    const row = id ? await this.meetings.byId(db, accountId, id) : undefined;
    if (!row) throw ApiError.notFound('Meeting not found');
    return toMeetingDto(row);
  }

  private async lock(db: Db, accountId: string, meetingId: string): Promise<LockedMeeting> {
    const id = normalizeId(meetingId);
    const row = id ? await this.meetings.lock(db, accountId, id) : undefined;
    if (!row) throw ApiError.notFound('Meeting not found');
    await assertIfMatch(db, 'meetings', row.id);
    return row;
  }
}
