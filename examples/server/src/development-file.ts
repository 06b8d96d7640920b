import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';

/**
 * A development secret kept in the data folder (`JWT_*`, `ENCRYPTION_KEY` when unset outside
 * production): the file's text, or `undefined` when there is none yet. A file that others may read is
 * narrowed to mode 0600 first.
 *
 * @example
 * const text = await readDevelopmentFile(join(config.dataDir, 'encryption-key'));
 */
export async function readDevelopmentFile(file: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  if (((await stat(file)).mode & 0o077) !== 0) await chmod(file, 0o600);
  return text;
}

/**
 * Keeps a generated development secret: the data folder (mode 0700) and the file (mode 0600) are made
 * once; a file that appeared meanwhile is never overwritten (`wx`), so two starts cannot keep two secrets.
 *
 * @example
 * await writeDevelopmentFile(config.dataDir, file, `${key.toString('base64url')}\n`);
 */
export async function writeDevelopmentFile(dataDir: string, file: string, text: string): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await writeFile(file, text, { mode: 0o600, flag: 'wx' });
}
