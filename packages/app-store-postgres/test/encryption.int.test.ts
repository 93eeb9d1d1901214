import { randomBytes } from 'node:crypto';
import type { LogFields, Logger } from '@herald/protocol-core';
import { dropSchema, POSTGRES_URL, randomSchema, sql, until } from '@herald/test-kit';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createPostgresAppStore, isSealed, type PostgresAppStore } from '../src/index.js';

/** Every secret value as the table holds it, read with SQL. */
async function storedSecrets(schema: string): Promise<string[]> {
  const rows = await sql(`SELECT secret, previous_secrets FROM "${schema}".herald_apps ORDER BY id`);
  return rows.rows.flatMap((row: { secret: string; previous_secrets: { secret: string }[] }) => [
    row.secret,
    ...row.previous_secrets.map((entry) => entry.secret),
  ]);
}

describe('PostgreSQL app store with secrets encrypted at rest', () => {
  const schema = randomSchema('herald_apps_crypt');
  const stores: PostgresAppStore[] = [];
  const keyA = randomBytes(32);
  const keyB = randomBytes(32);
  const open = (encryptionKey?: Uint8Array, logger?: Logger) => {
    const store = createPostgresAppStore({
      url: POSTGRES_URL,
      schema,
      ...(encryptionKey ? { encryptionKey } : {}),
      ...(logger ? { logger } : {}),
    });
    stores.push(store);
    return store;
  };

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    await sql(`TRUNCATE "${schema}".herald_apps`).catch(() => undefined);
  });
  afterAll(async () => {
    await dropSchema(schema);
  });

  it('writes no secret in plaintext: added, updated and rotated secrets are sealed in the table', async () => {
    const store = open(keyA);
    await store.add({ id: 'shop', key: 'shop-key', secret: 'shop-secret-1' });
    await store.update('shop', { secret: 'shop-secret-2' });
    const rotated = await store.rotateSecret('shop', { graceSeconds: 300 });
    const stored = await storedSecrets(schema);
    expect(stored).toHaveLength(2);
    for (const value of stored) {
      expect(isSealed(value)).toBe(true);
      expect(value).not.toContain('shop-secret');
      expect(value).not.toContain(rotated.secret);
    }
    // Read back through the store, the secrets are the plaintext ones.
    expect(await store.get('shop')).toMatchObject({
      secret: rotated.secret,
      previous_secrets: [{ secret: 'shop-secret-2' }],
    });
    expect((await store.load())[0]?.secret).toBe(rotated.secret);

    // A watching store drops an expired previous secret from the row: the one it keeps stays sealed.
    await store.rotateSecret('shop', { graceSeconds: 1, secret: 'shop-secret-4' });
    await store.rotateSecret('shop', { graceSeconds: 300, secret: 'shop-secret-5' });
    store.watch(() => {});
    await until(async () => (await storedSecrets(schema)).length === 3, { what: 'the expired entry to go' });
    const kept = await storedSecrets(schema);
    expect(kept.every(isSealed)).toBe(true);
    expect(await store.get('shop')).toMatchObject({
      secret: 'shop-secret-5',
      previous_secrets: [{ secret: 'shop-secret-2' }, { secret: 'shop-secret-4' }],
    });
  });

  it('seals plaintext rows on the first load with a key, once, when two nodes start at once', async () => {
    const plain = open();
    await plain.add({ id: 'a', key: 'a-key', secret: 'a-secret' });
    await plain.add({ id: 'b', key: 'b-key', secret: 'b-secret' });
    await plain.rotateSecret('b', { graceSeconds: 300, secret: 'b-secret-2' });
    expect(await storedSecrets(schema)).toEqual(['a-secret', 'b-secret-2', 'b-secret']);

    const [first, second] = await Promise.all([open(keyA).load(), open(keyA).load()]);
    for (const apps of [first, second]) {
      expect(apps.map((app) => [app.id, app.secret])).toEqual([
        ['a', 'a-secret'],
        ['b', 'b-secret-2'],
      ]);
    }
    const stored = await storedSecrets(schema);
    expect(stored.every(isSealed)).toBe(true);
    expect((await open(keyA).load())[1]?.previous_secrets?.[0]?.secret).toBe('b-secret');
  });

  it('encrypts a plaintext store with rekey from no key, and seals a row another tool writes in plaintext', async () => {
    const plain = open();
    await plain.add({ id: 'a', key: 'a-key', secret: 'a-secret' });
    expect(await plain.rekey(keyA)).toBe(1);
    expect((await storedSecrets(schema)).every(isSealed)).toBe(true);

    const watching = open(keyA);
    const lists: string[][] = [];
    watching.watch((apps) => lists.push(apps.map((app) => app.id)));
    await until(() => lists.length > 0);
    await sql(`INSERT INTO "${schema}".herald_apps (id, key, secret) VALUES ('b', 'b-key', 'b-secret')`);
    await until(async () => (await storedSecrets(schema)).every(isSealed), {
      what: 'the psql row to be sealed',
    });
    await until(() => lists.at(-1)?.includes('b') === true);
    expect(watching.current().find((app) => app.id === 'b')?.secret).toBe('b-secret');
  });

  it('refuses to load sealed rows without a key, or with another key', async () => {
    await open(keyA).add({ id: 'shop', key: 'shop-key', secret: 'shop-secret' });
    await expect(open().load()).rejects.toMatchObject({
      code: 'key_required',
      message: expect.stringContaining('app "shop": secret is encrypted and no app store key was given'),
    });
    await expect(open(keyB).load()).rejects.toMatchObject({
      code: 'wrong_key',
      message: expect.stringContaining('authentication tag does not verify'),
    });
    // Without the key, the command-line writes cannot corrupt the row either.
    await expect(open(keyB).rotateSecret('shop', { graceSeconds: 0 })).rejects.toMatchObject({
      code: 'wrong_key',
    });
    expect(await open(keyA).get('shop')).toMatchObject({ secret: 'shop-secret' });

    // A value altered in the table (its last ciphertext byte flipped) is refused, never served as garbage.
    const [stored] = await storedSecrets(schema);
    const bytes = Buffer.from((stored as string).slice((stored as string).lastIndexOf(':') + 1), 'base64');
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
    const altered = `${(stored as string).slice(0, (stored as string).lastIndexOf(':') + 1)}${bytes.toString('base64')}`;
    await sql(`UPDATE "${schema}".herald_apps SET secret = $1 WHERE id = 'shop'`, [altered]);
    await expect(open(keyA).load()).rejects.toMatchObject({
      code: 'wrong_key',
      message: expect.stringContaining('app "shop": secret was altered or damaged'),
    });
  });

  it('re-keys every row in one go; a watching node with the old key keeps serving what it loaded', async () => {
    const writer = open(keyA);
    await writer.add({ id: 'shop', key: 'shop-key', secret: 'shop-secret' });
    await writer.rotateSecret('shop', { graceSeconds: 300, secret: 'shop-secret-2' });
    const logged: { message: string; fields: LogFields | undefined }[] = [];
    const record = (message: string, fields?: LogFields) => logged.push({ message, fields });
    const oldNode = open(keyA, { debug: () => {}, info: () => {}, warn: record, error: record });
    await oldNode.load();
    const lists: string[][] = [];
    oldNode.watch((apps) => lists.push(apps.map((app) => app.secret)));
    await until(() => lists.length > 0);

    expect(await open(keyA).rekey(keyB)).toBe(1);
    await until(() => logged.some((entry) => entry.message.includes('cannot be decrypted')));
    expect(logged.find((entry) => entry.message.includes('cannot be decrypted'))).toMatchObject({
      message: 'app row cannot be decrypted: serving the version already loaded',
      fields: { appId: 'shop', column: 'secret' },
    });
    expect(oldNode.current().map((app) => app.secret)).toEqual(['shop-secret-2']);

    const newNode = open(keyB);
    expect(await newNode.load()).toMatchObject([
      { id: 'shop', secret: 'shop-secret-2', previous_secrets: [{ secret: 'shop-secret' }] },
    ]);
    await expect(open(keyA).load()).rejects.toMatchObject({ code: 'wrong_key' });
    // A second rekey with the old key writes nothing: the whole transaction is refused.
    await expect(open(keyA).rekey(randomBytes(32))).rejects.toMatchObject({ code: 'wrong_key' });
    expect(await newNode.load()).toHaveLength(1);
  });
});
