import { describe, expect, it } from "vitest";
import { MAX_ASSET_BYTES, uploadPartCount } from "../core/assets/model.js";
import { openApiDocument } from "../shared/console-openapi.js";

const { schemas } = openApiDocument.components;

// JSON Schema cannot compute, so the document spells the asset limits as numbers; this holds them to the model.
describe("the console's OpenAPI document spells the asset limits the model enforces", () => {
  it("caps an asset's size at the model's maximum", () => {
    expect(schemas.Asset.properties.sizeBytes.maximum).toBe(MAX_ASSET_BYTES);
  });

  it("caps the parts signed again at the part count of the largest asset", () => {
    const { partNumbers } = schemas.AssetUploadPartsRequest.properties;
    expect(partNumbers.maxItems).toBe(uploadPartCount(MAX_ASSET_BYTES));
    expect(partNumbers.items.maximum).toBe(uploadPartCount(MAX_ASSET_BYTES));
  });
});
