// What a box backup is on disk: a directory whose index (`backup.json`, written last) lists every
// file with its size and SHA-256, the event log's checkpoint, and whether secrets are inside.

/** The index file: present only in a backup that was completed. */
export const INDEX_FILE = 'backup.json';

/** The index's signature by the box's identity, beside it (index-signature.ts); not in the index it signs. */
export const SIGNATURE_FILE = 'backup.sig';

/** The copy of the manifest the box ran, by its path in the backup. */
export const MANIFEST_COPY = 'manifest/agentbox.toml';

/** The encrypted secrets (only with --with-secrets). */
export const SECRETS_FILE = 'secrets.enc';

/** This format's version; a reader refuses another. */
export const BACKUP_FORMAT = 'agentbox-backup/1';

/**
 * The state a backup holds, by its place under the state directory. SQLite stores go through the
 * online backup API; the event log up to its latest signed checkpoint; the rest as files.
 */
export const SQLITE_STORES = ['beads/beads.sqlite', 'memory/catalog.sqlite'] as const;
export const EVENT_LOG_DIR = 'events';
export const FILE_TREES = ['pods', 'snapshots'] as const;

/** Secrets a backup may carry (encrypted): the box's identity and the event log's signing key. Never the API key. */
export const BACKED_UP_SECRETS = ['identity.key', 'event-log.key'] as const;

/** One file of a backup. */
export interface BackupFile {
  /** Relative to the backup directory, `/`-separated. */
  path: string;
  bytes: number;
  sha256: string;
  /** Permission bits to restore (never setuid, setgid or sticky). */
  mode: number;
}

/** The event log as backed up. */
export interface BackedUpLog {
  /** Entries copied (= the checkpoint's size when there is one). */
  events: number;
  /** The signed checkpoint the copy ends at, when the log has one. */
  checkpoint?: { origin: string; size: number; root: string };
}

/** The index of a backup (`backup.json`). */
export interface BackupIndex {
  format: typeof BACKUP_FORMAT;
  createdAt: string;
  /** The box's root when it was backed up (for the record). */
  source: string;
  /** The manifest the box ran (its copy is `manifest/agentbox.toml`), when there was one. */
  manifest: boolean;
  eventLog?: BackedUpLog;
  /**
   * Present when secrets.enc is: sealed with a passphrase (scrypt, AES-256-GCM), or to age
   * recipient keys (the file is then an age file; `recipients` are the public keys it was sealed to).
   */
  secrets?: { names: string[]; cipher: 'aes-256-gcm'; kdf: 'scrypt' } | { names: string[]; cipher: 'age'; recipients: string[] };
  files: BackupFile[];
}
