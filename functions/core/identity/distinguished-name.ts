/**
 * A distinguished name as Node prints it (one RDN a line, multi-valued RDNs joined by " + ", values RFC
 * 2253-escaped, control characters as \XX), spelt as API Gateway hands it to the function: RDNs in the
 * certificate's order, comma-separated. Beacon compares subjects and issuers in this one spelling.
 */
export function distinguishedName(nodeName: string): string {
  return nodeName
    .split("\n")
    .map((rdn) => rdn.replaceAll(" + ", "+"))
    .join(",");
}
