import { createSocket } from 'node:dgram';
import { isIP } from 'node:net';
import * as dnsPacket from 'dns-packet';

/**
 * The addresses of a name: a list (IPv4 ones answer A questions, IPv6 ones AAAA), or a function asked at
 * each question, for answers that change from one question to the next (DNS rebinding).
 */
export type AddressAnswer = readonly string[] | ((type: 'A' | 'AAAA') => readonly string[]);

/** A DNS server on loopback answering TXT, A and AAAA questions from maps the test fills (UDP). */
export interface TxtDnsServer {
  /** `127.0.0.1:<port>`, for `DNS_SERVERS`. */
  address: string;
  /** The TXT records of each name (each record its strings). */
  records: Map<string, string[][]>;
  /** The addresses of each name, answered with TTL 0 (no resolver may keep them). */
  addresses: Map<string, AddressAnswer>;
  /** Every question asked, in order: `"<type> <name>"`. */
  questions: string[];
  close(): Promise<void>;
}

/** The answers of one question from the maps; `undefined` when the name is in neither (NXDOMAIN). */
function answersOf(
  question: dnsPacket.Question | undefined,
  records: Map<string, string[][]>,
  addresses: Map<string, AddressAnswer>,
): dnsPacket.Answer[] | undefined {
  const name = question?.name.toLowerCase() ?? '';
  const txt = records.get(name);
  const given = addresses.get(name);
  if (txt === undefined && given === undefined) return undefined;
  if (question?.type === 'TXT')
    return (txt ?? []).map((strings) => ({ type: 'TXT', name, ttl: 60, class: 'IN', data: strings }));
  if (question?.type !== 'A' && question?.type !== 'AAAA') return [];
  const type = question.type;
  const list = typeof given === 'function' ? given(type) : (given ?? []);
  return list
    .filter((address) => isIP(address) === (type === 'A' ? 4 : 6))
    .map((address) => ({ type, name, ttl: 0, class: 'IN', data: address }));
}

/**
 * Starts a small UDP responder on 127.0.0.1 (dns-packet encodes and decodes the messages): TXT records
 * for the names in `records`, A and AAAA records for those in `addresses`, no records of another type
 * for a name it knows, NXDOMAIN for the rest.
 *
 * @example
 * const dns = await startTxtDnsServer();
 * dns.records.set('_tenant-auth-challenge.example.com', [['tenant-auth-domain-verification=…']]);
 * dns.addresses.set('idp.example.com', ['127.0.0.1', '::1']);
 */
export async function startTxtDnsServer(): Promise<TxtDnsServer> {
  const records = new Map<string, string[][]>();
  const addresses = new Map<string, AddressAnswer>();
  const questions: string[] = [];
  const socket = createSocket('udp4');
  socket.on('message', (message, peer) => {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    questions.push(`${question?.type} ${question?.name.toLowerCase()}`);
    const answers = answersOf(question, records, addresses);
    const answer = dnsPacket.encode({
      id: query.id,
      type: 'response',
      flags: dnsPacket.AUTHORITATIVE_ANSWER | (answers ? 0 : 3), // rcode 3: NXDOMAIN
      questions: query.questions,
      answers: answers ?? [],
    } as dnsPacket.Packet);
    socket.send(answer, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  return {
    address: `127.0.0.1:${port}`,
    records,
    addresses,
    questions,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
