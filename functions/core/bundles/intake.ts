/**
 * Taking a debug bundle from an agent: who may upload one, for which operation, and what is recorded once its
 * bytes are stored. The ingress (the streaming intake, functions/bundle-intake) reads the body and counts it;
 * this decides everything else, so that every ingress refuses and meters alike.
 */
import { BeaconError } from "../errors.js";
import type { EventSink } from "../events/ports.js";
import { publishReportingFailure } from "../events/publishing.js";
import { uploadEvent } from "../events/upload-event.js";
import {
  type CaBindings,
  credentialOfCertificate,
  type DistinguishedCertificate,
} from "../identity/ca-bindings.js";
import { authorizeAgent } from "../identity/credentials.js";
import type { RevocationList } from "../identity/ports.js";
import { agentOfOperation, isValidOperationId } from "../operations/ids.js";
import type { OperationStore } from "../operations/ports.js";
import { isTransferDebug } from "../operations/transfer-debug.js";
import type { Clock, IdGenerator } from "../ports.js";
import { type DebugBundle, debugBundleNotExpected } from "./model.js";
import type { DebugBundleContent, DebugBundleObject, DebugBundleStore } from "./ports.js";

export interface DebugBundleIntakeDependencies {
  operations: OperationStore;
  bundles: DebugBundleStore;
  content: DebugBundleContent;
  revocations: RevocationList;
  /** Where a stored bundle's upload event goes, for usage to count it. */
  events: EventSink;
  clock: Clock;
  ids: IdGenerator;
  /** Which tenants each trusted CA may speak for; absent when every trusted CA is Beacon's own. */
  caBindings?: () => CaBindings | undefined;
  /** How long the console serves a bundle; the bucket's lifecycle deletes it after. */
  retentionMs: number;
}

/** An upload admitted: the object its bytes go to. */
export type DebugBundleSlot = DebugBundleObject & { agentId: string };

export function makeDebugBundleIntake(deps: DebugBundleIntakeDependencies) {
  const { operations, bundles, content, clock } = deps;
  return {
    /**
     * The slot of an upload for `operationId`, before any byte of it is read: the certificate's tenant must
     * have the operation, a TRANSFER DEBUG, and an agent certificate must be its agent's; the operation must
     * be delivered and have no bundle yet. Another tenant's operation is one the caller's tenant does not have.
     */
    async admit(certificate: DistinguishedCertificate, operationId: string): Promise<DebugBundleSlot> {
      const credential = credentialOfCertificate(certificate, deps.caBindings?.());
      if (await deps.revocations.isRevoked(credential.tenant, credential.serialNumber))
        throw new BeaconError("certificate_revoked", "The client certificate has been revoked");
      const agentId = isValidOperationId(operationId) ? agentOfOperation(operationId) : undefined;
      if (agentId === undefined) throw debugBundleNotExpected();
      authorizeAgent(credential, agentId);
      const record = await operations.get(credential.tenant, agentId, operationId);
      if (!record || !isTransferDebug(record)) throw debugBundleNotExpected();
      if (record.state !== "delivered")
        throw new BeaconError(
          "debug_bundle_not_expected",
          `The operation is ${record.state}: a bundle is taken only while it is delivered and unacknowledged`,
        );
      if (await bundles.get(credential.tenant, operationId)) throw bundleExists();
      return { tenant: credential.tenant, agentId, operationId, uploadId: deps.ids.newId() };
    },

    /**
     * Stores the bytes `source` yields, records the bundle and puts its upload event on the stream. A source that
     * fails (too large, cut short) leaves nothing stored and puts no event; a bundle that another upload recorded
     * first removes this upload's own bytes, and puts none either.
     */
    async store(slot: DebugBundleSlot, source: AsyncIterable<Uint8Array>, size: () => number) {
      await content.put(slot, source);
      const storedAt = clock.now();
      const bundle: DebugBundle = {
        ...slot,
        bytes: size(),
        storedAt,
        expiresAt: storedAt + deps.retentionMs,
      };
      if (!(await bundles.create(bundle))) {
        await content.remove(slot);
        throw bundleExists();
      }
      const { tenant, agentId } = slot;
      // The sink holds the event when the stream is down, and logs it whole when it can keep it nowhere: the
      // bundle is stored either way, and an agent told otherwise would only upload it again, to be refused.
      await publishReportingFailure(deps.events, [
        uploadEvent({
          eventId: deps.ids.newId(),
          tenant,
          agentId,
          at: storedAt,
          what: "debugBundle",
          bytesIn: bundle.bytes,
        }),
      ]);
      return bundle;
    },
  };
}

const bundleExists = () =>
  new BeaconError("debug_bundle_exists", "The operation's debug bundle was uploaded already");

export type DebugBundleIntake = ReturnType<typeof makeDebugBundleIntake>;
