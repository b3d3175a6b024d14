import { gzipSync } from "node:zlib";
import type {
  AgentClassChange,
  AgentClassRecord,
  AgentRecord,
  ClassCatalog,
} from "../../core/agents/ports.js";
import type { AssetRecord } from "../../core/assets/model.js";
import type { AssetCatalog, AssetContentStore, ResourceSetStore } from "../../core/assets/ports.js";
import type { ResourceSet } from "../../core/assets/resource-set.js";
import { BeaconError } from "../../core/errors.js";
import type {
  AgentQuery,
  ClassAgentCounts,
  FleetHotState,
  FleetRegistry,
  HotAgentState,
} from "../../core/fleet/ports.js";
import type { ClassFlowPolicy } from "../../core/flows/policy.js";
import type { FlowCatalog, FlowContent, FlowVersionRecord } from "../../core/flows/ports.js";
import { expiryKeyOf } from "../../core/identity/certificates.js";
import type {
  CertificateAuthority,
  CertificateRecord,
  CertificateStore,
  CertificateSubject,
  IssuedCertificate,
  SignedCertificate,
  SigningRequest,
} from "../../core/identity/ports.js";
import { dropUndefined } from "../../core/json.js";
import { manifestIdOf } from "../../core/manifests/agent-manifest.js";
import type { ManifestCatalog, ManifestRecord } from "../../core/manifests/ports.js";
import type { PageRequest } from "../../core/paging.js";
import type { StoredContent } from "../../core/ports.js";
import { pageOf } from "./paging.js";

/** In-process stand-ins for the console's ports, for core unit tests only. */

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
    const record = this.classes.get(`${tenant}/${name}`);
    return record && structuredClone(record);
  }

  async put(tenant: string, name: string, change: AgentClassChange, now: number) {
    const existing = this.classes.get(`${tenant}/${name}`);
    // As in the table, only the fields the change gives are written.
    const given = dropUndefined(change);
    const record: AgentClassRecord = existing
      ? { ...existing, ...given, updatedAt: now }
      : { tenant, name, ...given, createdAt: now, updatedAt: now, autoCreated: false };
    this.classes.set(`${tenant}/${name}`, record);
    return { record: structuredClone(record), created: existing === undefined };
  }
}

export class MemoryFleetRegistry implements FleetRegistry {
  readonly agents = new Map<string, AgentRecord>();

  add(record: AgentRecord) {
    this.agents.set(`${record.tenant}/${record.agentId}`, structuredClone(record));
  }

  /** An agent's periodic checkpoint, which the agent API writes (AgentRegistry.recordSeen). */
  recordSeen(tenant: string, agentId: string, lastSeen: number) {
    const record = this.agents.get(`${tenant}/${agentId}`);
    if (record) record.lastSeen = Math.max(record.lastSeen, lastSeen);
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
    const record = this.agents.get(`${tenant}/${agentId}`);
    return record && structuredClone(record);
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
  /**
   * By tenant/class, agent id to last seen: forgotten agents the cache still counts in a class, as its
   * class index keeps an agent forgotten without naming that class.
   */
  readonly strandedInClasses = new Map<string, Map<string, number>>();
  /** The cache's copies of classes' flow policies by tenant/class; undefined records a class without one. */
  readonly classFlows = new Map<string, ClassFlowPolicy | undefined>();
  /** By tenant/class: the heartbeat period the cache's copy of the class's policy carries. */
  readonly classPeriods = new Map<string, number>();
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
      if (state) found.set(agentId, structuredClone(state));
    }
    return found;
  }

  async classCounts(tenant: string, classes: { name: string; onlineSince: number }[]) {
    this.check();
    const counts = new Map<string, ClassAgentCounts>();
    for (const { name, onlineSince } of classes) {
      const lastSeen = new Map(this.strandedInClasses.get(`${tenant}/${name}`));
      for (const [key, state] of this.agentStates) {
        if (key.startsWith(`${tenant}/`) && state.agentClass === name)
          lastSeen.set(key.slice(tenant.length + 1), state.lastSeen ?? 0);
      }
      const times = [...lastSeen.values()];
      counts.set(name, { total: times.length, online: times.filter((time) => time >= onlineSince).length });
    }
    return counts;
  }

  async heartbeatsPerMinute(tenant: string, epochMinutes: number[]) {
    this.check();
    return epochMinutes.map((minute) => this.heartbeats.get(`${tenant}/${minute}`) ?? 0);
  }

  async forgetAgent(tenant: string, agentId: string, agentClasses: string[]) {
    this.check();
    const key = `${tenant}/${agentId}`;
    const state = this.agentStates.get(key);
    if (state?.agentClass !== undefined && !agentClasses.includes(state.agentClass)) {
      const classKey = `${tenant}/${state.agentClass}`;
      const stranded = this.strandedInClasses.get(classKey) ?? new Map<string, number>();
      this.strandedInClasses.set(classKey, stranded.set(agentId, state.lastSeen ?? 0));
    }
    for (const agentClass of agentClasses)
      this.strandedInClasses.get(`${tenant}/${agentClass}`)?.delete(agentId);
    this.agentStates.delete(key);
    this.pendingOperations.delete(key);
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

  async rememberClassFlow(
    tenant: string,
    className: string,
    policy: ClassFlowPolicy | undefined,
    heartbeatPeriodMs: number,
  ) {
    this.check();
    this.classFlows.set(`${tenant}/${className}`, policy && structuredClone(policy));
    this.classPeriods.set(`${tenant}/${className}`, heartbeatPeriodMs);
  }
}

export class MemoryManifestCatalog implements ManifestCatalog {
  readonly manifests = new Map<string, { tenant: string; record: ManifestRecord; json: string }>();

  add(tenant: string, record: ManifestRecord, json: string) {
    this.manifests.set(`${tenant}/${record.manifestId}`, { tenant, record: structuredClone(record), json });
  }

  async list(tenant: string, request: PageRequest) {
    const page = pageOf(
      ofTenant(this.manifests, tenant, (entry) => entry.record.manifestId),
      request,
    );
    return { items: page.items.map((entry) => entry.record), last: page.last };
  }

  async get(tenant: string, manifestId: string) {
    const record = this.manifests.get(`${tenant}/${manifestId}`)?.record;
    return record && structuredClone(record);
  }

  async read(tenant: string, manifestId: string) {
    return this.manifests.get(`${tenant}/${manifestId}`)?.json;
  }
}

export class MemoryFlowCatalog implements FlowCatalog {
  readonly versions = new Map<string, FlowVersionRecord>();
  readonly contents = new Map<string, FlowContent>();

  /** As the table: content once per tenant and hash, then the class's version, each kept as first written. */
  async add(tenant: string, version: Omit<FlowVersionRecord, "gzipBytes">, bytes: Uint8Array) {
    const contentKey = `${tenant}/${version.hash}`;
    if (!this.contents.has(contentKey)) {
      this.contents.set(contentKey, {
        hash: version.hash,
        contentType: version.contentType,
        bytes: structuredClone(bytes),
      });
    }
    const key = `${tenant}/${version.className}/${version.hash}`;
    const existing = this.versions.get(key);
    if (existing) return { record: structuredClone(existing), created: false };
    const record = { ...structuredClone(version), gzipBytes: gzipSync(bytes).length };
    this.versions.set(key, record);
    return { record: structuredClone(record), created: true };
  }

  async list(tenant: string, className: string, request: PageRequest) {
    const entries = [...this.versions.entries()]
      .filter(([key, record]) => key === `${tenant}/${className}/${record.hash}`)
      .map(([, record]) => [record.hash, record] as [string, FlowVersionRecord]);
    return pageOf(entries, request);
  }

  async get(tenant: string, className: string, hash: string) {
    const record = this.versions.get(`${tenant}/${className}/${hash}`);
    return record && structuredClone(record);
  }

  async read(tenant: string, hash: string) {
    const content = this.contents.get(`${tenant}/${hash}`);
    return content && structuredClone(content);
  }
}

export class MemoryAssetContent implements AssetContentStore {
  readonly objects = new Map<string, StoredContent>();

  async put(tenant: string, assetId: string, bytes: Uint8Array, contentType: string) {
    this.objects.set(`${tenant}/${assetId}`, { hash: assetId, contentType, bytes: Uint8Array.from(bytes) });
  }

  async read(tenant: string, assetId: string) {
    const stored = this.objects.get(`${tenant}/${assetId}`);
    return stored && { ...stored, bytes: Uint8Array.from(stored.bytes) };
  }

  async remove(tenant: string, assetId: string) {
    this.objects.delete(`${tenant}/${assetId}`);
  }
}

/** Asset records by tenant and id; `usedBy` is kept by the resource sets, as the table's transactions keep it. */
export class MemoryAssetCatalog implements AssetCatalog {
  readonly records = new Map<string, AssetRecord>();

  async add(tenant: string, record: AssetRecord) {
    const existing = await this.get(tenant, record.assetId);
    if (existing) return { record: existing, created: false };
    const { usedBy: _usedBy, ...written } = structuredClone(record);
    this.records.set(`${tenant}/${record.assetId}`, written);
    return { record: structuredClone(written), created: true };
  }

  async get(tenant: string, assetId: string) {
    const found = this.records.get(`${tenant}/${assetId}`);
    return found && structuredClone(found);
  }

  async list(tenant: string, request: PageRequest) {
    const prefix = `${tenant}/`;
    const entries = [...this.records].filter(([key]) => key.startsWith(prefix));
    return pageOf(
      entries.map(([, record]) => [record.assetId, record] as [string, AssetRecord]),
      request,
    );
  }

  async remove(tenant: string, assetId: string) {
    const record = this.records.get(`${tenant}/${assetId}`);
    if (!record) return "absent" as const;
    if ((record.usedBy ?? []).length > 0) return "in_use" as const;
    this.records.delete(`${tenant}/${assetId}`);
    return "removed" as const;
  }
}

/** Resource sets, keeping the catalog's `usedBy` in step as the table's transaction does. */
export class MemoryResourceSetStore implements ResourceSetStore {
  readonly sets = new Map<string, ResourceSet>();

  constructor(private readonly assets: MemoryAssetCatalog) {}

  async get(tenant: string, className: string) {
    const set = this.sets.get(`${tenant}/${className}`);
    return set && structuredClone(set);
  }

  async replace(tenant: string, set: ResourceSet, previous: ResourceSet | undefined) {
    const current = this.sets.get(`${tenant}/${set.className}`);
    if (current?.digest !== previous?.digest || current?.updatedAt !== previous?.updatedAt)
      return "conflict" as const;
    const before = new Set(previous?.entries.map((entry) => entry.assetId));
    const after = new Set(set.entries.map((entry) => entry.assetId));
    const recordOf = (assetId: string) => this.assets.records.get(`${tenant}/${assetId}`);
    if ([...after].some((assetId) => !before.has(assetId) && !recordOf(assetId))) return "conflict" as const;
    for (const assetId of new Set([...before, ...after])) {
      const record = recordOf(assetId);
      if (!record) continue;
      const others = (record.usedBy ?? []).filter((className) => className !== set.className);
      const usedBy = after.has(assetId) ? [...others, set.className].sort() : others;
      record.usedBy = usedBy.length > 0 ? usedBy : undefined;
    }
    this.sets.set(`${tenant}/${set.className}`, structuredClone(set));
    return "replaced" as const;
  }
}

export class MemoryCertificateStore implements CertificateStore {
  readonly records = new Map<string, CertificateRecord>();
  readonly revocationList = new Map<string, number>();

  async add(record: CertificateRecord) {
    const key = `${record.tenant}/${record.serial}`;
    if (this.records.has(key)) return false;
    this.records.set(key, structuredClone(record));
    return true;
  }

  async list(tenant: string, request: PageRequest) {
    return pageOf(
      ofTenant(this.records, tenant, (record) => record.serial),
      request,
    );
  }

  async get(tenant: string, serial: string) {
    const record = this.records.get(`${tenant}/${serial}`);
    return record && structuredClone(record);
  }

  /** By serial, as the tenant's certificates are kept. */
  async ofAgent(tenant: string, agentId: string) {
    return [...this.records.values()]
      .filter((record) => record.tenant === tenant && record.kind === "agent" && record.agentId === agentId)
      .sort((a, b) => (a.serial < b.serial ? -1 : 1))
      .map((record) => structuredClone(record));
  }

  async agentCertificates(tenant: string, agentId: string) {
    return this.ofAgent(tenant, agentId);
  }

  async expiring(tenant: string, window: { from: number; until: number }, request: PageRequest) {
    const live = [...this.records.values()].filter(
      (record) =>
        record.tenant === tenant &&
        record.revokedAt === undefined &&
        record.notAfter >= window.from &&
        record.notAfter <= window.until,
    );
    return pageOf(
      live.map((record) => [expiryKeyOf(record), record]),
      request,
    );
  }

  async dueForExpiryNotice(until: number, limit: number) {
    return [...this.records.values()]
      .filter(
        (record) =>
          record.revokedAt === undefined &&
          record.expiryAnnouncedAt === undefined &&
          record.notAfter <= until,
      )
      .sort((first, second) => first.notAfter - second.notAfter)
      .slice(0, limit)
      .map((record) => structuredClone(record));
  }

  async markExpiryAnnounced(tenant: string, serial: string, at: number) {
    const record = this.records.get(`${tenant}/${serial}`);
    if (!record || record.revokedAt !== undefined || record.expiryAnnouncedAt !== undefined) return false;
    record.expiryAnnouncedAt = at;
    return true;
  }

  async revoke(tenant: string, serial: string, now: number) {
    const record = this.records.get(`${tenant}/${serial}`);
    if (!record) return undefined;
    record.revokedAt ??= now;
    this.revocationList.set(`${tenant}/${serial}`, record.revokedAt);
    return structuredClone(record);
  }
}

/**
 * Issues recognisable placeholder PEMs with serials 0A, 0B, … (as a certificate would spell them). Its
 * certificate signing requests are placeholders too: `csr <algorithm> <bits or curve>`, and a trailing
 * `forged` for one whose signature does not verify; anything else is no request.
 */
export class FakeCertificateAuthority implements CertificateAuthority {
  private next = 10;

  async issueClientCertificate(
    subject: CertificateSubject,
    validityDays: number,
  ): Promise<IssuedCertificate> {
    const signed = this.sign(subject, validityDays);
    return { ...signed, privateKeyPem: `private key ${signed.serialNumber}` };
  }

  async readSigningRequest(pem: string): Promise<SigningRequest> {
    const [label, algorithm, size, forged] = pem.split(" ");
    if (label !== "csr" || algorithm === undefined || size === undefined)
      throw new BeaconError("invalid_csr", "not a placeholder certificate signing request");
    const publicKey =
      algorithm === "rsa" ? { algorithm, modulusBits: Number(size) } : { algorithm, namedCurve: size };
    return { pem, publicKey, signatureValid: forged !== "forged" };
  }

  async signClientCertificate(
    _request: SigningRequest,
    subject: CertificateSubject,
    validityDays: number,
  ): Promise<SignedCertificate> {
    return this.sign(subject, validityDays);
  }

  private sign(subject: CertificateSubject, validityDays: number): SignedCertificate {
    const serialNumber = (this.next++).toString(16).toUpperCase().padStart(2, "0");
    const notBefore = Date.UTC(2026, 10, 21);
    return {
      certificatePem: `certificate ${serialNumber}`,
      caCertificatePem: "ca certificate",
      serialNumber,
      subjectDN: `CN=${subject.commonName},OU=${subject.organizationalUnit},O=${subject.organization}`,
      notBefore,
      notAfter: notBefore + validityDays * 86_400_000,
    };
  }
}
