/**
 * What agents send for TRANSFER DEBUG, built and read in plain Node: a gzip tar (`debug.tar.gz`, POSIX ustar) in
 * the multipart/form-data part `file`. The simulated agents make bundles so; tests read what Beacon stored.
 */
import { randomUUID } from "node:crypto";
import { gunzipSync, gzipSync } from "node:zlib";

export interface TarFile {
  name: string;
  bytes: Uint8Array;
}

const BLOCK = 512;

/** A ustar header of a regular file (names up to 100 bytes), its checksum filled in. */
function tarHeader(file: TarFile, mtimeSeconds: number): Buffer {
  const header = Buffer.alloc(BLOCK);
  const field = (offset: number, length: number, value: string) =>
    header.write(value, offset, length, "ascii");
  const octal = (value: number, length: number) => `${value.toString(8).padStart(length - 1, "0")}\0`;
  field(0, 100, file.name);
  field(100, 8, octal(0o644, 8));
  field(108, 8, octal(0, 8));
  field(116, 8, octal(0, 8));
  field(124, 12, octal(file.bytes.length, 12));
  field(136, 12, octal(mtimeSeconds, 12));
  field(148, 8, " ".repeat(8));
  field(156, 1, "0");
  field(257, 6, "ustar\0");
  field(263, 2, "00");
  const checksum = header.reduce((sum, byte) => sum + byte, 0);
  field(148, 8, `${checksum.toString(8).padStart(6, "0")}\0 `);
  return header;
}

/** The files as a gzip tar. */
export function tarGz(files: TarFile[], mtime = new Date()): Buffer {
  const mtimeSeconds = Math.floor(mtime.getTime() / 1000);
  const blocks = files.flatMap((file) => {
    const padding = (BLOCK - (file.bytes.length % BLOCK)) % BLOCK;
    return [tarHeader(file, mtimeSeconds), Buffer.from(file.bytes), Buffer.alloc(padding)];
  });
  return gzipSync(Buffer.concat([...blocks, Buffer.alloc(2 * BLOCK)]));
}

/** The regular files of a gzip tar, in their order; throws on what is not one. */
export function untarGz(bytes: Uint8Array): TarFile[] {
  const tar = gunzipSync(bytes);
  const files: TarFile[] = [];
  for (let offset = 0; offset + BLOCK <= tar.length; ) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) break;
    const text = (start: number, length: number) =>
      header.toString("ascii", start, start + length).replace(/\0.*$/s, "");
    if (!text(257, 5).startsWith("ustar")) throw new Error(`no tar header at byte ${offset}`);
    const size = Number.parseInt(text(124, 12).trim(), 8);
    const prefix = text(345, 155);
    const name = prefix === "" ? text(0, 100) : `${prefix}/${text(0, 100)}`;
    const start = offset + BLOCK;
    if (["0", "\0"].includes(String.fromCharCode(header[156] as number)))
      files.push({ name, bytes: tar.subarray(start, start + size) });
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  return files;
}

/** One part of a multipart/form-data body. */
export interface FormPart {
  name: string;
  filename?: string;
  contentType?: string;
  bytes: Uint8Array;
}

/** A multipart/form-data body as an HTTP client sends one (RFC 7578), with its Content-Type. */
export function multipartForm(parts: FormPart[]): { body: Buffer; contentType: string } {
  const boundary = `----beacon-${randomUUID()}`;
  const chunks = parts.flatMap((part) => [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"` +
        `${part.filename === undefined ? "" : `; filename="${part.filename}"`}\r\n` +
        `Content-Type: ${part.contentType ?? "application/octet-stream"}\r\n\r\n`,
    ),
    Buffer.from(part.bytes),
    Buffer.from("\r\n"),
  ]);
  return {
    body: Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

/** The form both agents send a bundle in: the part `file`, `debug.tar.gz`, application/gzip. */
export const bundleForm = (bytes: Uint8Array) =>
  multipartForm([{ name: "file", filename: "debug.tar.gz", contentType: "application/gzip", bytes }]);
