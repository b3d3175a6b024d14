/** A flow file's media type from its name, as the console API's flow upload reads it: YAML or JSON. */
export function flowContentType(fileName: string): "application/yaml" | "application/json" {
  return /\.ya?ml$/i.test(fileName) ? "application/yaml" : "application/json";
}
