import { createDataSource } from '@crm/database';
import type { DataSource } from 'typeorm';
import type { CrmCoreConfig } from '../config/crm-core.config';
import { InitCrm1763800000000 } from '../migrations/1763800000000-init-crm';
import { RelationshipTypes1764000100000 } from '../migrations/1764000100000-relationship-types';
import { PredefinedActions1764000200000 } from '../migrations/1764000200000-predefined-actions';
import { CrmRecords1764100000000 } from '../migrations/1764100000000-crm-records';
import { OutboxContactStatus1764100100000 } from '../migrations/1764100100000-outbox-contact-status';
import { ContactsCountIndex1764100300000 } from '../migrations/1764100300000-contacts-count-index';
import { RecordAttachments1764100500000 } from '../migrations/1764100500000-record-attachments';
import { DealsStatusCount1764100510000 } from '../migrations/1764100510000-deals-status-count';
import { RecordCounters1764200000000 } from '../migrations/1764200000000-record-counters';
import { DealsCompany1764200100000 } from '../migrations/1764200100000-deals-company';
import { ContactRelationshipsRelated1764100440000 } from '../migrations/1764100440000-contact-relationships-related';
import { Outbox1764000400000 } from '../migrations/1764000400000-outbox';
import { Fields1764000000000 } from '../migrations/1764000000000-fields';
import { OutboxParking1764300000000 } from '../migrations/1764300000000-outbox-parking';
import { OutboxStatistics1764300100000 } from '../migrations/1764300100000-outbox-statistics';
import { OutboxTraceContext1764300200000 } from '../migrations/1764300200000-outbox-trace-context';
import { CompanyCountersAccount1764400000000 } from '../migrations/1764400000000-company-counters-account';
import { StoredFiles1764500300000 } from '../migrations/1764500300000-stored-files';
import { RemainingOperations1764500700000 } from '../migrations/1764500700000-remaining-operations';
import { QueryParameterIndexes1764600500000 } from '../migrations/1764600500000-query-parameter-indexes';
import { OwnerContactCounters1764700000000 } from '../migrations/1764700000000-owner-contact-counters';
import { PredefinedActionGroupPosition1764800050000 } from '../migrations/1764800050000-predefined-action-group-position';
import { AsapActions1764800100000 } from '../migrations/1764800100000-asap-actions';
import { AccountSettings1764800200000 } from '../migrations/1764800200000-account-settings';
import { StatusTypeKeys1764800300000 } from '../migrations/1764800300000-status-type-keys';
import { DeletedActions1764800400000 } from '../migrations/1764800400000-deleted-actions';
import { QueuedActions1764800500000 } from '../migrations/1764800500000-queued-actions';
import { CallResultCounts1764800600000 } from '../migrations/1764800600000-call-result-counts';
import { ContactsFillfactor1764800700000 } from '../migrations/1764800700000-contacts-fillfactor';
import { ContactDocuments1764800800000 } from '../migrations/1764800800000-contact-documents';
import { RecordListOrders1764800900000 } from '../migrations/1764800900000-record-list-orders';
import { ContactGroupCounters1764801000000 } from '../migrations/1764801000000-contact-group-counters';
import { StreamTagCounters1764801100000 } from '../migrations/1764801100000-stream-tag-counters';
import { BulkContactUpdates1764801200000 } from '../migrations/1764801200000-bulk-contact-updates';
import { BootstrapReads1764801300000 } from '../migrations/1764801300000-bootstrap-reads';
import { IdempotencyKeys1764801400000 } from '../migrations/1764801400000-idempotency-keys';
import { UploadForms1764801500000 } from '../migrations/1764801500000-upload-forms';

export const CRM_SCHEMA = 'crm';

/** The crm schema: every entity and migration of this bounded context. */
export function crmDataSource(config: CrmCoreConfig): DataSource {
  return createDataSource({
    url: config.databaseUrl,
    schema: CRM_SCHEMA,
    // No TypeORM entities: every statement is an sql`` template in a repository.
    entities: [],
    migrations: [
      InitCrm1763800000000,
      // fields (issue 4): 1764000000000
      Fields1764000000000,
      RelationshipTypes1764000100000,
      PredefinedActions1764000200000,
      Outbox1764000400000,
      // contacts, companies, configuration, deals, notes, calls, meetings, actions (issues 3-5)
      CrmRecords1764100000000,
      OutboxContactStatus1764100100000,
      ContactsCountIndex1764100300000,
      ContactRelationshipsRelated1764100440000,
      RecordAttachments1764100500000,
      DealsStatusCount1764100510000,
      // issue 12: counters kept in the writing transaction
      RecordCounters1764200000000,
      DealsCompany1764200100000,
      // issue 16: the outbox keeps order per record and parks what cannot be published
      OutboxParking1764300000000,
      OutboxStatistics1764300100000,
      // issue 15: the request id and traceparent travel with the event
      OutboxTraceContext1764300200000,
      // issue 15: every table carries its account (docs/scaling.md)
      CompanyCountersAccount1764400000000,
      // issue 13: attachments' bytes in storage (decisions.md "Attachments")
      StoredFiles1764500300000,
      // issue 13: the rest of OnePageCRM's operations
      RemainingOperations1764500700000,
      // issue 13, item 5: indexes for GET /companies?letter= and ?phone=
      QueryParameterIndexes1764600500000,
      // issue 17: GET /contacts reads its total from stored per-owner counters
      OwnerContactCounters1764700000000,
      // issue 13, item 4: predefined action groups keep OnePageCRM's position
      PredefinedActionGroupPosition1764800050000,
      // issue 13, item 4: actions' asap status
      AsapActions1764800100000,
      // issue 13, item 4: OnePageCRM's account settings, account type and cost setup
      AccountSettings1764800200000,
      // issue 13, item 4: statuses' type keys (status) and display names (text), as OnePageCRM's
      StatusTypeKeys1764800300000,
      // issue 13: DELETE /actions/{id}?undo=true restores a deleted action
      DeletedActions1764800400000,
      // issue 13, item 4: actions' queued status (queued without a date)
      QueuedActions1764800500000,
      // issue 13, item 4: GET /call_results counts calls per author and result
      CallResultCounts1764800600000,
      // issue 17: room on contacts' pages for HOT updates (last activity, deal counters)
      ContactsFillfactor1764800700000,
      // issue 17: contact documents (the rendered contact, kept current by versions)
      ContactDocuments1764800800000,
      // record lists (notes, calls, meetings, deals, actions) page in their default order
      RecordListOrders1764800900000,
      // the summary blocks' contact counts, kept per group (owner, status, lead source, letter, ...)
      ContactGroupCounters1764801000000,
      // the summary blocks' action-stream and tag counts, kept per group
      StreamTagCounters1764801100000,
      // bulk contact updates stay linear (a change test of migration 1764200100000 was quadratic)
      BulkContactUpdates1764801200000,
      // GET /bootstrap's next_action_dates reads the caller's latest dated next actions in order
      BootstrapReads1764801300000,
      // a write's Idempotency-Key and outcome, recorded in the write's transaction
      IdempotencyKeys1764801400000,
      // upload forms: the one key each may store under, its quota reservation and expiry
      UploadForms1764801500000,
    ],
    poolSize: config.DATABASE_POOL_SIZE,
    applicationName: 'crm-core',
    // Every statement of crm-core is an index-driven lookup or page: one plan per text, not one per call.
    planCacheMode: 'force_generic_plan',
  });
}
