import { describe, expect, it } from "vitest";
import { binaryNameOf } from "./binary-name.js";

const manifestId = "3f9a12c0d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1";

describe("a binary's name", () => {
  it("is its agent type and version as people say them, and the start of its canonical id", () => {
    expect(binaryNameOf({ manifestId, agentType: "minifi-java", version: "2.3.0" })).toBe(
      "MiNiFi Java 2.3.0 · 3f9a12c",
    );
    expect(binaryNameOf({ manifestId, agentType: "cpp", version: "0.15.0" })).toBe(
      "MiNiFi C++ 0.15.0 · 3f9a12c",
    );
    expect(binaryNameOf({ manifestId, agentType: "minifi-cpp", version: "0.99.1" })).toBe(
      "MiNiFi C++ 0.99.1 · 3f9a12c",
    );
  });

  it("shows a type it does not know as stated, and says what the manifest left out", () => {
    expect(binaryNameOf({ manifestId, agentType: "edge-x", version: "1" })).toBe("edge-x 1 · 3f9a12c");
    expect(binaryNameOf({ manifestId })).toBe("Unknown agent (version unknown) · 3f9a12c");
  });
});
