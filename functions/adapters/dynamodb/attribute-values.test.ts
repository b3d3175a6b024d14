import { describe, expect, it } from "vitest";
import { fromAttributeValues, toAttributeValues } from "./attribute-values.js";

describe("attribute values", () => {
  it("carries each kind of document value as DynamoDB's JSON API does, and back", () => {
    const document = {
      pk: "tenant#acme",
      count: 3,
      ratio: 0.25,
      big: 12345678901234567890n,
      enabled: false,
      gone: null,
      empty: "",
      labels: { site: "north", nested: { depth: [1, "two", { three: true }] } },
      names: new Set(["a", "b"]),
      sizes: new Set([1, 2]),
      bytes: new Uint8Array([0, 1, 254, 255]),
      blobs: new Set([new Uint8Array([1]), new Uint8Array([2, 3])]),
    };
    const values = toAttributeValues(document);

    expect(values).toEqual({
      pk: { S: "tenant#acme" },
      count: { N: "3" },
      ratio: { N: "0.25" },
      big: { N: "12345678901234567890" },
      enabled: { BOOL: false },
      gone: { NULL: true },
      empty: { S: "" },
      labels: {
        M: {
          site: { S: "north" },
          nested: { M: { depth: { L: [{ N: "1" }, { S: "two" }, { M: { three: { BOOL: true } } }] } } },
        },
      },
      names: { SS: ["a", "b"] },
      sizes: { NS: ["1", "2"] },
      bytes: { B: "AAH+/w==" },
      blobs: { BS: ["AQ==", "AgM="] },
    });
    const { big: _big, ...back } = document;
    const { big: _bigValue, ...rest } = values;
    expect(fromAttributeValues(JSON.parse(JSON.stringify(rest)))).toEqual(back);
  });

  it("leaves out what is undefined, in an item, a map, a list or a set", () => {
    expect(
      toAttributeValues({
        kept: "x",
        left: undefined,
        map: { left: undefined, kept: 1 },
        list: [undefined, 2],
        set: new Set(["a", undefined]),
      }),
    ).toEqual({
      kept: { S: "x" },
      map: { M: { kept: { N: "1" } } },
      list: { L: [{ N: "2" }] },
      set: { SS: ["a"] },
    });
  });

  it("refuses what DynamoDB cannot hold or JavaScript cannot read back exactly", () => {
    expect(() => toAttributeValues({ set: new Set() })).toThrow(/set: an empty set/);
    expect(() => toAttributeValues({ n: Number.NaN })).toThrow(/n: NaN/);
    expect(() => toAttributeValues({ n: 2 ** 60 })).toThrow(/use a bigint/);
    expect(() => toAttributeValues({ when: new Date(0) })).toThrow(/when: a Date/);
    expect(() => toAttributeValues({ mixed: new Set(["a", 1]) })).toThrow(
      /all be strings, numbers or binary/,
    );
    expect(() => fromAttributeValues({ n: { N: "12345678901234567890" } })).toThrow(
      /n: 12345678901234567890/,
    );
    expect(() => fromAttributeValues({ x: { Q: "?" } })).toThrow(
      /x: an attribute value of an unknown type \(Q\)/,
    );
  });

  it("reads a Map as a map and an ArrayBuffer as binary", () => {
    expect(toAttributeValues({ m: new Map([["k", "v"]]), b: new Uint8Array([7, 8]).buffer })).toEqual({
      m: { M: { k: { S: "v" } } },
      b: { B: "Bwg=" },
    });
  });
});
