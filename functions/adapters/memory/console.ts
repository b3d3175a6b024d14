import type {
  AgentClassChange,
  AgentClassRecord,
  AgentRecord,
  ClassCatalog,
} from "../../core/agents/ports.js";
import { dropUndefined } from "../../core/c2/json.js";
import type {
  AgentQuery,
  ClassAgentCounts,
  FleetHotState,
  FleetRegistry,
  HotAgentState,
} from "../../core/fleet/ports.js";
import type { ClassFlowPolicy } from "../../core/flows/policy.js";
import type { FlowCatalog, FlowContent, FlowVersionRecord } from "../../core/flows/ports.js";
import type {
  CertificateAuthority,
  CertificateRecord,
  CertificateStore,
  CertificateSubject,
  IssuedCertificate,
} from "../../core/identity/ports.js";
import { manifestIdOf } from "../../core/manifests/agent-manifest.js";
import type { ManifestCatalog, ManifestRecord } from "../../core/manifests/ports.js";
import type { Page, PageRequest } from "../../core/paging.js";

/** In-process stand-ins for the console's ports, for core unit tests only. */

/** Orders by key as the table does and cuts a page after `request.after`. */
function pageOf<T>(
  entries: [string, T][],
  request: PageRequest,
  keep: (item: T) => boolean = () => true,
): Page<T> {
  const sorted = entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (request.descending) sorted.reverse();
  const after = request.after;
  const rest =
    after === undefined ? sorted : sorted.filter(([key]) => (request.descending ? key < after : key > after));
  const window = rest.slice(0, request.limit);
  const last = rest.length > request.limit ? window.at(-1)?.[0] : undefined;
  return { items: window.map(([, item]) => item).filter(keep), last };
}

const ofTenant = <T extends { tenant: string }>(
  map: Map<string, T>,
  tenant: string,
  keyOf: (item: T) => string,
) =>
  [...map.values()]
    .filter((item) => item.tenant === tenant)
    .map((item) => [keyOf(item), item] as [string, T]);

export class MemoryClassCatalog implements ClassCatalog {
  readonly classes = new Map<string, AgentClassRecord>();

  async list(tenant: string, request: PageRequest) {
    return pageOf(
      ofTenant(this.classes, tenant, (record) => record.name),
      request,
    );
  }

  async get(tenant: string, name: string) {
    return this.classes.get(`${tenant}/${name}`);
  }

  async put(tenant: string, name: string, change: AgentClassChange, now: number) {
    const existing = this.classes.get(`${tenant}/${name}`);
    // As in the table, only the fields the change gives are written.
    const given = dropUndefined(change);
    const record: AgentClassRecord = existing
      ? { ...existing, ...given, updatedAt: now }
      : { tenant, name, ...given, createdAt: now, updatedAt: now, autoCreated: false };
    this.classes.set(`${tenant}/${name}`, record);
    return { record, created: existing === undefined };
  }
}

export class MemoryFleetRegistry implements FleetRegistry {
  readonly agents = new Map<string, AgentRecord>();

  add(record: AgentRecord) {
    this.agents.set(`${record.tenant}/${record.agentId}`, record);
  }

  async query(tenant: string, query: AgentQuery) {
    const text = query.text;
    return pageOf(
      ofTenant(this.agents, tenant, (record) => record.agentId).filter(
        ([, record]) => query.agentClass === undefined || record.agentClass === query.agentClass,
      ),
      query,
      (record) =>
        (query.manifestHash === undefined || record.manifestHash === query.manifestHash) &&
        (query.manifestId === undefined || manifestIdOf(record) === query.manifestId) &&
        (query.flowId === undefined || record.flowId === query.flowId) &&
        (text === undefined ||
          record.agentId.includes(text) ||
          (record.device?.hostname ?? "").includes(text)),
    );
  }

  async get(tenant: string, agentId: string) {
    return this.agents.get(`${tenant}/${agentId}`);
  }

  async remove(tenant: string, agentId: string) {
    return this.agents.delete(`${tenant}/${agentId}`);
  }

  async count(tenant: string, agentClass: string, seenSince?: number) {
    return [...this.agents.values()].filter(
      (record) =>
        record.tenant === tenant &&
        record.agentClass === agentClass &&
        (seenSince === undefined || record.lastSeen >= seenSince),
    ).length;
  }
}

export class MemoryFleetHotState implements FleetHotState {
  readonly agentStates = new Map<string, HotAgentState>();
  readonly heartbeats = new Map<string, number>();
  readonly revoked = new Map<string, number>();
  readonly pendingOperations = new Map<string, number>();
  /** The cache's copies of classes' flow policies by tenant/class; undefined records a class without one. */
  readonly classFlows = new Map<string, ClassFlowPolicy | undefined>();
  /** Set to make every call fail, as a cache outage would. */
  down = false;

  private check() {
    if (this.down) throw new Error("cache is down");
  }

  async agents(tenant: string, agentIds: string[]) {
    this.check();
    const found = new Map<string, HotAgentState>();
    for (const agentId of agentIds) {
      const state = this.agentStates.get(`${tenant}/${agentId}`);
      if (state) found.set(agentId, state);
    }
    return found;
  }

  async classCounts(tenant: string, classes: { name: string; onlineSince: number }[]) {
    this.check();
    const counts = new Map<string, ClassAgentCounts>();
    for (const { name, onlineSince } of classes) {
      const members = [...this.agentStates.entries()].filter(
        ([key, state]) => key.startsWith(`${tenant}/`) && state.agentClass === name,
      );
      counts.set(name, {
        total: members.length,
        online: members.filter(([, state]) => (state.lastSeen ?? 0) >= onlineSince).length,
      });
    }
    return counts;
  }

  async heartbeatsPerMinute(tenant: string, epochMinutes: number[]) {
    this.check();
    return epochMinutes.map((minute) => this.heartbeats.get(`${tenant}/${minute}`) ?? 0);
  }

  async forgetAgent(tenant: string, agentId: string) {
    this.check();
    this.agentStates.delete(`${tenant}/${agentId}`);
  }

  async markOperationsPending(tenant: string, agentIds: string[]) {
    this.check();
    for (const agentId of agentIds) {
      const key = `${tenant}/${agentId}`;
      this.pendingOperations.set(key, (this.pendingOperations.get(key) ?? 0) + 1);
    }
  }

  async revokeSerial(tenant: string, serial: string, revokedAt: number) {
    this.check();
    this.revoked.set(`${tenant}/${serial}`, revokedAt);
  }

  async rememberClassFlow(tenant: string, className: string, policy: ClassFlowPolicy | undefined) {
    this.check();
    this.classFlows.set(`${tenant}/${className}`, policy && structuredClone(policy));
  }
}

export class MemoryManifestCatalog implements ManifestCatalog {
  readonly manifests = new Map<string, { tenant: string; record: ManifestRecord; json: string }>();

  add(tenant: string, record: ManifestRecord, json: string) {
    this.manifests.set(`${tenant}/${record.manifestId}`, { tenant, record, json });
  }

  async list(tenant: string, request: PageRequest) {
    const page = pageOf(
      ofTenant(this.manifests, tenant, (entry) => entry.record.manifestId),
      request,
    );
    return { items: page.items.map((entry) => entry.record), last: page.last };
  }

  async get(tenant: string, manifestId: string) {
    return this.manifests.get(`${tenant}/${manifestId}`)?.record;
  }

  async read(tenant: string, manifestId: string) {
    return this.manifests.get(`${tenant}/${manifestId}`)?.json;
  }
}

export class MemoryFlowCatalog implements FlowCatalog {
  readonly versions = new Map<string, FlowVersionRecord>();
  readonly contents = new Map<string, FlowContent>();

  async add(tenant: string, version: Omit<FlowVersionRecord, "gzipBytes">, bytes: Uint8Array) {
    const key = `${tenant}/${version.className}/${version.hash}`;
    this.contents.set(`${tenant}/${version.hash}`, {
      hash: version.hash,
      contentType: version.contentType,
      bytes,
    });
    const existing = this.versions.get(key);
    if (existing) return { record: existing, created: false };
    const record = { ...version, gzipBytes: bytes.length };
    this.versions.set(key, record);
    return { record, created: true };
  }

  async list(tenant: string, className: string, request: PageRequest) {
    const entries = [...this.versions.values()]
      .filter((record) => this.versions.get(`${tenant}/${className}/${record.hash}`) === record)
      .map((record) => [record.hash, record] as [string, FlowVersionRecord]);
    return pageOf(entries, request);
  }

  async get(tenant: string, className: string, hash: string) {
    return this.versions.get(`${tenant}/${className}/${hash}`);
  }

  async read(tenant: string, hash: string) {
    return this.contents.get(`${tenant}/${hash}`);
  }
}

export class MemoryCertificateStore implements CertificateStore {
  readonly records = new Map<string, CertificateRecord>();
  readonly revocationList = new Map<string, number>();

  async add(record: CertificateRecord) {
    const key = `${record.tenant}/${record.serial}`;
    if (this.records.has(key)) return false;
    this.records.set(key, record);
    return true;
  }

  async list(tenant: string, request: PageRequest) {
    return pageOf(
      ofTenant(this.records, tenant, (record) => record.serial),
      request,
    );
  }

  async get(tenant: string, serial: string) {
    return this.records.get(`${tenant}/${serial}`);
  }

  async ofAgent(tenant: string, agentId: string) {
    return [...this.records.values()].filter(
      (record) => record.tenant === tenant && record.kind === "agent" && record.agentId === agentId,
    );
  }

  async revoke(tenant: string, serial: string, now: number) {
    const record = this.records.get(`${tenant}/${serial}`);
    if (!record) return undefined;
    record.revokedAt ??= now;
    this.revocationList.set(`${tenant}/${serial}`, record.revokedAt);
    return record;
  }
}

/** Issues recognisable placeholder PEMs with serials 0A, 0B, … (as a certificate would spell them). */
export class FakeCertificateAuthority implements CertificateAuthority {
  private next = 10;

  async issueClientCertificate(
    subject: CertificateSubject,
    validityDays: number,
  ): Promise<IssuedCertificate> {
    const serialNumber = (this.next++).toString(16).toUpperCase().padStart(2, "0");
    const notBefore = Date.UTC(2026, 10, 21);
    return {
      certificatePem: `certificate ${serialNumber}`,
      privateKeyPem: `private key ${serialNumber}`,
      caCertificatePem: "ca certificate",
      serialNumber,
      subjectDN: `CN=${subject.commonName},OU=${subject.organizationalUnit},O=${subject.organization}`,
      notBefore,
      notAfter: notBefore + validityDays * 86_400_000,
    };
  }
}
