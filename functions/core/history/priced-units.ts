/**
 * The units a monthly statement prices, which the capacity model's bill is charged to
 * (scripts/capacity/unit-prices.ts): an agent active in an hour, an accepted heartbeat, and a byte of reply
 * sent; a byte of content agents downloaded at the same price as a byte of reply (the data transfer out's, which
 * the model's month, downloading nothing, does not bill). Acknowledgements, operations, bytes in and debug bundle
 * uploads are metered but priced at nothing: the model bills none of them.
 * What the tenant stores is priced at storage's own prices, in GB-months: in DynamoDB (manifests, flows) and in
 * S3 (assets, debug bundles, the event archive).
 */
export const PricedUnits = [
  "agentHours",
  "heartbeats",
  "bytesOut",
  "downloadBytes",
  "tableGbMonths",
  "bucketGbMonths",
] as const;
export type PricedUnit = (typeof PricedUnits)[number];
/** USD per unit. */
export type UnitPrices = Record<PricedUnit, number>;
