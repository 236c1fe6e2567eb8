import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLogin, removeLogin, writeLogin, type LoginRecord } from '../../activities/model/auth/login-store';

const record: LoginRecord = { provider: 'chatgpt', accessToken: 'a', expiresAt: null, refreshToken: 'r', accountId: 'acct', updatedAt: 1 };
const mode = (path: string) => statSync(path).mode & 0o777;

describe('login store', () => {
  test('a login is 0600 in a 0700 directory whatever the umask, and a directory left wider is narrowed', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'recur-store-')), 'logins');
    const umask = process.umask(0);
    try {
      mkdirSync(dir, { mode: 0o755 });
      chmodSync(dir, 0o755);
      writeLogin(dir, record);
    } finally {
      process.umask(umask);
    }
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, 'chatgpt.json'))).toBe(0o600);
    expect(readLogin(dir, 'chatgpt')).toEqual(record);
  });

  test('a rewrite replaces the file whole and leaves no temporary file behind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'recur-store-'));
    writeLogin(dir, record);
    writeLogin(dir, { ...record, accessToken: 'b' });
    expect(readLogin(dir, 'chatgpt')?.accessToken).toBe('b');
    expect(readdirSync(dir)).toEqual(['chatgpt.json']);
  });

  test('no login reads as null; logout removes it and says whether there was one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'recur-store-'));
    expect(readLogin(dir, 'copilot')).toBeNull();
    expect(removeLogin(dir, 'copilot')).toBe(false);
    writeLogin(dir, { ...record, provider: 'copilot' });
    expect(removeLogin(dir, 'copilot')).toBe(true);
    expect(readLogin(dir, 'copilot')).toBeNull();
  });

  test('a file that is not a login of that provider is refused, naming it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'recur-store-'));
    writeFileSync(join(dir, 'copilot.json'), JSON.stringify(record));
    expect(() => readLogin(dir, 'copilot')).toThrow(`${join(dir, 'copilot.json')} is not a login Recur wrote`);
  });
});
