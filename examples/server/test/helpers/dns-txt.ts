import { createSocket } from 'node:dgram';
import * as dnsPacket from 'dns-packet';

/** A DNS server on loopback answering TXT questions from a map the test fills (UDP, one answer a name). */
export interface TxtDnsServer {
  /** `127.0.0.1:<port>`, for `DNS_SERVERS`. */
  address: string;
  /** The TXT records of each name (each record its strings); other names answer NXDOMAIN. */
  records: Map<string, string[][]>;
  close(): Promise<void>;
}

/**
 * Starts a small UDP responder on 127.0.0.1 (dns-packet encodes and decodes the messages): TXT records
 * for the names in `records`, NXDOMAIN for the rest.
 *
 * @example
 * const dns = await startTxtDnsServer();
 * dns.records.set('_tenant-auth-challenge.example.com', [['tenant-auth-domain-verification=…']]);
 */
export async function startTxtDnsServer(): Promise<TxtDnsServer> {
  const records = new Map<string, string[][]>();
  const socket = createSocket('udp4');
  socket.on('message', (message, peer) => {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    const name = question?.name.toLowerCase() ?? '';
    const found = question?.type === 'TXT' ? records.get(name) : undefined;
    const answer = dnsPacket.encode({
      id: query.id,
      type: 'response',
      flags: dnsPacket.AUTHORITATIVE_ANSWER | (found || records.has(name) ? 0 : 3), // rcode 3: NXDOMAIN
      questions: query.questions,
      answers: (found ?? []).map((strings) => ({ type: 'TXT', name, ttl: 60, class: 'IN', data: strings })),
    } as dnsPacket.Packet);
    socket.send(answer, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  return {
    address: `127.0.0.1:${port}`,
    records,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
