import { assertClassName } from "../c2/class-name.js";
import { BeaconError } from "../errors.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { dropUndefined } from "../json.js";
import { pageBodyOf, pageRequestOf, toIso } from "../paging.js";
import type { Clock } from "../ports.js";
import type { ConsoleResult } from "../result.js";
import { readFlowDocument } from "./document.js";
import { isFlowHash } from "./flow-hash.js";
import type { FlowCatalog, FlowVersionRecord, NewFlowVersion } from "./ports.js";
import type { FlowValidation } from "./validation.js";

export interface FlowsDependencies {
  flows: FlowCatalog;
  clock: Clock;
  /** Largest flow document accepted, inflated. */
  maxFlowBytes: number;
  /** The flow validation's dry run of a version; `unstored` its bytes when it is not stored yet. */
  validate(tenant: string, version: NewFlowVersion, unstored?: Uint8Array): Promise<FlowValidation>;
  /** Refuses a version whose parameters the class's agents would lack values for, or get refused ones. */
  checkParameters(
    what: string,
    tenant: string,
    version: Pick<FlowVersionRecord, "className" | "hash" | "parameters">,
    content: Uint8Array,
  ): Promise<void>;
}

const flowVersionView = (record: FlowVersionRecord) =>
  dropUndefined({
    hash: record.hash,
    className: record.className,
    format: record.format,
    contentType: record.contentType,
    sizeBytes: record.sizeBytes,
    gzipBytes: record.gzipBytes,
    processorTypes: record.processorTypes,
    controllerServiceTypes: record.controllerServiceTypes,
    assetIds: record.assetIds ?? [],
    createdAt: toIso(record.createdAt) as string,
    createdBy: record.createdBy,
    adoptedFlowId: record.adoptedFlowId,
    parameters: record.parameters,
    version: record.version,
    label: record.label,
  });

/** The most a label holds, as the document's `FlowLabel` says. */
const MAX_LABEL_LENGTH = 64;
const LABEL_PATTERN = /^\S(?:[^\t\n\r]*\S)?$/;

/** A label as the document allows it: one line of 1 to 64 characters, without spaces at either end. */
function assertFlowLabel(label: string): void {
  if (label.length > MAX_LABEL_LENGTH || !LABEL_PATTERN.test(label))
    throw new BeaconError(
      "invalid_request",
      "A flow version's label is 1 to 64 characters on one line, without spaces at either end",
    );
}

/** What the class's agents could not run of a version, binary by binary, in words. */
export function incompatibilitiesOf(report: FlowValidation): string[] {
  return report.manifests.flatMap((binary) => {
    if (binary.compatible) return [];
    const agents = `${binary.agentCount} agent${binary.agentCount === 1 ? "" : "s"}`;
    if (!binary.manifestKnown) return [`${agents} whose manifest Beacon does not know yet`];
    const missing = [
      ...(binary.missingProcessorTypes ?? []),
      ...(binary.missingControllerServiceTypes ?? []),
    ];
    const refused = (binary.valuesRefused ?? []).map(
      (value) => `${value.property} of ${value.processorType} may not be "${value.value}"`,
    );
    return [
      `${agents} of binary ${binary.manifestId}: ${[
        missing.length > 0 && `no ${missing.join(", ")}`,
        refused.length > 0 && refused.join("; "),
      ]
        .filter(Boolean)
        .join("; ")}`,
    ];
  });
}

/** Refuses a version some agents of its class could not run, naming each problem. */
function refuseIncompatible(report: FlowValidation): void {
  if (report.compatible) return;
  const problems = incompatibilitiesOf(report);
  throw new BeaconError(
    "flow_incompatible",
    `${report.incompatibleAgentCount} of the class's ${report.agentCount} agents could not run this flow, so it was not published: ${problems.join(". ")}`,
    { problems, validation: report },
  );
}

export function makeFlowsApi(deps: FlowsDependencies) {
  const { flows, clock } = deps;

  async function findVersion(tenant: string, className: string, hash: string): Promise<FlowVersionRecord> {
    const record = isFlowHash(hash) ? await flows.get(tenant, className, hash) : undefined;
    if (!record) throw new BeaconError("not_found", "The class has no such flow version");
    return record;
  }

  return {
    /** Publishes a flow version for the class: immutable, addressed by the SHA-256 of the bytes. */
    async upload(
      principal: Principal,
      className: string,
      bytes: Uint8Array,
      label?: string,
      requireCompatible = false,
    ): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      assertClassName(className);
      if (label !== undefined) assertFlowLabel(label);
      const document = await readFlowDocument(bytes, deps.maxFlowBytes);
      await deps.checkParameters(
        "Publishing the version",
        principal.tenant,
        { ...document, className },
        bytes,
      );
      const version: NewFlowVersion = dropUndefined({
        ...document,
        className,
        createdAt: clock.now(),
        createdBy: principal.subject,
        label,
      });
      if (requireCompatible) refuseIncompatible(await deps.validate(principal.tenant, version, bytes));
      const { record, created } = await flows.add(principal.tenant, version, bytes);
      return { status: created ? 201 : 200, body: flowVersionView(record) };
    },

    async list(
      principal: Principal,
      className: string,
      request: { cursor?: string; limit?: number },
    ): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const page = await flows.list(principal.tenant, className, pageRequestOf(request, isFlowHash));
      return { body: pageBodyOf(page, flowVersionView) };
    },

    async get(principal: Principal, className: string, hash: string): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      return { body: flowVersionView(await findVersion(principal.tenant, className, hash)) };
    },

    /** Sets the version's label, or removes it (the empty string); the version is otherwise as it was. */
    async label(
      principal: Principal,
      className: string,
      hash: string,
      label: string,
    ): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      if (label !== "") assertFlowLabel(label);
      const record = isFlowHash(hash)
        ? await flows.setLabel(principal.tenant, className, hash, label === "" ? undefined : label)
        : undefined;
      if (!record) throw new BeaconError("not_found", "The class has no such flow version");
      return { body: flowVersionView(record) };
    },

    async content(principal: Principal, className: string, hash: string): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      await findVersion(principal.tenant, className, hash);
      const content = await flows.read(principal.tenant, hash);
      if (!content) throw new BeaconError("not_found", "The class has no such flow version");
      return { body: Buffer.from(content.bytes).toString("utf8"), contentType: content.contentType };
    },

    /**
     * A dry run: whether the class's agents could run the version, manifest by manifest. Every processor
     * and controller service type the flow uses must be in the agent's manifest.
     */
    async validate(principal: Principal, className: string, hash: string): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const version = await findVersion(principal.tenant, className, hash);
      return { body: await deps.validate(principal.tenant, version) };
    },
  };
}
