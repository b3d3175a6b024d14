/**
 * The hash that names a flow version, also its flow id on the wire. A module of its own: what only checks a
 * flow id (the agent API's downloads, operations and rollouts) does not bring in the flow reader and its YAML
 * parser.
 */
const FLOW_HASH_PATTERN = /^[0-9a-f]{64}$/;
export const isFlowHash = (value: string): boolean => FLOW_HASH_PATTERN.test(value);
