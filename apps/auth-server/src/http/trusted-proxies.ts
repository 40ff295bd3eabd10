import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { isIP } from 'node:net';

/** Names Express (proxy-addr) understands for the usual private ranges. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const MAX_ENTRIES = 100;

/** What is wrong with a list of trusted proxies (addresses, CIDRs or named ranges); empty when it is fine. */
export function trustedProxyProblems(entries: readonly string[]): string[] {
  if (entries.length > MAX_ENTRIES) return [`at most ${MAX_ENTRIES} entries`];
  const problems: string[] = [];
  for (const entry of entries) {
    if (NAMED_RANGES.has(entry)) continue;
    const [address, prefix, extra] = entry.split('/');
    const family = isIP(address);
    const maxPrefix = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
    if (family === 0 || !prefixOk || extra !== undefined)
      problems.push(`"${entry}" is not an IP address, a CIDR (10.0.0.0/8, fd00::/8) or one of loopback, linklocal, uniquelocal`);
  }
  return problems;
}

/** Express's `trust proxy` setting: false (the TCP peer is the client) unless proxies are listed. */
export function trustProxySetting(entries: readonly string[]): false | string[] {
  return entries.length > 0 ? [...entries] : false;
}

/**
 * Rewrites the forwarding headers of every request before anything reads them. oidc-provider
 * (Koa, `proxy = true`) builds its URLs from X-Forwarded-Proto and -Host and takes its client
 * address from X-Forwarded-For; Koa cannot restrict that to some peers. So what Koa sees is ours:
 * the issuer's scheme and host whatever the client sent, and the one client address Express
 * computed by walking X-Forwarded-For only through the trusted proxies (the TCP peer when none is
 * trusted). Express recomputes `req.ip` from the rewritten header to the same address.
 */
export function forwardedHeaders(issuer: string): RequestHandler {
  const { protocol, host } = new URL(issuer);
  const proto = protocol.replace(/:$/, '');
  return (req: Request, _res: Response, next: NextFunction) => {
    const client = req.ip;
    if (client) req.headers['x-forwarded-for'] = client;
    else delete req.headers['x-forwarded-for'];
    req.headers['x-forwarded-proto'] = proto;
    req.headers['x-forwarded-host'] = host;
    delete req.headers.forwarded;
    next();
  };
}

/**
 * The part of a client address that identifies one source for throttling: an IPv4 address
 * (IPv4-mapped IPv6 included), or the /64 prefix of an IPv6 address, since one subscriber
 * usually holds a whole /64 and could otherwise rotate through it.
 */
export function throttleSource(address: string | undefined): string {
  if (!address) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (isIP(address) !== 6) return address;
  const groups = expandIpv6(address);
  return groups ? `${groups.slice(0, 4).join(':')}::/64` : address;
}

function expandIpv6(address: string): string[] | null {
  const [head, tail, extra] = address.toLowerCase().split('::');
  if (extra !== undefined) return null;
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  // An embedded IPv4 tail (::1.2.3.4) counts as two groups; only the first four groups matter here.
  const last = right.length > 0 ? right[right.length - 1] : left[left.length - 1];
  const width = last?.includes('.') ? 7 : 8;
  const missing = tail === undefined ? 0 : width - left.length - right.length;
  if (missing < 0) return null;
  return [...left, ...Array<string>(missing).fill('0'), ...right].map((g) => (g.includes('.') ? g : String(parseInt(g, 16).toString(16))));
}
