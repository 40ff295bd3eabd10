import { MAX_EVENT_DATA_BYTES } from '@crm/contracts';
import { boundEventData } from './event-size';

describe('boundEventData (events bounded in size when written)', () => {
  const id = 'c'.repeat(24);

  it('keeps data that fits exactly as serialized', () => {
    const data = { contact: { id, first_name: 'Ada' }, next_actions: [] };
    expect(boundEventData('contact', id, data)).toEqual({ json: JSON.stringify(data), truncatedFrom: null });
  });

  it('drops the sibling keys first when the record alone fits, and says so with truncated: true', () => {
    const data = { contact: { id, first_name: 'Ada' }, queued_actions: [{ text: 'x'.repeat(500) }] };
    const bounded = boundEventData('contact', id, data, 200);
    expect(JSON.parse(bounded.json)).toEqual({ contact: { id, first_name: 'Ada' }, truncated: true });
    expect(bounded.truncatedFrom).toBe(Buffer.byteLength(JSON.stringify(data)));
  });

  it('keeps only the id under the entity key when the record itself is too large', () => {
    const data = { company: { id, contacts: ['x'.repeat(500)] } };
    const bounded = boundEventData('company', id, data, 200);
    expect(JSON.parse(bounded.json)).toEqual({ company: { id }, truncated: true });
  });

  it('counts bytes, not characters: escaped and multi-byte text counts as sent', () => {
    // 50,000 control characters are 300,000 bytes of JSON (\u0001 each), over the default cap.
    const data = { note: { id, text: '\u0001'.repeat(50_000) } };
    expect(JSON.stringify(data).length).toBeGreaterThan(MAX_EVENT_DATA_BYTES);
    expect(JSON.parse(boundEventData('note', id, data).json)).toEqual({ note: { id }, truncated: true });
    const cjk = { note: { id, text: '漢'.repeat(90_000) } }; // 270,000 bytes in UTF-8
    expect(JSON.parse(boundEventData('note', id, cjk).json)).toEqual({ note: { id }, truncated: true });
    const fits = { note: { id, text: '漢'.repeat(80_000) } }; // 240,000 bytes
    expect(boundEventData('note', id, fits).truncatedFrom).toBeNull();
  });
});
