import { constants } from "node:crypto";

/**
 * TLS server options for an agent ingress Beacon terminates itself (the local agent gateway; the agent service
 * wherever it terminates TLS): no stateless session tickets. MiNiFi C++ agents open a connection per request and
 * never resume a session, and a kept-alive MiNiFi Java agent reconnects about once an hour, yet Node's TLS 1.3
 * server sends two stateless tickets, each carrying the whole session encrypted, after every full handshake.
 * SSL_OP_NO_TICKET turns them into stateful ones (a session id wrapped in a ticket, about 60 bytes) that no
 * session cache answers, as Node keeps none, so a resumption falls back to a full handshake. Node cannot send no
 * ticket at all (it does not expose OpenSSL's SSL_CTX_set_num_tickets), so two small ones remain.
 */
export const agentTlsServerOptions = { secureOptions: constants.SSL_OP_NO_TICKET } as const;
