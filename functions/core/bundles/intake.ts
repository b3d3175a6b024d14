/**
 * Taking a debug bundle from an agent: who may upload one, for which operation, and what is recorded once its
 * bytes are stored. The ingress (the streaming intake, functions/bundle-intake) reads the body and counts it;
 * this decides everything else, so that every ingress refuses alike.
 */
import { BeaconError } from "../errors.js";
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
     * Stores the bytes `source` yields and records the bundle. A source that fails (too large, cut short) leaves
     * nothing stored; a bundle that another upload recorded first removes this upload's own bytes.
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
      if (await bundles.create(bundle)) return bundle;
      await content.remove(slot);
      throw bundleExists();
    },
  };
}

const bundleExists = () =>
  new BeaconError("debug_bundle_exists", "The operation's debug bundle was uploaded already");

export type DebugBundleIntake = ReturnType<typeof makeDebugBundleIntake>;
