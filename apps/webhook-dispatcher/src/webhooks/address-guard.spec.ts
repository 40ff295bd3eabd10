import { guardedLookup, isPrivateAddress, literalPrivateHost, PrivateAddressError, refusedLiteralAddress } from './address-guard';

describe('webhook address guard', () => {
  it('refuses private, loopback, link-local and metadata addresses, in any notation URL parsing allows', () => {
    for (const url of [
      'http://127.0.0.1/x',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://10.1.2.3',
      'https://172.20.0.1',
      'http://192.168.1.1:8080',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[fd00::1]/',
      'http://[fe80::1]/',
      'http://localhost:3000',
      'http://api.localhost',
      'http://metadata.google.internal/',
      'http://0.0.0.0/',
      'http://100.64.0.1/',
    ]) {
      expect([url, literalPrivateHost(url)]).toEqual([url, expect.stringContaining('private')]);
    }
  });

  it('refuses IPv6 forms that embed or translate to IPv4, and site-local: only global unicast passes', () => {
    for (const url of [
      'http://[::127.0.0.1]/', // IPv4-compatible ::a.b.c.d (::/96)
      'http://[::10.0.0.1]/',
      'http://[::8.8.8.8]/', // ::/96 is not global unicast, whatever it embeds
      'http://[64:ff9b::127.0.0.1]/', // NAT64 64:ff9b::/96
      'http://[64:ff9b::8.8.8.8]/',
      'http://[2002:7f00:1::]/', // 6to4 2002::/16 (127.0.0.1 inside)
      'http://[2002:808:808::]/',
      'http://[::ffff:0:7f00:1]/', // SIIT ::ffff:0:0:0/96
      'http://[fec0::1]/', // deprecated site-local fec0::/10
      'http://[2001::1]/', // Teredo
      'http://[2001:db8::1]/', // documentation
      'http://[100::1]/', // discard-only
      'http://[ff02::1]/',
      'http://[::]/',
      'http://198.18.0.1/',
      'http://255.255.255.255/',
      'http://192.0.2.1/',
    ]) {
      expect([url, literalPrivateHost(url)]).toEqual([url, expect.stringContaining('private')]);
    }
    expect(isPrivateAddress('fe80::1%eth0')).toBe(true);
    expect(isPrivateAddress('::ffff:8.8.8.8')).toBe(false); // IPv4-mapped: judged by its IPv4 address
    expect(isPrivateAddress('::ffff:192.168.0.1')).toBe(true);
  });

  it('accepts public addresses and names, and refuses credentials in the URL', () => {
    for (const url of ['https://hooks.example.com/crm', 'http://93.184.216.34/', 'https://[2606:4700::1111]/', 'https://172.32.0.1/'])
      expect(literalPrivateHost(url)).toBeNull();
    expect(literalPrivateHost('https://user:pw@hooks.example.com/')).toBe('must not contain credentials');
    expect(isPrivateAddress('8.8.8.8')).toBe(false);
    expect(isPrivateAddress('not an ip')).toBe(false);
  });

  const lookupOnce = (lookup: ReturnType<typeof guardedLookup>, host: string, all: boolean) =>
    new Promise<{ error: Error | null; address: unknown }>((resolve) =>
      lookup(host, { all }, (error, address) => resolve({ error, address })),
    );

  it('refuses a name that resolves to a private address at connect time (real resolver)', async () => {
    const { error } = await lookupOnce(guardedLookup(false), 'localhost', false);
    expect(error).toBeInstanceOf(PrivateAddressError);
    const allowed = await lookupOnce(guardedLookup(true), 'localhost', false);
    expect(allowed.error).toBeNull();
    expect(isPrivateAddress(allowed.address as string)).toBe(true);
  });

  it('connects to the address it checked, whatever the name resolves to next (DNS rebinding)', async () => {
    const answers = [
      [{ address: '93.184.216.34', family: 4 }],
      [{ address: '127.0.0.1', family: 4 }],
      [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ],
    ];
    let call = 0;
    const lookup = guardedLookup(false, (_host, _options, callback) => callback(null, answers[call++]));
    expect(await lookupOnce(lookup, 'rebind.example', false)).toEqual({ error: null, address: '93.184.216.34' });
    expect((await lookupOnce(lookup, 'rebind.example', true)).error).toBeInstanceOf(PrivateAddressError);
    // One private address among public ones is enough to refuse: the socket might pick it.
    expect((await lookupOnce(lookup, 'rebind.example', true)).error).toBeInstanceOf(PrivateAddressError);
  });

  it('refuses literal private addresses unless allowed', () => {
    expect(refusedLiteralAddress('127.0.0.1', false)).toBeInstanceOf(PrivateAddressError);
    expect(refusedLiteralAddress('[::1]', false)).toBeInstanceOf(PrivateAddressError);
    expect(refusedLiteralAddress('127.0.0.1', true)).toBeNull();
    expect(refusedLiteralAddress('93.184.216.34', false)).toBeNull();
    expect(refusedLiteralAddress('hooks.example.com', false)).toBeNull();
  });
});
