import { isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';

/** The eight 16-bit groups of an IPv6 address, a zone and an embedded dotted IPv4 tail allowed. */
function ipv6Groups(address: string): number[] {
  let text = address.replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const before = parse(head);
  const after = parse(tail);
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
}

/**
 * An address as the keyless rate limits know it: IPv4 as it is, an
 * IPv4-mapped IPv6 address as its IPv4 address, and any other IPv6 address by
 * its /64, since one subscriber commonly holds a whole /64. Undefined for a
 * value that is no IP address.
 */
export function limitedAddressOf(ip: string | undefined): string | undefined {
  const family = ip === undefined ? 0 : isIP(ip);
  if (family === 4) return ip;
  if (family !== 6) return undefined;
  const groups = ipv6Groups(ip!);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
  }
  return `${groups.slice(0, 4).map((group) => group.toString(16)).join(':')}::/64`;
}

/**
 * Whose keyless quota a request counts in: the address Fastify's trustProxy
 * gives (the socket's, or the one the trusted proxies recorded), or, when a
 * trusted proxy recorded something that is no address, the socket's own.
 */
export function clientAddressOf(request: FastifyRequest): string {
  return limitedAddressOf(request.ip) ?? limitedAddressOf(request.socket.remoteAddress) ?? 'unknown';
}
