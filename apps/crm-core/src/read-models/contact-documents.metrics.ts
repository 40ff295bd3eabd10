import { Counter, Gauge, type Registry } from 'prom-client';
import { perScrape } from '../common/per-scrape';

/**
 * Prometheus metrics of the contact document projector (decisions.md "Contact documents"):
 * documents rendered, steps that failed (their work is put back and tried again), and what is left
 * (queue entries, account sweeps) read at scrape time, one query for both.
 */
export class ContactDocumentMetrics {
  readonly rendered: Counter<string>;
  readonly failures: Counter<string>;

  constructor(registry: Registry, backlog: () => Promise<{ queued: number; sweeps: number }>) {
    this.rendered = new Counter({
      name: 'crm_contact_documents_rendered_total',
      help: 'Contact documents rendered and stored by this replica',
      registers: [registry],
    });
    this.failures = new Counter({
      name: 'crm_contact_documents_step_failures_total',
      help: 'Projector steps that failed (their contacts stay queued and are tried again; reads render those contacts from their rows)',
      registers: [registry],
    });
    // One query per scrape for both gauges.
    const counts = perScrape(backlog);
    new Gauge({
      name: 'crm_contact_documents_queued',
      help: 'Contacts queued for their document to be rendered (read at scrape time)',
      registers: [registry],
      async collect() {
        const c = await counts();
        if (c) this.set(c.queued);
      },
    });
    new Gauge({
      name: 'crm_contact_documents_sweeps',
      help: "Accounts whose documents are being rendered again after a change of a status's, lead source's or tag's name or of a field definition (read at scrape time)",
      registers: [registry],
      async collect() {
        const c = await counts();
        if (c) this.set(c.sweeps);
      },
    });
  }
}
