import { isPrivateAddress, literalPrivateHost } from './address-guard';

describe('webhook address guard', () => {
  it('refuses private, loopback, link-local and metadata addresses, in any notation URL parsing allows', () => {
    for (const url of ['http://127.0.0.1/x', 'http://2130706433/', 'http://0x7f.1/', 'http://10.1.2.3', 'https://172.20.0.1', 'http://192.168.1.1:8080', 'http://169.254.169.254/latest/meta-data', 'http://[::1]/', 'http://[::ffff:127.0.0.1]/', 'http://[fd00::1]/', 'http://[fe80::1]/', 'http://localhost:3000', 'http://api.localhost', 'http://metadata.google.internal/', 'http://0.0.0.0/', 'http://100.64.0.1/']) {
      expect([url, literalPrivateHost(url)]).toEqual([url, expect.stringContaining('private')]);
    }
  });

  it('accepts public addresses and names, and refuses credentials in the URL', () => {
    for (const url of ['https://hooks.example.com/crm', 'http://93.184.216.34/', 'https://[2606:4700::1111]/', 'https://172.32.0.1/']) expect(literalPrivateHost(url)).toBeNull();
    expect(literalPrivateHost('https://user:pw@hooks.example.com/')).toBe('must not contain credentials');
    expect(isPrivateAddress('8.8.8.8')).toBe(false);
    expect(isPrivateAddress('not an ip')).toBe(false);
  });
});
