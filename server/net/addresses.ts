// Where students can reach this server: the machine's network addresses that the listening socket
// accepts, best first, or PUBLIC_URL when the operator set one. The interface list is passed in
// (os.networkInterfaces() in production), so tests can describe any machine.
import { isIPv4, isIPv6 } from 'node:net';
import type { NetworkInterfaceInfo } from 'node:os';
import type { JoinInfo } from '../../shared/protocol/types.ts';

export type Interfaces = NodeJS.Dict<NetworkInterfaceInfo[]>;

export interface LanAddress {
  url: string;
  address: string;
  family: 'IPv4' | 'IPv6';
  /** The interface's name (wlan0, eth0, en0…). */
  iface: string;
}

const ANY = new Set(['0.0.0.0', '::']);

export function isLoopback(address: string): boolean {
  const a = unmapped(address);
  return a === '::1' || a === 'localhost' || /^127\./.test(a);
}

/** `::ffff:10.0.0.5` (an IPv4 client on a dual-stack socket) as `10.0.0.5`. */
export function unmapped(address: string): string {
  return address.startsWith('::ffff:') && isIPv4(address.slice(7)) ? address.slice(7) : address;
}

export function urlOf(address: string, port: number): string {
  const host = isIPv6(address) ? `[${address}]` : address;
  return port === 80 ? `http://${host}` : `http://${host}:${port}`;
}

// Bridges and virtual adapters (containers, VMs) answer on the machine but no phone is on them.
const VIRTUAL = /^(docker|br-|veth|virbr|vmnet|vboxnet|cni|flannel|cali|podman|lxc|lxd|zt|utun|awdl|llw)/i;
const privateV4 = (a: string) => /^10\./.test(a) || /^192\.168\./.test(a) || /^172\.(1[6-9]|2\d|3[01])\./.test(a);
const linkLocal = (a: string) => /^169\.254\./.test(a) || /^fe[89ab][0-9a-f]:/i.test(a);

/**
 * The non-internal addresses a socket bound to `bound` answers on: every IPv4 one for 0.0.0.0, IPv4
 * and IPv6 for :: (dual stack), only itself for a specific address, none for loopback. Sorted so a
 * classroom's Wi-Fi address comes first: physical before virtual, IPv4 before IPv6, private ranges
 * first. IPv6 link-local addresses are left out (a browser cannot open them without a zone).
 */
export function lanAddresses(bound: string, port: number, interfaces: Interfaces): LanAddress[] {
  const b = unmapped(bound);
  if (isLoopback(b)) return [];
  const out: (LanAddress & { rank: number })[] = [];
  for (const [iface, infos] of Object.entries(interfaces)) {
    for (const info of infos ?? []) {
      if (info.internal || isLoopback(info.address)) continue;
      const family = info.family === 'IPv4' ? 'IPv4' : 'IPv6';
      if (family === 'IPv6' && /^fe[89ab][0-9a-f]:/i.test(info.address)) continue;
      if (b === '0.0.0.0' && family !== 'IPv4') continue;
      if (!ANY.has(b) && info.address !== b) continue;
      const rank =
        (VIRTUAL.test(iface) ? 8 : 0) +
        (linkLocal(info.address) ? 4 : 0) +
        (family === 'IPv6' ? 2 : 0) +
        (privateV4(info.address) ? 0 : 1);
      out.push({ url: urlOf(info.address, port), address: info.address, family, iface, rank });
    }
  }
  // A specific address that no interface lists (yet) is still where the server listens.
  if (!ANY.has(b) && out.length === 0)
    out.push({ url: urlOf(b, port), address: b, family: isIPv6(b) ? 'IPv6' : 'IPv4', iface: '', rank: 0 });
  return out.sort((x, y) => x.rank - y.rank).map(({ rank: _, ...a }) => a);
}

/** The URL for this computer's own browser. */
export function localUrl(bound: string, port: number): string {
  const b = unmapped(bound);
  return ANY.has(b) || b === '127.0.0.1' || b === '::1' ? urlOf('localhost', port) : urlOf(b, port);
}

/**
 * Where the teacher's code and QR should point. `via` is the local address a request arrived on:
 * when it is one of the LAN addresses, the teacher's own device already reached the server there,
 * so it comes first.
 */
export function joinInfo(opts: {
  publicUrl: string | null;
  bound: string;
  port: number;
  interfaces: Interfaces;
  via?: string;
}): JoinInfo {
  const lan = lanAddresses(opts.bound, opts.port, opts.interfaces).map((a) => a.url);
  const via = opts.via ? urlOf(unmapped(opts.via), opts.port) : null;
  if (via && lan.includes(via)) lan.sort((a, b) => (a === via ? -1 : b === via ? 1 : 0));
  const local = localUrl(opts.bound, opts.port);
  if (opts.publicUrl) return { baseUrl: opts.publicUrl, source: 'public', loopbackOnly: false, lan, local };
  if (lan.length) return { baseUrl: lan[0], source: 'lan', loopbackOnly: false, lan, local };
  return { baseUrl: local, source: 'loopback', loopbackOnly: true, lan, local };
}
