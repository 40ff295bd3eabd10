import { JsonFragment, sharedJson, stringifyWithFragments } from './json-fragment';

class Stored extends JsonFragment {
  constructor(private readonly text: string) {
    super();
  }
  fragmentJson(): string {
    return this.text;
  }
}

describe('stringifyWithFragments', () => {
  it('splices each fragment’s text where the value is, in objects and arrays, at any depth', () => {
    const value = { a: new Stored('{"x":1,"y":"two"}'), list: [new Stored('[1,2]'), 3, { deep: new Stored('"s"') }], z: null };
    const text = stringifyWithFragments(value);
    expect(text).toBe('{"a":{"x":1,"y":"two"},"list":[[1,2],3,{"deep":"s"}],"z":null}');
  });

  it('gives the same JSON as JSON.stringify, where a fragment parses its text', () => {
    const value = { contact: new Stored('{"name":"Ann \\"A\\" \\u0001","n":[1,{"k":true}]}'), other: 'x' };
    expect(stringifyWithFragments(value)).toBe(JSON.stringify(value));
    expect(JSON.parse(JSON.stringify(value))).toEqual({ contact: { name: 'Ann "A" \u0001', n: [1, { k: true }] }, other: 'x' });
  });

  it('leaves strings that look like placeholders alone: the nonce is not guessable', () => {
    const lookalike = '\u00010123456789abcdef01234567:0';
    const value = { s: lookalike, f: new Stored('{"ok":1}') };
    expect(JSON.parse(stringifyWithFragments(value))).toEqual({ s: lookalike, f: { ok: 1 } });
  });

  it('serializes values without fragments exactly as JSON.stringify does', () => {
    const value = { a: [1, 'two', { three: 3 }], b: 'é\n"' };
    expect(stringifyWithFragments(value)).toBe(JSON.stringify(value));
  });

  it('refuses a value with no JSON text', () => {
    expect(() => stringifyWithFragments(undefined)).toThrow(TypeError);
  });
});

describe('sharedJson', () => {
  it('serializes an object held in several places once, spliced in each, as JSON.stringify would', () => {
    let rendered = 0;
    class Counted extends Stored {
      override fragmentJson(): string {
        rendered += 1;
        return super.fragmentJson();
      }
    }
    const company = sharedJson({ id: 'k1', name: 'Acme "A"', contacts: [{ contact: new Counted('{"id":"c1"}') }] });
    const reply = [{ company }, { company }, { company }];
    const text = stringifyWithFragments(reply);
    // The company's text (with its contact's) was made once, for three places.
    expect(rendered).toBe(1);
    const expected = { company: { id: 'k1', name: 'Acme "A"', contacts: [{ contact: { id: 'c1' } }] } };
    expect(JSON.parse(text)).toEqual([expected, expected, expected]);
    expect(text).toBe(JSON.stringify(reply));
  });

  it('reads as the object it copies', () => {
    const shared = sharedJson({ id: 'k1', contacts_count: 3 });
    expect(shared.id).toBe('k1');
    expect(shared.contacts_count).toBe(3);
    expect({ ...shared }).toEqual({ id: 'k1', contacts_count: 3 });
  });
});
