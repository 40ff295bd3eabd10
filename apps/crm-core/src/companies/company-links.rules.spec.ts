import { assertLinkable, assertLinkRoom, MAX_LINKED_CONTACTS } from './company.rules';

describe('company links', () => {
  it("a company's own contact cannot be linked to it; a contact of another company or none can", () => {
    expect(() => assertLinkable('c1', 'c1')).toThrow(
      expect.objectContaining({ errors: { contact_id: expect.stringMatching(/already belongs/) } }),
    );
    expect(() => assertLinkable('c1', 'c2')).not.toThrow();
    expect(() => assertLinkable('c1', null)).not.toThrow();
  });

  it('a company holds at most 100 links, counted after the new one', () => {
    expect(MAX_LINKED_CONTACTS).toBe(100);
    expect(() => assertLinkRoom(100)).not.toThrow();
    expect(() => assertLinkRoom(101)).toThrow(expect.objectContaining({ errors: { contact_id: expect.stringMatching(/at most 100/) } }));
  });
});
