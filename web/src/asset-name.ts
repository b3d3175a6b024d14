/**
 * The names POST /assets takes (its `name` parameter's pattern in the OpenAPI document): a file name of 1 to 128
 * of A-Z a-z 0-9 . _ -, starting with a letter or digit, without `..`. The page checks a name before it sends
 * the bytes, to say what is wrong in words, and suggests one from the file's own name.
 */
const ASSET_NAME = /^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const MAX_LENGTH = 128;

export function assetNameProblem(name: string): string | undefined {
  if (ASSET_NAME.test(name)) return undefined;
  return (
    `"${name}" cannot be an asset's name: use 1 to ${MAX_LENGTH} letters, digits, dots, underscores and ` +
    "dashes, starting with a letter or digit, without two dots in a row."
  );
}

/** The file's name with what an asset's name may not hold replaced by dashes. */
export function suggestedAssetName(fileName: string): string {
  return fileName
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/\.{2,}/g, ".")
    .replace(/^[^A-Za-z0-9]+/, "")
    .slice(0, MAX_LENGTH);
}
