import { gzipSync } from "node:zlib";
import { expect, it } from "vitest";
import { partitionPath, partitionPathsOf } from "../../core/archive/layout.js";
import type { ArchiveReader, ArchiveStore } from "../../core/archive/ports.js";
import { contract } from "./contract.js";

const lines = (count: number) =>
  Array.from({ length: count }, (_, index) => `${JSON.stringify({ eventId: `e-${index}` })}\n`).join("");

/** The archive written and read back: its objects' bytes, as the bucket keeps them (gzip), under a prefix. */
export const eventArchiveContract = contract<ArchiveStore & ArchiveReader>("the event archive", (the) => {
  it("answers the bytes of the objects under a prefix, each tenant's and day's apart, and the folders under one", async () => {
    const archive = the.subject;
    const folder = (tenant: string, day: string, hour: string) => partitionPath({ tenant, day, hour });
    const written = [
      [folder(the.tenant, "2026-11-29", "23"), lines(3)],
      [folder(the.tenant, "2026-11-30", "00"), lines(40)],
      [folder(the.tenant, "2026-11-30", "01"), lines(7)],
      [folder(`${the.tenant}-other`, "2026-11-30", "00"), lines(90)],
    ] as const;
    for (const [path, text] of written) await archive.put(`${path}shardId-000000000000-1-2.json.gz`, text);
    const [first, second, third] = written.map(([, text]) => gzipSync(text).length) as [
      number,
      number,
      number,
    ];
    const [tenantPrefix] = partitionPathsOf(the.tenant);
    expect(await archive.bytesUnder(tenantPrefix as string)).toBe(first + second + third);
    expect(await archive.bytesUnder(`${tenantPrefix}day=2026-11-30/`)).toBe(second + third);
    expect(await archive.bytesUnder(`${tenantPrefix}day=2026-11-28/`)).toBe(0);
    // A key written again replaces its object: its bytes count once.
    await archive.put(`${folder(the.tenant, "2026-11-29", "23")}shardId-000000000000-1-2.json.gz`, lines(3));
    expect(await archive.bytesUnder(`${tenantPrefix}day=2026-11-29/`)).toBe(first);
    // The tenant's day folders, and each day's hour folders.
    expect(await archive.foldersUnder(tenantPrefix as string)).toEqual([
      `${tenantPrefix}day=2026-11-29/`,
      `${tenantPrefix}day=2026-11-30/`,
    ]);
    expect(await archive.foldersUnder(`${tenantPrefix}day=2026-11-30/`)).toEqual([
      `${tenantPrefix}day=2026-11-30/hour=00/`,
      `${tenantPrefix}day=2026-11-30/hour=01/`,
    ]);
    expect(await archive.foldersUnder(`${tenantPrefix}day=2026-11-28/`)).toEqual([]);
  });
});
