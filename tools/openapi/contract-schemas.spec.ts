import { FIELD_DOCS, REPLY_SCHEMAS } from '@crm/contracts';
import { generateContractSchemas } from './contract-schemas';

// The committed schemas are what the contracts' TypeScript says: change a DTO or a JSDoc and this
// fails until `npm run sdk:generate` is run (and the OpenAPI document and the SDK follow).
describe('contract-schemas.generated.ts', () => {
  const generated = generateContractSchemas();

  it('holds the reply schemas generated from ReplyTypes', () => {
    expect(REPLY_SCHEMAS).toEqual(generated.replies);
  });

  it('holds the JSDoc of the request classes', () => {
    expect(FIELD_DOCS).toEqual(generated.fieldDocs);
  });

  it('turns TypeScript into JSON schema: optional fields, null unions, string enums, nested names', () => {
    const deal = generated.replies.DealDto as { properties: Record<string, unknown>; required: string[] };
    expect(deal.properties.status).toEqual({ type: 'string', enum: ['pending', 'won', 'lost'] });
    expect(deal.properties.stage).toMatchObject({ type: 'number' });
    expect(deal.properties.last_stage).toEqual({ type: ['number', 'null'] });
    expect(deal.properties.deal_items).toEqual({ type: 'array', items: { $ref: '#/components/schemas/DealItemDto' } });
    expect(deal.required).toContain('stage');
    expect(deal.required).not.toContain('last_stage');
    expect(generated.replies.EmptyReply).toMatchObject({ type: 'object', additionalProperties: false });
    expect(generated.replies.ContactReply).toEqual({ $ref: '#/components/schemas/ContactWrapperDto' });
  });
});
