import { lookup } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Host names that always mean this machine or a cloud metadata service. */
const PRIVATE_NAMES = /^(localhost|.*\.localhost|metadata\.google\.internal|metadata|instance-data)\.?$/i;

/** Global unicast IPv6 (RFC 4291 2000::/3); everything else (::/96 IPv4-compatible, fec0::/10 site-local...) is refused. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Only global unicast is reachable: an IPv4 address outside every special range of ipaddr.js
 * (private, loopback, link-local, CGNAT, multicast, reserved, benchmarking...), or an IPv6 address
 * inside 2000::/3 and outside its special ranges. IPv6 forms that embed or translate to an IPv4
 * address (6to4 2002::/16, NAT64 64:ff9b::/96, Teredo, SIIT ::ffff:0:0:0/96) are refused whatever
 * they embed; an IPv4-mapped address (::ffff:a.b.c.d) is judged by its IPv4 address.
 */
function globalUnicast(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() === 'unicast';
  return v6.match(GLOBAL_UNICAST_V6) && v6.range() === 'unicast';
}

/** True for an IP address a webhook must not reach: anything but global unicast (decisions.md). */
export function isPrivateAddress(address: string): boolean {
  if (isIP(address) === 0) return false;
  // A zone index (fe80::1%eth0) only scopes addresses of a local link.
  return address.includes('%') || !globalUnicast(address);
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
