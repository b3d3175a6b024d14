import { DynamoCertificateStore } from "../dynamodb/certificate-store.js";
import { DynamoRevocationList } from "../dynamodb/revocation-list.js";
import { MemoryCertificateStore } from "../memory/certificate-store.js";
import { certificateStoreContract } from "./certificate-store.contract.js";
import { tableOfItsOwn } from "./local-stack.js";

const table = tableOfItsOwn();

certificateStoreContract("DynamoDB", () => {
  const revocations = new DynamoRevocationList(table.documents, table.name);
  return {
    certificates: new DynamoCertificateStore(table.documents, table.name),
    revokedSerials: (tenant) => revocations.revokedSerials(tenant),
  };
});
certificateStoreContract("the memory fake", () => {
  const certificates = new MemoryCertificateStore();
  return {
    certificates,
    revokedSerials: async (tenant) =>
      [...certificates.revocationList.keys()]
        .filter((key) => key.startsWith(`${tenant}/`))
        .map((key) => key.slice(tenant.length + 1)),
  };
});
