import { isIPv4, isIPv6 } from "node:net";

/**
 * Server-side request forgery: a tenant names the URL, Beacon's network makes the request. On AWS a
 * delivery may only reach addresses on the public internet, never the function's own network, the
 * instance metadata service or anything else private; a local allow-list names the hosts tests may use.
 * The check applies to every address a name resolves to, at connection time (DNS may change after the
 * subscription was made).
 */

/** IPv4 blocks that are not the public internet (RFC 6890's special-purpose registry and multicast). */
const NON_PUBLIC_V4: Array<[string, number]> = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

function v4Number(address: string): number {
  return address.split(".").reduce((value, octet) => value * 256 + Number(octet), 0);
}

function inV4Block(address: string, [base, bits]: [string, number]): boolean {
  const size = 2 ** (32 - bits);
  return Math.floor(v4Number(address) / size) === Math.floor(v4Number(base) / size);
}

function isPublicV4(address: string): boolean {
  return !NON_PUBLIC_V4.some((block) => inV4Block(address, block));
}

/** The eight 16-bit groups of an IPv6 address, an embedded IPv4 tail included. */
function v6Groups(address: string): number[] {
  const tail = address.match(/:(\d+\.\d+\.\d+\.\d+)$/);
  let text = address;
  if (tail?.[1]) {
    const value = v4Number(tail[1]);
    text = `${address.slice(0, -tail[1].length)}${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`;
  }
  const [head = "", rest] = text.split("::");
  const headGroups = head ? head.split(":") : [];
  const restGroups = rest ? rest.split(":") : [];
  const missing = rest === undefined ? 0 : 8 - headGroups.length - restGroups.length;
  return [...headGroups, ...Array<string>(missing).fill("0"), ...restGroups].map((group) =>
    Number.parseInt(group, 16),
  );
}

function embeddedV4(groups: number[]): string {
  const high = groups[6] ?? 0;
  const low = groups[7] ?? 0;
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
}

function isPublicV6(address: string): boolean {
  const groups = v6Groups(address.split("%")[0] ?? "");
  const [first = 0] = groups;
  const allZeroBefore = (count: number) => groups.slice(0, count).every((group) => group === 0);
  // ::ffff:a.b.c.d (mapped) and 64:ff9b::a.b.c.d (NAT64) reach the IPv4 address they carry.
  if (allZeroBefore(5) && groups[5] === 0xffff) return isPublicV4(embeddedV4(groups));
  if (first === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0)) {
    return isPublicV4(embeddedV4(groups));
  }
  if (allZeroBefore(8 - 1)) return false; // :: and ::1
  if ((first & 0xfe00) === 0xfc00) return false; // unique local fc00::/7
  if ((first & 0xffc0) === 0xfe80) return false; // link-local fe80::/10
  if ((first & 0xff00) === 0xff00) return false; // multicast
  if (first === 0x2001 && groups[1] === 0x0db8) return false; // documentation
  if (first === 0x2002) return isPublicV4(embeddedV4([0, 0, 0, 0, 0, 0, groups[1] ?? 0, groups[2] ?? 0])); // 6to4
  return (first & 0xe000) === 0x2000; // only global unicast 2000::/3 is routed on the internet
}

/** Whether an address (as DNS gave it) is on the public internet. Anything not an IP address is not. */
export function isPublicAddress(address: string): boolean {
  if (isIPv4(address)) return isPublicV4(address);
  if (isIPv6(address)) return isPublicV6(address);
  return false;
}

export interface UrlPolicy {
  /** Host names or addresses that may resolve to non-public addresses: local receivers in tests only. */
  allowedHosts: readonly string[];
}

/** Why a subscription's URL is refused, or undefined when it may be used; its addresses are checked at connection. */
export function webhookUrlProblem(url: string, policy: UrlPolicy): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "is not a URL";
  }
  if (parsed.protocol !== "https:") return "must use https";
  if (parsed.username || parsed.password) return "must not carry credentials";
  if (parsed.hash) return "must not carry a fragment";
  const host = hostOf(parsed);
  if (policy.allowedHosts.includes(host)) return undefined;
  if ((isIPv4(host) || isIPv6(host)) && !isPublicAddress(host))
    return "must not name a private, loopback or link-local address";
  if (
    host === "localhost" ||
    host.endsWith(".localhost") ||
    host.endsWith(".internal") ||
    !host.includes(".")
  ) {
    return "must name a public host";
  }
  return undefined;
}

/** The URL's host as DNS or a socket takes it: IPv6 literals without their brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
}

/** Whether a connection to `host` may use `address`, one of the addresses it resolved to. */
export function mayConnect(host: string, address: string, policy: UrlPolicy): boolean {
  return policy.allowedHosts.includes(host) || isPublicAddress(address);
}
