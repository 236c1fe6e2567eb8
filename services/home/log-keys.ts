import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventLogError, StackError } from '../../errors';
import { eventSigner, keyringOf, logKeyId, type EventSigner, type Keyring } from '../../schemas';

/**
 * The event log's signing keys, in `<home>/keys`: `signing.pem`, the current signer's private
 * key (PKCS#8), and `public/<keyId>.pem`, the public key (SPKI) of every key that ever signed,
 * kept after rotation so old events still verify. Only the worker reads the private key; it is
 * never put in an environment, a kernel's bootstrap or a Jupyter config.
 */
export function logKeyPaths(keysDir: string) {
  return { signing: join(keysDir, 'signing.pem'), public: join(keysDir, 'public') };
}

/** Creates the signing key unless there is one; returns the current key id. Safe to race: link(2) publishes one key. */
export function ensureLogKey(keysDir: string): string {
  const p = logKeyPaths(keysDir);
  if (!existsSync(p.signing)) {
    const { tmp, publicFile } = writeNewKey(keysDir);
    try {
      linkSync(tmp, p.signing);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      rmSync(publicFile); // another process's key won; this one never signs
    } finally {
      rmSync(tmp, { force: true });
    }
  }
  return currentKey(keysDir).keyId;
}

/**
 * Makes a new key the signer and keeps every old public key. The old private key is overwritten:
 * nothing may sign as it any more. Workers pick the new key up at their next append.
 */
export function rotateLogKey(keysDir: string): { previous: string | null; current: string } {
  const previous = existsSync(logKeyPaths(keysDir).signing) ? currentKey(keysDir).keyId : null;
  const { tmp } = writeNewKey(keysDir);
  renameSync(tmp, logKeyPaths(keysDir).signing);
  return { previous, current: currentKey(keysDir).keyId };
}

/** Seals with the home's current key, re-read whenever `keys rotate` replaced it. */
export function homeSigner(keysDir: string): EventSigner {
  ensureLogKey(keysDir);
  const file = logKeyPaths(keysDir).signing;
  let loaded: { stamp: string; signer: EventSigner } | undefined;
  const current = (): EventSigner => {
    const st = statSync(file);
    const stamp = `${st.ino}:${st.mtimeMs}`;
    if (loaded?.stamp !== stamp) {
      const { privateKey, publicKey } = currentKey(keysDir);
      loaded = { stamp, signer: eventSigner(privateKey, publicKey) };
    }
    return loaded.signer;
  };
  return {
    seal(hash) {
      let signer: EventSigner;
      try {
        signer = current();
      } catch (cause) {
        // Retryable: an operator can rotate a key back in while the append's retries last; nothing unsigned is written.
        throw new EventLogError(`cannot seal events: ${(cause as Error).message}`, { cause, retryable: true, hint: 'run `recur keys rotate` to make a new signing key' });
      }
      return signer.seal(hash);
    },
  };
}

/** Every public key the home ever signed with. */
export function homeKeyring(keysDir: string): Keyring {
  const dir = logKeyPaths(keysDir).public;
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.pem')).map((f) => join(dir, f)) : [];
  return keyringOf(files.map(readPublicKeyFile));
}

/** An Ed25519 public key in PEM (SPKI), as `keys/public/<keyId>.pem` holds it; a private key is refused. */
export function readPublicKeyFile(file: string): KeyObject {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (e) {
    throw new StackError('keys', `cannot read public key ${file}: ${(e as Error).message}`);
  }
  return publicKeyFromPem(pem, file);
}

/** The key in `pem` (read from `source`), refused unless it is an Ed25519 public key. */
export function publicKeyFromPem(pem: string, source: string): KeyObject {
  const notOurs = (why: string) => new StackError('keys', `${source} is not an Ed25519 public key (${why})`, 'pass a file from <RECUR_HOME>/keys/public');
  if (!pem.includes('-----BEGIN PUBLIC KEY-----')) throw notOurs('no PEM PUBLIC KEY block');
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (e) {
    throw notOurs((e as Error).message);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw notOurs(`it is ${key.asymmetricKeyType}`);
  return key;
}

/** A fresh key pair: its public key saved under public/, its private key in a temporary file. */
function writeNewKey(keysDir: string): { tmp: string; publicFile: string } {
  const p = logKeyPaths(keysDir);
  mkdirSync(p.public, { recursive: true, mode: 0o700 });
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const publicFile = join(p.public, `${logKeyId(publicKey)}.pem`);
  writeFileSync(publicFile, publicKey.export({ format: 'pem', type: 'spki' }), { mode: 0o600 });
  const tmp = `${p.signing}.${process.pid}.tmp`;
  writeFileSync(tmp, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
  return { tmp, publicFile };
}

function currentKey(keysDir: string): { privateKey: KeyObject; publicKey: KeyObject; keyId: string } {
  const file = logKeyPaths(keysDir).signing;
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new StackError('keys', `cannot load the log signing key ${file}: ${(e as Error).message}`, 'run `recur keys rotate` to make a new one');
  }
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new StackError('keys', `${file} is not an Ed25519 private key`, 'run `recur keys rotate`');
  const publicKey = createPublicKey(privateKey);
  return { privateKey, publicKey, keyId: logKeyId(publicKey) };
}
