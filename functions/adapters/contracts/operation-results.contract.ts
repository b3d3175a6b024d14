import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import type { OperationResultStore } from "../../core/operations/ports.js";
import { contract } from "./contract.js";

/** DESCRIBE answers per tenant and operation: read back exactly, and another tenant's never. */
export const operationResultsContract = contract<OperationResultStore>(
  "the operation result store",
  (the) => {
    it("serves an answer back exactly under its tenant only, and nothing for an operation without one", async () => {
      const store = the.subject;
      const answer = new TextEncoder().encode('{"configuration_options":{"nifi.c2.enable":"true"}}');
      expect(await store.read(the.tenant, "op-1")).toBeUndefined();

      await store.put(the.tenant, "op-1", answer);
      expect(Buffer.from((await store.read(the.tenant, "op-1")) ?? []).equals(Buffer.from(answer))).toBe(
        true,
      );
      expect(await store.read(`${the.tenant}-other`, "op-1")).toBeUndefined();
      expect(await store.read(the.tenant, "op-2")).toBeUndefined();
    });

    it("keeps a large answer (a thread dump, a metrics tree) whole, whatever its caller does to the bytes afterwards", async () => {
      const store = the.subject;
      const answer = randomBytes(3 * 1024 * 1024);
      const kept = Buffer.from(answer);
      await store.put(the.tenant, "op-large", answer);
      answer.fill(0);
      expect(Buffer.from((await store.read(the.tenant, "op-large")) ?? []).equals(kept)).toBe(true);
    });
  },
);
