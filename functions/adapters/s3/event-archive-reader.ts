import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from "@aws-sdk/client-s3";
import type { ArchiveReader } from "../../core/archive/ports.js";
import type { BeaconEvent } from "../../core/events/model.js";

const gunzipAsync = promisify(gunzip);

/** The event archive's objects read back, one at a time: gzip JSON lines, as S3EventArchive writes them. */
export class S3EventArchiveReader implements ArchiveReader {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async *eventsUnder(prefix: string): AsyncIterable<BeaconEvent> {
    let token: string | undefined;
    do {
      const page = await this.s3.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      for (const { Key } of page.Contents ?? []) {
        const object = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key }));
        const text = (
          await gunzipAsync(await (object.Body?.transformToByteArray() ?? new Uint8Array()))
        ).toString();
        for (const line of text.split("\n")) if (line) yield JSON.parse(line) as BeaconEvent;
      }
      token = page.NextContinuationToken;
    } while (token);
  }
}
