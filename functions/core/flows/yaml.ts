/**
 * The YAML library, evaluated when a flow's YAML is first read rather than when a function starts: the console
 * API and the sweeper carry it, and most of their requests read no flow (docs/measurements.md, "The console's
 * document as JSON text, YAML when first read"). A bundle keeps it inside; only its evaluation waits.
 */
export const yamlLibrary = (): Promise<typeof import("yaml")> => import("yaml");
