import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { eachAtMost, partRange, sentTotal, sha256OfBlob } from "../src/asset-parts.js";

describe("the SHA-256 of a file, slice by slice", () => {
  it("is the whole file's, whatever the slices, with the bytes read so far after each", async () => {
    const bytes = Buffer.from(Array.from({ length: 10_001 }, (_, index) => (index * 7) % 251));
    const whole = createHash("sha256").update(bytes).digest("hex");
    for (const sliceBytes of [1_000, 4_096, 10_001, 65_536]) {
      const read: number[] = [];
      expect(await sha256OfBlob(new Blob([bytes]), (done) => read.push(done), sliceBytes)).toBe(whole);
      expect(read.at(-1)).toBe(bytes.length);
      expect(read).toEqual([...read].sort((a, b) => a - b));
    }
    expect(await sha256OfBlob(new Blob([bytes]), () => undefined)).toBe(whole);
  });
});

describe("an upload's parts", () => {
  it("each cover their own bytes of the file, the last one the rest", () => {
    const upload = { partBytes: 8 };
    expect(partRange(upload, { partNumber: 1, sizeBytes: 8 })).toEqual({ start: 0, end: 8 });
    expect(partRange(upload, { partNumber: 3, sizeBytes: 5 })).toEqual({ start: 16, end: 21 });
  });

  it("add up to the upload's progress, a part sent again counting once", () => {
    const seen: number[] = [];
    const sent = sentTotal(21, (done) => seen.push(done));
    sent(1, 4);
    sent(2, 8);
    sent(1, 8);
    sent(1, 3);
    sent(3, 5);
    sent(1, 8);
    expect(seen).toEqual([4, 12, 16, 11, 16, 21]);
  });
});

describe("at most so many at once", () => {
  it("works through every item, never more than the limit together", async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    await eachAtMost([1, 2, 3, 4, 5, 6, 7], 3, async (item) => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setImmediate(resolve));
      done.push(item);
      running -= 1;
    });
    expect(done.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
  });

  it("fails with the first failure, taking no item once it is seen", async () => {
    const started: number[] = [];
    const run = eachAtMost([1, 2, 3, 4, 5], 2, async (item) => {
      started.push(item);
      if (item === 2) throw new Error("part 2 refused");
    });
    await expect(run).rejects.toThrow("part 2 refused");
    // Item 3 was taken when item 1 ended, before item 2's failure was seen; 4 and 5 never were.
    expect(started).toEqual([1, 2, 3]);
  });
});
