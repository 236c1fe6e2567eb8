import { generateKeyPairSync } from 'node:crypto';
import { eventSigner, keyringOf, logKeyId, type EventSigner, type Keyring } from '../../schemas';

/** A log signing key held in memory, for tests that seal events without a Recur home. */
export function testLogKey(): { signer: EventSigner; keyring: Keyring; keyId: string; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    signer: eventSigner(privateKey, publicKey),
    keyring: keyringOf([publicKey]),
    keyId: logKeyId(publicKey),
    publicPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
  };
}
