import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';

/*
 * A software authenticator for the tests (not in any package): P-256 keys from node:crypto, "none"
 * attestation, discoverable credentials. It answers WebAuthn options as a browser and a platform
 * authenticator would, in the JSON forms the server takes, and can be told to misbehave (no user
 * verification, another RP ID or origin, a counter going backwards). The only CBOR it writes is the
 * attestation object and the COSE key: a small encoder for unsigned and negative integers, byte strings,
 * text strings and maps.
 */

type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>;

function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
  if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
}

/** CBOR (RFC 8949) of the few types WebAuthn's structures need. */
export function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  const parts = [head(5, value.size)];
  for (const [k, v] of value) parts.push(cbor(k), cbor(v));
  return Buffer.concat(parts);
}

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

interface Credential {
  id: Buffer;
  privateKey: KeyObject;
  publicKey: KeyObject;
  rpId: string;
  userHandle: string;
  counter: number;
}

/** What a test may change about one ceremony. */
export interface Misbehaviour {
  /** Leave the user-verified flag out (a security key without a PIN). */
  noUserVerification?: boolean;
  /** Sign for another RP ID (its hash in the authenticator data). */
  rpId?: string;
  /** Claim another origin in the client data. */
  origin?: string;
  /** Use this counter instead of the next one (a cloned authenticator). */
  counter?: number;
  /** Answer with this credential (by id) instead of the first that fits. */
  credentialId?: string;
}

/** Options as the server sends them (the fields the authenticator reads). */
interface CreationOptions {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string };
}
interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

/**
 * A platform authenticator with user verification, keeping discoverable credentials per RP ID.
 *
 * @example
 * const authenticator = new SoftwareAuthenticator('https://app.test');
 * const credential = authenticator.register(creationOptions);
 */
export class SoftwareAuthenticator {
  readonly credentials: Credential[] = [];
  constructor(readonly origin: string) {}

  private authData(rpId: string, flags: number, counter: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter >>> 0, 0);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  private clientData(type: string, challenge: string, how: Misbehaviour): Buffer {
    const origin = how.origin ?? this.origin;
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), 'utf8');
  }

  /** A `RegistrationResponseJSON` for creation options: a new P-256 credential. */
  register(options: CreationOptions, how: Misbehaviour = {}): Record<string, unknown> {
    const rpId = options.rp.id ?? new URL(this.origin).hostname;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const id = randomBytes(16);
    const jwk = publicKey.export({ format: 'jwk' });
    const coseKey = new Map<Cbor, Cbor>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x as string, 'base64url')],
      [-3, Buffer.from(jwk.y as string, 'base64url')],
    ]);
    const idLength = Buffer.from([id.length >> 8, id.length & 0xff]);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, id, cbor(coseKey)]);
    // UP (0x01), UV (0x04) unless told otherwise, AT (0x40): attested credential data follows.
    const flags = 0x01 | (how.noUserVerification ? 0 : 0x04) | 0x40;
    const authData = this.authData(how.rpId ?? rpId, flags, 0, attested);
    const attestationObject = cbor(
      new Map<Cbor, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    this.credentials.push({ id, privateKey, publicKey, rpId, userHandle: options.user.id, counter: 0 });
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: 'public-key',
      response: {
        clientDataJSON: b64url(this.clientData('webauthn.create', options.challenge, how)),
        attestationObject: b64url(attestationObject),
        transports: ['internal', 'hybrid'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** An `AuthenticationResponseJSON` for request options, by a credential that fits them. */
  authenticate(options: RequestOptions, how: Misbehaviour = {}): Record<string, unknown> {
    const rpId = options.rpId ?? new URL(this.origin).hostname;
    const allowed = options.allowCredentials?.map((c) => c.id);
    const credential = this.credentials.find(
      (c) =>
        (how.credentialId ? b64url(c.id) === how.credentialId : true) &&
        c.rpId === rpId &&
        (allowed === undefined || allowed.length === 0 || allowed.includes(b64url(c.id))),
    );
    if (!credential) throw new Error('no credential of this authenticator fits the options');
    credential.counter = how.counter ?? credential.counter + 1;
    const flags = 0x01 | (how.noUserVerification ? 0 : 0x04);
    const authData = this.authData(how.rpId ?? rpId, flags, credential.counter);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, how);
    const signature = sign(
      'sha256',
      Buffer.concat([authData, sha256(clientDataJSON)]),
      credential.privateKey,
    );
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
