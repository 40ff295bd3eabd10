import type { RouteDeclaration } from '../routes/route-declaration';
import { Subjects } from '../rpc/subjects';
import { ActionIdRequest, CreateActionRequest, ExternalActionRequest, ListActionsRequest, UpdateActionRequest } from './action.requests';
import {
  CallIdRequest,
  CreateCallRequest,
  CreateMeetingRequest,
  CreateNoteRequest,
  ListCallsRequest,
  ListMeetingsRequest,
  ListNotesRequest,
  MeetingIdRequest,
  NoteIdRequest,
  UpdateCallRequest,
  UpdateMeetingRequest,
  UpdateNoteRequest,
} from './activity.requests';
import { CreateDealRequest, DealIdRequest, ListDealsRequest, PatchDealRequest, UpdateDealRequest } from './deal.requests';

const DEALS = 'Deals';
const NOTES = 'Notes';
const CALLS = 'Calls';
const MEETINGS = 'Meetings';
const ACTIONS = 'Actions';

/**
 * Deals, notes, calls, meetings and actions (issue 5), with the per-contact lists and creates
 * under /contacts/{contact_id}/... (same subjects: the path's contact_id is merged into the request).
 */
export const RECORD_ROUTES: readonly RouteDeclaration[] = [
  // --- deals ---
  { operationId: 'listDeals', method: 'GET', path: '/deals', subject: Subjects.DealsList, access: 'read', request: ListDealsRequest, successStatus: 200, summary: "List the account's deals: filters by name, search, status (pending, won, lost, closed), stage, pipelines, owner, one of contact_id/company_id/tag/filter_id, time filters; fields=contacts(all), include_history", tag: DEALS },
  { operationId: 'createDeal', method: 'POST', path: '/deals', subject: Subjects.DealsCreate, access: 'write', request: CreateDealRequest, successStatus: 201, summary: 'Create a deal for the contact named by contact_id (as POST /contacts/{contact_id}/deals)', tag: DEALS },
  { operationId: 'getDeal', method: 'GET', path: '/deals/{deal_id}', subject: Subjects.DealsGet, access: 'read', request: DealIdRequest, successStatus: 200, summary: 'Get a deal', tag: DEALS },
  { operationId: 'updateDeal', method: 'PUT', path: '/deals/{deal_id}', subject: Subjects.DealsUpdate, access: 'write', request: UpdateDealRequest, successStatus: 200, summary: 'Replace a deal (name required; partial=true changes only the fields sent); a status change moves pending -> won/lost, reopens, or switches won <-> lost', tag: DEALS },
  { operationId: 'patchDeal', method: 'PATCH', path: '/deals/{deal_id}', subject: Subjects.DealsPatch, access: 'write', request: PatchDealRequest, successStatus: 200, summary: 'Change only the fields sent of a deal', tag: DEALS },
  { operationId: 'deleteDeal', method: 'DELETE', path: '/deals/{deal_id}', subject: Subjects.DealsDelete, access: 'write', request: DealIdRequest, successStatus: 200, summary: 'Delete a deal with its items', tag: DEALS },
  { operationId: 'listContactDeals', method: 'GET', path: '/contacts/{contact_id}/deals', subject: Subjects.DealsList, access: 'read', request: ListDealsRequest, successStatus: 200, summary: "List a contact's deals (deals whose primary contact it is)", tag: DEALS },
  { operationId: 'createContactDeal', method: 'POST', path: '/contacts/{contact_id}/deals', subject: Subjects.DealsCreate, access: 'write', request: CreateDealRequest, successStatus: 201, summary: 'Create a deal for a contact: status pending, date, expected_close_date and close_date today (UTC), owner the caller, name truncated to 60 characters', tag: DEALS },
  // --- notes ---
  { operationId: 'listNotes', method: 'GET', path: '/notes', subject: Subjects.NotesList, access: 'read', request: ListNotesRequest, successStatus: 200, summary: "List the account's notes (newest date first)", tag: NOTES },
  { operationId: 'createNote', method: 'POST', path: '/notes', subject: Subjects.NotesCreate, access: 'write', mcpWrite: true, request: CreateNoteRequest, successStatus: 201, summary: "Log a note on a contact (updates the contact's last activity date; user_ids_to_notify get a notification)", tag: NOTES },
  { operationId: 'getNote', method: 'GET', path: '/notes/{note_id}', subject: Subjects.NotesGet, access: 'read', request: NoteIdRequest, successStatus: 200, summary: 'Get a note', tag: NOTES },
  { operationId: 'updateNote', method: 'PUT', path: '/notes/{note_id}', subject: Subjects.NotesUpdate, access: 'write', request: UpdateNoteRequest, successStatus: 200, summary: 'Replace a note (text required; partial=true changes only the fields sent)', tag: NOTES },
  { operationId: 'deleteNote', method: 'DELETE', path: '/notes/{note_id}', subject: Subjects.NotesDelete, access: 'write', request: NoteIdRequest, successStatus: 200, summary: 'Delete a note', tag: NOTES },
  { operationId: 'listContactNotes', method: 'GET', path: '/contacts/{contact_id}/notes', subject: Subjects.NotesList, access: 'read', request: ListNotesRequest, successStatus: 200, summary: "List a contact's notes", tag: NOTES },
  { operationId: 'createContactNote', method: 'POST', path: '/contacts/{contact_id}/notes', subject: Subjects.NotesCreate, access: 'write', request: CreateNoteRequest, successStatus: 201, summary: 'Log a note on a contact', tag: NOTES },
  // --- calls ---
  { operationId: 'listCalls', method: 'GET', path: '/calls', subject: Subjects.CallsList, access: 'read', request: ListCallsRequest, successStatus: 200, summary: "List the account's calls (newest first)", tag: CALLS },
  { operationId: 'createCall', method: 'POST', path: '/calls', subject: Subjects.CallsCreate, access: 'write', mcpWrite: true, request: CreateCallRequest, successStatus: 201, summary: 'Log a call with a contact (call_time_int defaults to now)', tag: CALLS },
  { operationId: 'getCall', method: 'GET', path: '/calls/{call_id}', subject: Subjects.CallsGet, access: 'read', request: CallIdRequest, successStatus: 200, summary: 'Get a call', tag: CALLS },
  { operationId: 'updateCall', method: 'PUT', path: '/calls/{call_id}', subject: Subjects.CallsUpdate, access: 'write', request: UpdateCallRequest, successStatus: 200, summary: 'Replace a call (partial=true changes only the fields sent)', tag: CALLS },
  { operationId: 'deleteCall', method: 'DELETE', path: '/calls/{call_id}', subject: Subjects.CallsDelete, access: 'write', request: CallIdRequest, successStatus: 200, summary: 'Delete a call', tag: CALLS },
  { operationId: 'listContactCalls', method: 'GET', path: '/contacts/{contact_id}/calls', subject: Subjects.CallsList, access: 'read', request: ListCallsRequest, successStatus: 200, summary: "List a contact's calls", tag: CALLS },
  { operationId: 'createContactCall', method: 'POST', path: '/contacts/{contact_id}/calls', subject: Subjects.CallsCreate, access: 'write', request: CreateCallRequest, successStatus: 201, summary: 'Log a call with a contact', tag: CALLS },
  // --- meetings ---
  { operationId: 'listMeetings', method: 'GET', path: '/meetings', subject: Subjects.MeetingsList, access: 'read', request: ListMeetingsRequest, successStatus: 200, summary: "List the account's meetings (newest first)", tag: MEETINGS },
  { operationId: 'createMeeting', method: 'POST', path: '/meetings', subject: Subjects.MeetingsCreate, access: 'write', request: CreateMeetingRequest, successStatus: 201, summary: 'Log a meeting with a contact (meeting_time_int defaults to now)', tag: MEETINGS },
  { operationId: 'getMeeting', method: 'GET', path: '/meetings/{meeting_id}', subject: Subjects.MeetingsGet, access: 'read', request: MeetingIdRequest, successStatus: 200, summary: 'Get a meeting', tag: MEETINGS },
  { operationId: 'updateMeeting', method: 'PUT', path: '/meetings/{meeting_id}', subject: Subjects.MeetingsUpdate, access: 'write', request: UpdateMeetingRequest, successStatus: 200, summary: 'Replace a meeting (partial=true changes only the fields sent)', tag: MEETINGS },
  { operationId: 'deleteMeeting', method: 'DELETE', path: '/meetings/{meeting_id}', subject: Subjects.MeetingsDelete, access: 'write', request: MeetingIdRequest, successStatus: 200, summary: 'Delete a meeting', tag: MEETINGS },
  { operationId: 'listContactMeetings', method: 'GET', path: '/contacts/{contact_id}/meetings', subject: Subjects.MeetingsList, access: 'read', request: ListMeetingsRequest, successStatus: 200, summary: "List a contact's meetings", tag: MEETINGS },
  { operationId: 'createContactMeeting', method: 'POST', path: '/contacts/{contact_id}/meetings', subject: Subjects.MeetingsCreate, access: 'write', request: CreateMeetingRequest, successStatus: 201, summary: 'Log a meeting with a contact', tag: MEETINGS },
  // --- actions ---
  { operationId: 'listActions', method: 'GET', path: '/actions', subject: Subjects.ActionsList, access: 'read', request: ListActionsRequest, successStatus: 200, summary: "List the account's actions: filters by contact_id, assignee_id, status, done and time", tag: ACTIONS },
  { operationId: 'createAction', method: 'POST', path: '/actions', subject: Subjects.ActionsCreate, access: 'write', mcpWrite: true, request: CreateActionRequest, successStatus: 201, summary: "Create a next action (date, date_time, waiting: it replaces the assignee's current next action, which moves to the front of the queue) or a queued action (queued_with_date)", tag: ACTIONS },
  { operationId: 'upsertExternalAction', method: 'PUT', path: '/actions/external/{provider}/{external_id}', subject: Subjects.ActionsExternalUpsert, access: 'write', request: ExternalActionRequest, successStatus: 200, summary: 'Create (201) or update (200) the action mirroring an external event (externally_controlled true)', tag: ACTIONS },
  { operationId: 'getAction', method: 'GET', path: '/actions/{action_id}', subject: Subjects.ActionsGet, access: 'read', request: ActionIdRequest, successStatus: 200, summary: 'Get an action', tag: ACTIONS },
  { operationId: 'updateAction', method: 'PUT', path: '/actions/{action_id}', subject: Subjects.ActionsUpdate, access: 'write', request: UpdateActionRequest, successStatus: 200, summary: 'Replace an action (text required; partial=true changes only the fields sent); 409 for text, date, exact_time, status or done of an externally controlled action', tag: ACTIONS },
  { operationId: 'deleteAction', method: 'DELETE', path: '/actions/{action_id}', subject: Subjects.ActionsDelete, access: 'write', request: ActionIdRequest, successStatus: 200, summary: 'Delete an action (409 while externally controlled)', tag: ACTIONS },
  { operationId: 'markActionAsDone', method: 'PUT', path: '/actions/{action_id}/mark_as_done', subject: Subjects.ActionsMarkAsDone, access: 'write', mcpWrite: true, request: ActionIdRequest, successStatus: 200, summary: 'Complete an action (status done, done true, done_at today); a completed next action is followed by the first queued action', tag: ACTIONS },
  { operationId: 'undoActionCompletion', method: 'PUT', path: '/actions/{action_id}/undo_completion', subject: Subjects.ActionsUndoCompletion, access: 'write', request: ActionIdRequest, successStatus: 200, summary: 'Undo the completion of an action (its former status comes back)', tag: ACTIONS },
  { operationId: 'swapAction', method: 'PUT', path: '/actions/{action_id}/swap', subject: Subjects.ActionsSwap, access: 'write', request: ActionIdRequest, successStatus: 200, summary: 'Swap a queued action dated before the next action with it (both the caller\'s, else 403; no date conflict: 409)', tag: ACTIONS },
  { operationId: 'unlinkAction', method: 'PUT', path: '/actions/{action_id}/unlink', subject: Subjects.ActionsUnlink, access: 'write', request: ActionIdRequest, successStatus: 200, summary: 'Turn an externally controlled action into an ordinary one (nothing is sent to the provider)', tag: ACTIONS },
  { operationId: 'listContactActions', method: 'GET', path: '/contacts/{contact_id}/actions', subject: Subjects.ActionsList, access: 'read', request: ListActionsRequest, successStatus: 200, summary: "List a contact's actions", tag: ACTIONS },
  { operationId: 'createContactAction', method: 'POST', path: '/contacts/{contact_id}/actions', subject: Subjects.ActionsCreate, access: 'write', request: CreateActionRequest, successStatus: 201, summary: 'Create an action for a contact', tag: ACTIONS },
];
