import { lookup } from 'node:dns';
import { isIP } from 'node:net';

/** Host names that always mean this machine or a cloud metadata service. */
const PRIVATE_NAMES = /^(localhost|.*\.localhost|metadata\.google\.internal|metadata|instance-data)\.?$/i;

function ipv4Private(address: string): boolean {
  const [a, b] = address.split('.').map(Number);
  return (
    a === 0 || // this network
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local, incl. 169.254.169.254 metadata
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0) ||
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    a >= 224 // multicast, reserved, broadcast
  );
}

function ipv6Private(address: string): boolean {
  const a = address.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) return ipv4Private(mapped[1]);
  // IPv4-mapped in hex form, as URL parsing writes it: ::ffff:7f00:1
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(a);
  if (hex) {
    const [hi, lo] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
    return ipv4Private(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  }
  if (a === '::' || a === '::1') return true;
  const first = parseInt(a.split(':')[0] || '0', 16);
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80 || (first & 0xff00) === 0xff00; // unique local, link-local, multicast
}

/** True for an IP address a webhook must not reach (private, loopback, link-local, metadata...). */
export function isPrivateAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 4) return ipv4Private(address);
  if (version === 6) return ipv6Private(address);
  return false;
}

/**
 * The reason a receiver URL is refused at registration: a literal private address or a name that
 * always means a private host (names are checked again on the resolved address at delivery).
 */
export function literalPrivateHost(hookUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(hookUrl);
  } catch {
    return 'is not a valid URL';
  }
  if (url.username || url.password) return 'must not contain credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isPrivateAddress(host) || PRIVATE_NAMES.test(host)) return 'points to a private, loopback, link-local or metadata address';
  return null;
}

/** A receiver's name resolved (or its literal address is) to an address webhooks must not reach. */
export class PrivateAddressError extends Error {
  readonly code = 'EPRIVATEADDRESS';

  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, a private, loopback, link-local or metadata address`);
    this.name = 'PrivateAddressError';
  }
}

type LookupAddress = { address: string; family: number };
type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
type Resolver = (
  hostname: string,
  options: { all: true; family?: number },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * A `lookup` for http(s).request that resolves the name once, refuses it when any address it
 * resolves to is private (unless allowed), and hands exactly the checked addresses to the socket:
 * the connection goes to the address that was checked, so a DNS answer that changes between the
 * check and the connect (rebinding) cannot slip through.
 */
export function guardedLookup(allowPrivate: boolean, resolve: Resolver = dnsLookup) {
  return (hostname: string, options: { all?: boolean; family?: number } | number, callback: LookupCallback): void => {
    const family = typeof options === 'number' ? options : options?.family;
    const all = typeof options === 'object' && options?.all === true;
    resolve(hostname, { all: true, ...(family ? { family } : {}) }, (error, addresses) => {
      if (error) return callback(error, all ? [] : '', undefined);
      if (addresses.length === 0)
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), all ? [] : '', undefined);
      if (!allowPrivate) {
        const refused = addresses.find((a) => isPrivateAddress(a.address));
        if (refused) return callback(new PrivateAddressError(hostname, refused.address), all ? [] : '', undefined);
      }
      if (all) callback(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

function dnsLookup(
  hostname: string,
  options: { all: true; family?: number },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
): void {
  lookup(hostname, options, callback);
}

/** A literal IP host of a receiver URL that must not be reached (names go through {@link guardedLookup}). */
export function refusedLiteralAddress(host: string, allowPrivate: boolean): PrivateAddressError | null {
  const bare = host.replace(/^\[|\]$/g, '');
  if (allowPrivate || isIP(bare) === 0 || !isPrivateAddress(bare)) return null;
  return new PrivateAddressError(host, bare);
}
