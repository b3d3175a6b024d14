import type { ClassCatalog } from "../agents/ports.js";
import type { DebugBundleContent, DebugBundleStore } from "../bundles/ports.js";
import { BeaconError } from "../errors.js";
import { readFlowDocument } from "../flows/document.js";
import { flowIdsOf } from "../flows/policy.js";
import type { ClassFlowWriter, FlowCatalog, FlowVersionRecord } from "../flows/ports.js";
import { guardedCache } from "../guarded-cache.js";
import { isFinal } from "../operations/model.js";
import type { OperationStore } from "../operations/ports.js";
import type { Clock } from "../ports.js";
import { closingOf, policyOf, timingOf } from "../rollouts/decisions.js";
import { periodOf } from "../rollouts/engine.js";
import { flowInBundle } from "./bundle-flow.js";
import type { AdoptionRecord } from "./model.js";
import type { AdoptionKey, AdoptionStore } from "./ports.js";

/** How much a bundle may inflate to while its flow is looked for: its logs are counted, never kept. */
const MAX_BUNDLE_TAR_BYTES = 512 * 1024 * 1024;

export interface AdoptionSettlementDependencies {
  adoptions: AdoptionStore;
  catalog: Pick<ClassCatalog, "get">;
  /** Where the version made current goes for catch-up. */
  classFlowCache: ClassFlowWriter;
  flows: Pick<FlowCatalog, "add">;
  operations: Pick<OperationStore, "get">;
  debugBundles: Pick<DebugBundleStore, "get">;
  debugBundleContent: Pick<DebugBundleContent, "read">;
  clock: Clock;
  /** Largest flow document accepted, inflated: as for a version uploaded. */
  maxFlowBytes: number;
}

export interface AdoptionSweepOutcome {
  /** Requested adoptions looked at. */
  looked: number;
  /** Adoptions settled while this run looked at them (by it, or by a read at the same time), by state reached. */
  adopted: number;
  failed: number;
  /** Requested adoptions left for the next run: the run reached its deadline first. */
  deferred: number;
  /** Looks that threw, with the adoption each was at: the others went on, and the next run looks again. */
  errors: { adoption: AdoptionKey; error: unknown }[];
}

/**
 * Settling an adoption once its agent's bundle is stored, or its TRANSFER DEBUG ended without one: the flow read
 * out of the bundle is kept as a version of the class, made current when the class had none. A read of the
 * adoption settles it, and so does the sweeper's pass over those still requested, so that it settles with nobody
 * reading it. Both may settle the same adoption at once: the version is written once (by its hash), the class's
 * policy once (conditionally), and the adoption's record once (conditionally on it being requested); the
 * settlement that loses the last write answers the record the winner wrote.
 */
export function makeAdoptionSettlement(deps: AdoptionSettlementDependencies) {
  const { adoptions, flows, clock } = deps;

  /** Reads the flow out of the stored bundle and keeps it as a version; the settled record, or why it failed. */
  async function adoptFromBundle(record: AdoptionRecord, now: number): Promise<AdoptionRecord> {
    const { tenant, className } = record;
    const bundle = await deps.debugBundles.get(tenant, record.adoptionId);
    if (!bundle) {
      const operation = await deps.operations.get(tenant, record.agentId, record.adoptionId);
      if (operation && !isFinal(operation.state)) return record;
      const closing = operation ? closingOf(operation) : "The operation is gone";
      return failed(record, now, `The agent sent no debug bundle. ${closing}`);
    }
    if (now >= bundle.expiresAt)
      return failed(record, now, "The agent's debug bundle expired before it was read");
    try {
      const { entry, bytes } = await flowInBundle(deps.debugBundleContent.read(bundle), {
        maxFlowBytes: deps.maxFlowBytes,
        maxTarBytes: MAX_BUNDLE_TAR_BYTES,
      });
      const document = await readFlowDocument(bytes, deps.maxFlowBytes);
      const { record: version } = await flows.add(
        tenant,
        { ...document, className, createdAt: now, createdBy: record.createdBy, adoptedFlowId: record.flowId },
        bytes,
      );
      if (version.adoptedFlowId !== record.flowId)
        return failed(
          record,
          now,
          `The class holds this flow already as version ${version.hash}, which agents report by that id`,
        );
      const current = await makeCurrent(tenant, className, version, now);
      return {
        ...record,
        state: "adopted",
        flowHash: version.hash,
        bundleEntry: entry,
        current,
        updatedAt: now,
      };
    } catch (error) {
      if (error instanceof BeaconError && error.code === "invalid_request")
        return failed(record, now, error.message);
      throw error;
    }
  }

  /** The version becomes the class's current one when the class has none: catch-up then moves the others. */
  async function makeCurrent(tenant: string, className: string, version: FlowVersionRecord, now: number) {
    const timing = timingOf(await deps.catalog.get(tenant, className));
    const policy = policyOf(version.hash, flowIdsOf(version), timing.ackTimeoutMs);
    const made = await adoptions.makeCurrent(tenant, className, policy, now);
    if (made === "made")
      await guardedCache().attempt(() =>
        deps.classFlowCache.rememberClassFlow(tenant, className, policy, periodOf(timing)),
      );
    return made !== "refused";
  }

  /** The adoption as it stands, settled first when its bundle arrived or its operation ended without one. */
  async function settled(record: AdoptionRecord): Promise<AdoptionRecord> {
    if (record.state !== "requested") return record;
    const next = await adoptFromBundle(record, clock.now());
    if (next === record || (await adoptions.settle(next))) return next;
    return (await adoptions.get(record.tenant, record.className, record.adoptionId)) ?? next;
  }

  return {
    settled,

    /**
     * One look at every adoption still requested, oldest first, until `deadline`: each settles as a read of it
     * would settle it. A look that throws is counted and the others go on.
     */
    async sweep(deadline = Number.POSITIVE_INFINITY): Promise<AdoptionSweepOutcome> {
      const outcome: AdoptionSweepOutcome = { looked: 0, adopted: 0, failed: 0, deferred: 0, errors: [] };
      for await (const adoption of adoptions.requested()) {
        if (clock.now() >= deadline) {
          outcome.deferred++;
          continue;
        }
        outcome.looked++;
        try {
          const record = await adoptions.get(adoption.tenant, adoption.className, adoption.adoptionId);
          if (record?.state !== "requested") continue;
          const next = await settled(record);
          if (next.state !== "requested") outcome[next.state]++;
        } catch (error) {
          outcome.errors.push({ adoption, error });
        }
      }
      return outcome;
    },
  };
}

export type AdoptionSettlement = ReturnType<typeof makeAdoptionSettlement>;

const failed = (record: AdoptionRecord, now: number, reason: string): AdoptionRecord => ({
  ...record,
  state: "failed",
  reason,
  updatedAt: now,
});
