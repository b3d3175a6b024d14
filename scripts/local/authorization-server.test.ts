import { describe, expect, it } from "vitest";
import { isLoopbackRedirect } from "./authorization-server.js";

describe("the local authorization server's return addresses", () => {
  it("takes a native client's loopback address on any port, at the callback path only (RFC 8252)", () => {
    expect(isLoopbackRedirect("http://127.0.0.1:49152/auth/callback")).toBe(true);
    for (const refused of [
      "http://127.0.0.1/auth/callback",
      "https://127.0.0.1:49152/auth/callback",
      "http://localhost:49152/auth/callback",
      "http://127.0.0.2:49152/auth/callback",
      "http://127.0.0.1:49152/elsewhere",
      "http://127.0.0.1:49152/auth/callback?next=x",
      "http://user@127.0.0.1:49152/auth/callback",
      "http://evil.example:49152/auth/callback",
      "not a url",
    ]) {
      expect(isLoopbackRedirect(refused), refused).toBe(false);
    }
  });
});
