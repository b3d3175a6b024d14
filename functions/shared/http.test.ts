import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { BeaconError } from "../core/errors.js";
import { decodeBody, errorResponse, parseJsonObject, RecurringValueParser } from "./http.js";

const limits = { maxInflatedBytes: 1024 * 1024, maxJsonDepth: 64 };

const codeOf = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return (error as BeaconError).code;
  }
  return "no error";
};

describe("decodeBody", () => {
  it("inflates a gzip body sent base64-encoded", () => {
    const body = gzipSync('{"a":1}').toString("base64");
    expect(decodeBody(body, true, "gzip", limits)).toBe('{"a":1}');
  });

  it("stops a gzip bomb at the cap with payload_too_large", () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(100 * 1024);
    expect(codeOf(() => decodeBody(bomb.toString("base64"), true, "gzip", limits))).toBe("payload_too_large");
  });

  it("refuses a plain body over the cap", () => {
    expect(codeOf(() => decodeBody("x".repeat(limits.maxInflatedBytes + 1), false, undefined, limits))).toBe(
      "payload_too_large",
    );
  });

  it("refuses bytes that are not gzip", () => {
    expect(codeOf(() => decodeBody(Buffer.from("nope").toString("base64"), true, "gzip", limits))).toBe(
      "malformed_json",
    );
  });

  it("measures a plain body's cap in bytes, not characters", () => {
    const text = "é".repeat(limits.maxInflatedBytes / 2 + 1);
    expect(codeOf(() => decodeBody(text, false, undefined, limits))).toBe("payload_too_large");
    expect(decodeBody("é".repeat(8), false, "identity", limits)).toBe("é".repeat(8));
  });

  it("refuses encodings other than gzip", () => {
    expect(codeOf(() => decodeBody("{}", false, "br", limits))).toBe("unsupported_content_encoding");
  });
});

describe("parseJsonObject", () => {
  it("parses an object", () => {
    expect(parseJsonObject('{"a":{"b":[1,2]}}', limits)).toEqual({ a: { b: [1, 2] } });
  });

  it("refuses nesting past the limit before parsing", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    expect(codeOf(() => parseJsonObject(deep, limits))).toBe("payload_too_deep");
  });

  it("ignores brackets inside strings when measuring depth", () => {
    const text = JSON.stringify({ text: "[".repeat(1_000), escaped: '\\"[[[' });
    expect(parseJsonObject(text, limits)).toHaveProperty("text");
  });

  it("measures the depth after a string that ends in an escaped backslash", () => {
    const deep = `${"[".repeat(limits.maxJsonDepth)}${"]".repeat(limits.maxJsonDepth)}`;
    const text = `{"path":"C:\\\\","escaped":"\\"[","deep":${deep}}`;
    expect(JSON.parse(text)).toHaveProperty("path", "C:\\");
    expect(codeOf(() => parseJsonObject(text, limits))).toBe("payload_too_deep");
  });

  it("ends a string at the first quote an even number of backslashes precedes", () => {
    const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
    const past = limits.maxJsonDepth + 1;
    // The strings end before the brackets, which count.
    for (const ending of ["\\\\", "\\\\\\\\", "x\\\\", ""])
      expect(codeOf(() => parseJsonObject(`{"a":"${ending}","b":${nested(past)}}`, limits))).toBe(
        "payload_too_deep",
      );
    // The quotes are escaped: the brackets are in the string.
    for (const escaped of ['\\"', '\\\\\\"', '\\"\\\\\\"'])
      expect(parseJsonObject(`{"a":"${escaped}${"[".repeat(past)}"}`, limits)).toHaveProperty("a");
  });

  it("holds a string to the same depth as its bytes, wherever wide characters sit", () => {
    const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
    const bytes = new RecurringValueParser(["x"], 1, limits);
    const outcomes = (text: string) => [
      codeOf(() => parseJsonObject(text, limits)),
      codeOf(() => bytes.parse(Buffer.from(text, "utf8"))),
    ];
    // Characters of two and four UTF-8 bytes, one and two UTF-16 units, in keys and before escaped quotes.
    for (const wide of ["é", "😀", "é😀\\\\", '😀\\"']) {
      // The object itself is one level: the array nests as deep as the limit lets it, then one deeper.
      const within = `{"${wide}":"${wide}\\"[","a":${nested(limits.maxJsonDepth - 1)}}`;
      const past = `{"${wide}":"${wide}\\"[","a":${nested(limits.maxJsonDepth)}}`;
      expect(JSON.parse(within)).toHaveProperty("a");
      expect(outcomes(within)).toEqual(["no error", "no error"]);
      expect(outcomes(past)).toEqual(["payload_too_deep", "payload_too_deep"]);
    }
  });

  it("tells malformed JSON and non-objects apart", () => {
    expect(codeOf(() => parseJsonObject("{", limits))).toBe("malformed_json");
    expect(codeOf(() => parseJsonObject("[1]", limits))).toBe("invalid_payload");
  });
});

describe("RecurringValueParser", () => {
  const path = ["agentInfo", "agentManifest", "bundles"];
  const parser = () => {
    const bodies = new RecurringValueParser(path, 2, limits);
    return { parse: (text: string) => bodies.parse(Buffer.from(text, "utf8")) };
  };
  const bundles = [{ group: "org.apache.nifi.minifi", artifact: "minifi-system", components: ["[", "{"] }];
  const bodyOf = (agentId: string, value: unknown = bundles) =>
    JSON.stringify({
      agentInfo: { identifier: agentId, agentManifest: { bundles: value, agentType: "cpp" } },
    });
  const bundlesOf = (body: Record<string, unknown>) =>
    ((body.agentInfo as Record<string, unknown>).agentManifest as Record<string, unknown>).bundles;

  it("parses the value at the path once for every body that carries its bytes, kept frozen", () => {
    const bodies = parser();
    const first = bodies.parse(bodyOf("a"));
    const second = bodies.parse(bodyOf("b"));
    expect(second).toEqual(JSON.parse(bodyOf("b")));
    expect(bundlesOf(second)).toBe(bundlesOf(first));
    expect(Object.isFrozen((bundlesOf(second) as unknown[])[0])).toBe(true);
    // What is not at the path is each body's own.
    expect(second.agentInfo).not.toBe(first.agentInfo);
  });

  it("parses other bytes at the path as their own, whatever else the body says alike", () => {
    const bodies = parser();
    const first = bodies.parse(bodyOf("a"));
    const other = [{ ...bundles[0], artifact: "minifi-other" }];
    const second = bodies.parse(bodyOf("a", other));
    expect(bundlesOf(second)).toEqual(other);
    expect(bundlesOf(second)).not.toBe(bundlesOf(first));
    // The same value written otherwise (its whitespace) is other bytes, parsed too.
    const spaced = bodyOf("a").replace('"bundles":[', '"bundles": [ ');
    expect(bundlesOf(bodies.parse(spaced))).not.toBe(bundlesOf(first));
    expect(bodies.parse(spaced)).toEqual(JSON.parse(spaced));
  });

  it("parses as JSON.parse does where a key on the path recurs or is escaped", () => {
    const known = JSON.stringify(bundles);
    const other = '[{"artifact":"other"}]';
    const texts = [
      `{"agentInfo":{"agentManifest":{"bundles":${known},"bundles":${other}}}}`,
      `{"agentInfo":{"agentManifest":{"bundles":${known},"bundl\\u0065s":${other}}}}`,
      `{"agentInfo":{"agentManifest":{"bundles":${known}},"agentManifest":{"bundles":${other}}}}`,
      `{"agentInfo":{"agentManifest":{"bundles":${known}}},"agent\\u0049nfo":{"agentManifest":{"bundles":${other}}}}`,
    ];
    for (const text of texts) {
      const bodies = parser();
      bodies.parse(bodyOf("a"));
      expect(bodies.parse(text)).toEqual(JSON.parse(text));
    }
  });

  it("keeps the values it used last, of any characters, and tells them from their bytes alone", () => {
    const bodies = parser();
    const named = (name: string) => [{ ...bundles[0], artifact: name }];
    const first = bodies.parse(bodyOf("ä", named("ünïcode ✓")));
    const second = bodies.parse(bodyOf("b", named("b")));
    // Used again, the first is kept over the second when a third comes.
    const again = bodies.parse(bodyOf("ç ✓", named("ünïcode ✓")));
    expect(again).toEqual(JSON.parse(bodyOf("ç ✓", named("ünïcode ✓"))));
    expect(bundlesOf(again)).toBe(bundlesOf(first));
    bodies.parse(bodyOf("c", named("c")));
    expect(bundlesOf(bodies.parse(bodyOf("d", named("ünïcode ✓"))))).toBe(bundlesOf(first));
    const forgotten = bodies.parse(bodyOf("e", named("b")));
    expect(bundlesOf(forgotten)).toEqual(named("b"));
    expect(bundlesOf(forgotten)).not.toBe(bundlesOf(second));
    // Bytes that begin as a kept value's but are not it are their own.
    const longer = bodyOf("f", named("ünïcode ✓")).replace(']},"agentType"', ',1]},"agentType"');
    expect(bodies.parse(longer)).toEqual(JSON.parse(longer));
  });

  it("finds the value only at the path", () => {
    const bodies = parser();
    const first = bodies.parse(bodyOf("a"));
    const elsewhere = JSON.stringify({ agentManifest: { bundles }, agentInfo: { bundles } });
    const parsed = bodies.parse(elsewhere);
    expect(parsed).toEqual(JSON.parse(elsewhere));
    expect((parsed.agentInfo as Record<string, unknown>).bundles).not.toBe(bundlesOf(first));
  });

  it("refuses a malformed or too deep body around a value it knows", () => {
    const bodies = parser();
    bodies.parse(bodyOf("a"));
    expect(codeOf(() => bodies.parse(`${bodyOf("b").slice(0, -1)},}`))).toBe("malformed_json");
    const deep = `${"[".repeat(limits.maxJsonDepth)}${"]".repeat(limits.maxJsonDepth)}`;
    expect(codeOf(() => bodies.parse(`${bodyOf("b").slice(0, -1)},"deep":${deep}}`))).toBe(
      "payload_too_deep",
    );
    expect(codeOf(() => bodies.parse(`[${bodyOf("b")}]`))).toBe("invalid_payload");
  });

  it("checks the nesting of a body without the path as deep as of one with it", () => {
    const bodies = parser();
    const nested = (depth: number) => `{"a":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`;
    expect(bodies.parse(nested(limits.maxJsonDepth))).toEqual(JSON.parse(nested(limits.maxJsonDepth)));
    expect(codeOf(() => bodies.parse(nested(limits.maxJsonDepth + 1)))).toBe("payload_too_deep");
    // More containers than the limit, side by side or as brackets in strings, nest no deeper for it.
    const wide = JSON.stringify({ a: Array.from({ length: limits.maxJsonDepth }, () => ({ b: [] })) });
    const bracketed = JSON.stringify({ a: "[{".repeat(limits.maxJsonDepth) });
    for (const text of [wide, bracketed]) expect(bodies.parse(text)).toEqual(JSON.parse(text));
    expect(codeOf(() => bodies.parse(`{"a":"[",${nested(limits.maxJsonDepth + 1).slice(1)}`))).toBe(
      "payload_too_deep",
    );
  });

  it("refuses a malformed value at the path however often it comes", () => {
    const bodies = parser();
    const broken = bodyOf("a").replace('"bundles":[', '"bundles":[1,,');
    expect(codeOf(() => bodies.parse(broken))).toBe("malformed_json");
    expect(codeOf(() => bodies.parse(broken))).toBe("malformed_json");
  });
});

describe("errorResponse", () => {
  it("maps a domain error to its status with a stable code", () => {
    const response = errorResponse(new BeaconError("identity_mismatch", "no"));
    expect(response.statusCode).toBe(403);
    expect(JSON.parse(response.body)).toEqual({ error: { code: "identity_mismatch", message: "no" } });
  });

  it("never leaks an unexpected error", () => {
    const response = errorResponse(new Error("secret stack detail"));
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain("secret");
  });
});
