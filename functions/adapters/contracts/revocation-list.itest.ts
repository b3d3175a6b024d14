import { DynamoCertificateStore } from "../dynamodb/certificate-store.js";
import { DynamoRevocationList } from "../dynamodb/revocation-list.js";
import { MemoryRevocationList } from "../memory/revocation-list.js";
import { tableOfItsOwn } from "./local-stack.js";
import { revocationListContract } from "./revocation-list.contract.js";

const table = tableOfItsOwn();

// On the table a serial gets on the list through the revocation of its certificate.
revocationListContract("DynamoDB", () => {
  const certificates = new DynamoCertificateStore(table.documents, table.name);
  return {
    revocations: new DynamoRevocationList(table.documents, table.name),
    revoke: async (tenant, serial) => {
      await certificates.add({
        tenant,
        serial,
        kind: "agent",
        agentId: "agent-1",
        subjectDN: `CN=agent-1,OU=agent,O=${tenant}`,
        notBefore: 0,
        notAfter: 1,
        issuedAt: 0,
        issuedBy: "contract",
      });
      await certificates.revoke(tenant, serial, 0, "unspecified");
    },
  };
});
revocationListContract("the memory fake", () => {
  const revocations = new MemoryRevocationList();
  return { revocations, revoke: async (tenant, serial) => revocations.revoke(tenant, serial) };
});
