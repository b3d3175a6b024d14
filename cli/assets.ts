/**
 * `beacon assets` and a class's resource set: files agents keep beside their flows, pushed to a class's agents
 * with SYNC RESOURCE. An upload goes straight to storage in parts by the presigned URLs the API hands out, as
 * the web console's does (web/src/api/parts-upload.ts): the file is read twice and never held whole, once for
 * its SHA-256 (the asset's id, which the upload declares) and once part by part as each is sent.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import http from "node:http";
import https from "node:https";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import type { Command } from "commander";
import { dataOf, type Schemas } from "../web/src/api/client.js";
import { PartRefused, type PartSender, uploadInParts } from "../web/src/api/parts-upload.js";
import { assetSizeProblem } from "../web/src/asset-parts.js";
import { byteSize } from "../web/src/format.js";
import { saveStreamed } from "./download.js";
import { InterruptedError, UsageError } from "./exit.js";
import { type CommandKit, fileSize, integer } from "./kit.js";
import { fields, table } from "./output.js";

/** Parts sent at once unless told: enough to keep a link busy, few enough for a laptop's uplink. */
export const PARALLEL_PARTS = 3;
/** The media type an asset's downloads carry unless told. */
export const ASSET_CONTENT_TYPE = "application/octet-stream";
const MAX_PARALLEL_PARTS = 4;

/** A resource set's entry as the command line names it: `<assetId>`, or `<assetId>:<path>` for a folder. */
export function resourceItem(word: string): Schemas["ResourceSetRequest"]["items"][number] {
  const colon = word.indexOf(":");
  return colon === -1 ? { assetId: word } : { assetId: word.slice(0, colon), path: word.slice(colon + 1) };
}

/** The progress line a terminal shows, rewritten in place: what is under way, and how far. */
export function progressLine(stage: "hashing" | "sending", done: number, total: number): string {
  const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
  return `\r${stage === "hashing" ? "Hashing" : "Sending"} ${byteSize(done)} of ${byteSize(total)} (${percent}%)`;
}

/**
 * The file's SHA-256, read as a stream and never held whole (Node's own hash: several times faster than the
 * page's): an upload's and a fleet folder's assets.
 */
export async function sha256OfFile(file: string, onRead: (done: number) => void = () => {}): Promise<string> {
  const hash = createHash("sha256");
  let done = 0;
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer);
    done += (chunk as Buffer).length;
    onRead(done);
  }
  return hash.digest("hex");
}

/**
 * PUTs a part's bytes, read from the file as they go, to its presigned URL. `Expect: 100-continue` lets
 * storage refuse a link (expired, say) before any of the part is sent.
 */
export function filePartSender(file: string, signal?: AbortSignal): PartSender {
  return (part, { start, end }, onSent) =>
    new Promise<void>((resolve, reject) => {
      const url = new URL(part.url);
      const request = (url.protocol === "https:" ? https : http).request(url, {
        method: "PUT",
        headers: { "content-length": end - start, expect: "100-continue" },
        signal,
      });
      request.on("error", reject);
      request.on("response", (response) => {
        response.resume();
        const status = response.statusCode ?? 0;
        if (status >= 200 && status < 300) {
          onSent(end - start);
          response.on("end", resolve);
        } else reject(new PartRefused(part.partNumber, status, response.statusMessage ?? ""));
      });
      request.on("continue", () => {
        let sent = 0;
        const bytes = createReadStream(file, { start, end: end - 1 });
        bytes.on("data", (chunk) => {
          sent += chunk.length;
          onSent(sent);
        });
        pipeline(bytes, request).catch(reject);
      });
    });
}

export function addAssetCommands(program: Command, kit: CommandKit): void {
  const { io, client, show, page, paging, globals } = kit;
  const assets = program
    .command("assets")
    .description("assets: files a class's agents keep beside their flows, up to 100 MiB each");

  paging(assets.command("list").description("the tenant's assets")).action(
    async (options, command: Command) => {
      const query = { limit: options.limit, cursor: options.cursor };
      const data = await dataOf(client(command).GET("/api/v1/assets", { params: { query } }));
      page(command, data, ({ items }) =>
        table(
          ["asset", "name", "size", "created", "used by"],
          items.map((asset) => [
            asset.assetId,
            asset.name,
            byteSize(asset.sizeBytes),
            asset.createdAt,
            asset.usedBy.join(", "),
          ]),
        ),
      );
    },
  );

  assets
    .command("show <assetId>")
    .description("one asset")
    .action(async (assetId: string, _options, command: Command) => {
      const asset = await dataOf(
        client(command).GET("/api/v1/assets/{assetId}", { params: { path: { assetId } } }),
      );
      show(command, asset, assetFields);
    });

  assets
    .command("upload <file>")
    .description(
      "upload a file as an asset, straight to storage in parts; a part whose link expired is signed again",
    )
    .option("--name <name>", "the file name agents keep it under (default: the file's own name)")
    .option("--content-type <type>", "the media type agents' downloads carry", ASSET_CONTENT_TYPE)
    .option("--parallel <n>", `parts sent at once, 1 to ${MAX_PARALLEL_PARTS}`, integer(1), PARALLEL_PARTS)
    .action(
      async (
        file: string,
        options: { name?: string; contentType: string; parallel: number },
        command: Command,
      ) => {
        const name = options.name ?? path.basename(file);
        const sizeBytes = fileSize(file);
        const problem = assetSizeProblem(file, sizeBytes);
        if (problem !== undefined) throw new UsageError(problem);
        if (options.parallel > MAX_PARALLEL_PARTS)
          throw new UsageError(`--parallel is 1 to ${MAX_PARALLEL_PARTS}`);
        const api = client(command);
        const progress =
          io.isTerminal && !globals(command).json
            ? (stage: "hashing" | "sending", done: number) => io.err(progressLine(stage, done, sizeBytes))
            : () => undefined;
        const interrupted = new AbortController();
        const interrupt = () => interrupted.abort(new InterruptedError("Interrupted: the upload is aborted"));
        process.once("SIGINT", interrupt);
        try {
          const sha256 = await sha256OfFile(file, (done) => progress("hashing", done));
          interrupted.signal.throwIfAborted();
          const uploaded = await uploadInParts(
            api,
            { name, sizeBytes, sha256, contentType: options.contentType },
            filePartSender(file, interrupted.signal),
            {
              parallel: options.parallel,
              signal: interrupted.signal,
              onSent: (done) => progress("sending", done),
              onStarted: (upload) =>
                io.err(
                  `Upload ${upload.uploadId}: ${upload.parts.length} part(s) of ${byteSize(upload.partBytes)} at most, their links good until ${upload.expiresAt}\n`,
                ),
              onSignedAgain: (partNumber) =>
                io.err(`Part ${partNumber}: refused by storage (its link expired?), signed again\n`),
            },
          );
          if (io.isTerminal && !globals(command).json) io.err("\n");
          show(command, uploaded.asset, (asset) =>
            uploaded.created ? assetFields(asset) : `${assetFields(asset)}\n(already stored: nothing sent)`,
          );
        } catch (error) {
          // An interrupted part's request fails as aborted: the interruption is what to say.
          throw interrupted.signal.aborted ? interrupted.signal.reason : error;
        } finally {
          process.removeListener("SIGINT", interrupt);
        }
      },
    );

  assets
    .command("download <assetId>")
    .description("save an asset to a file, streamed, and check its SHA-256 is its id")
    .option("-o, --output <file>", "the file to write (default: the asset's name)")
    .action(async (assetId: string, options: { output?: string }, command: Command) => {
      const api = client(command);
      const file =
        options.output ??
        (await dataOf(api.GET("/api/v1/assets/{assetId}", { params: { path: { assetId } } }))).name;
      const { location } = await dataOf(
        api.GET("/api/v1/assets/{assetId}/content", {
          params: { path: { assetId }, query: { redirect: false } },
        }),
      );
      const saved = await saveStreamed("asset", location, file);
      if (saved.sha256 !== assetId)
        throw new Error(
          `${file} has SHA-256 ${saved.sha256}, not the asset's id ${assetId}: the download is corrupt`,
        );
      show(command, saved, ({ bytes, sha256 }) =>
        fields([
          ["Saved", file],
          ["Size", `${bytes} bytes (${byteSize(bytes)})`],
          ["SHA-256", sha256],
        ]),
      );
    });

  assets
    .command("delete <assetId>")
    .description("delete an asset no class's resource set holds")
    .action(async (assetId: string, _options, command: Command) => {
      const deleted = await dataOf(
        client(command).DELETE("/api/v1/assets/{assetId}", { params: { path: { assetId } } }),
      );
      show(command, deleted, (asset) => `Deleted ${asset.assetId} (${asset.name})`);
    });
}

/** `beacon classes resources` and `set-resources`: the assets a class's agents hold. */
export function addResourceSetCommands(classes: Command, kit: CommandKit): void {
  const { client, show } = kit;
  classes
    .command("resources <className>")
    .description("the assets the class's agents hold (its resource set)")
    .action(async (className: string, _options, command: Command) => {
      const set = await dataOf(
        client(command).GET("/api/v1/classes/{className}/resources", { params: { path: { className } } }),
      );
      show(command, set, resourceSetText);
    });

  classes
    .command("set-resources <className> [assets...]")
    .description(
      "replace the class's resource set with these assets (<assetId> or <assetId>:<folder>; none empties it) and push it to its agents with SYNC RESOURCE",
    )
    .action(async (className: string, words: string[], _options, command: Command) => {
      const pushed = await dataOf(
        client(command).PUT("/api/v1/classes/{className}/resources", {
          params: { path: { className } },
          body: { items: words.map(resourceItem) },
        }),
      );
      show(command, pushed, (set) => `${resourceSetText(set)}\n${syncResourceQueued(set)}`);
    });
}

/** What setting a resource set pushed: how many agents were sent a SYNC RESOURCE, how many skipped. */
export function syncResourceQueued(pushed: {
  created?: number;
  operations: unknown[];
  skippedCount?: number;
  skipped: unknown[];
}): string {
  return `SYNC RESOURCE queued for ${pushed.created ?? pushed.operations.length} agent(s), ${pushed.skippedCount ?? pushed.skipped.length} skipped`;
}

function assetFields(asset: Schemas["Asset"]): string {
  return fields([
    ["Asset", asset.assetId],
    ["Name", asset.name],
    ["Size", `${asset.sizeBytes} bytes (${byteSize(asset.sizeBytes)})`],
    ["Content type", asset.contentType],
    ["Created", `${asset.createdAt} by ${asset.createdBy}`],
    ["Used by", asset.usedBy.join(", ")],
  ]);
}

function resourceSetText(set: Schemas["ResourceSet"]): string {
  const items = table(
    ["asset", "name", "path"],
    set.items.map((item) => [item.assetId, item.name, item.path]),
  );
  return `${fields([
    ["Class", set.className],
    ["Digest", set.digest],
    ["Updated", `${set.updatedAt} by ${set.updatedBy}`],
  ])}\n\n${items}`;
}
