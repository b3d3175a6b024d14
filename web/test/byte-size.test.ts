import { describe, expect, it } from "vitest";
import { byteSize } from "../src/format.js";

describe("byteSize", () => {
  it("says bytes, KiB or MiB as people read them", () => {
    expect(byteSize(0)).toBe("0 B");
    expect(byteSize(1023)).toBe("1023 B");
    expect(byteSize(1024)).toBe("1.0 KiB");
    expect(byteSize(1536)).toBe("1.5 KiB");
    expect(byteSize(3 * 1024 * 1024)).toBe("3.0 MiB");
  });
});
