import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { supportedOperationEntriesOf, supportedOperationsOf } from "./manifest.js";

describe("a manifest's supportedOperations", () => {
  it("keeps the entries that name an operation, property values and all, and drops the rest", () => {
    const describe = { type: "describe", properties: { manifest: { type: "string" } } };
    const update = { type: "UPDATE", properties: { availableProperties: [{ name: "x", value: null }] } };
    const entries = [null, 7, "START", [], {}, { type: 3 }, { type: "" }, { type: null }, describe, update];
    expect(supportedOperationEntriesOf(entries)).toEqual([describe, update]);
    expect(supportedOperationsOf(entries)).toEqual({
      DESCRIBE: ["MANIFEST"],
      UPDATE: ["AVAILABLEPROPERTIES"],
    });
  });

  it("reads anything that is no list as none", () => {
    for (const entries of [undefined, null, "DESCRIBE", 1, { type: "DESCRIBE" }])
      expect(supportedOperationEntriesOf(entries)).toEqual([]);
  });

  it("keeps every entry that names an operation, as it came, and nothing else, whatever else is listed", () => {
    const entry = fc.record({ type: fc.string({ minLength: 1 }), properties: fc.jsonValue() });
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.jsonValue(), entry)), fc.array(entry), (junk, named) => {
        const kept = supportedOperationEntriesOf([...junk, ...named]);
        for (const operation of named) expect(kept).toContain(operation);
        for (const operation of kept) {
          expect(operation).toBeTypeOf("object");
          expect(operation.type).toBeTypeOf("string");
          expect(operation.type).not.toBe("");
        }
      }),
      { seed: 20_240_601, numRuns: 200 },
    );
  });
});
