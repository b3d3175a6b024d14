/**
 * The units a monthly statement prices, which the capacity model's bill is charged to
 * (scripts/capacity/unit-prices.ts): an agent active in an hour, an accepted heartbeat, and a byte of reply
 * sent. Acknowledgements, operations and bytes in are metered but priced at nothing: the model bills none of them.
 */
export const PricedUnits = ["agentHours", "heartbeats", "bytesOut"] as const;
export type PricedUnit = (typeof PricedUnits)[number];
/** USD per unit. */
export type UnitPrices = Record<PricedUnit, number>;
