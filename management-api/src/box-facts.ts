// The box's facts — features, programmes, paths, image layout, baseline, slots — imported from
// schema/box-facts.json, the file lib/facts.nix reads too; nothing in TypeScript writes one again.
import factsJson from '../../schema/box-facts.json' with { type: 'json' };

/** A manifest setting that turns something on: the key path and the value it must have. */
export interface FactSetting {
  key: readonly string[];
  value: string | number | boolean;
}

/** What a build lacks: a part marked unavailable carries why, and what to use instead. */
export interface Availability {
  /** False when this build cannot run the part (rule E036 refuses the setting that asks for it). */
  available: boolean;
  reason?: string;
  instead?: string;
}

/** One of the box's own supervisord programmes. */
export interface BoxProgramFact extends Availability {
  /** supervisord section kind: `program` or `eventlistener`. */
  kind: string;
  /** Command and arguments; `@bin@` and the other placeholders are substituted by lib/programs.nix. */
  argv: readonly string[];
  priority: number;
  /** The manifest keys that set the ports it listens on (its own first). */
  portKeys?: ReadonlyArray<readonly string[]>;
  /** Listens on the box's loopback only (for its agents): never published nor listed in ExposedPorts. */
  loopbackOnly?: boolean;
  /** Only run when this setting has its value (otherwise always). */
  setting?: FactSetting;
  /** The seal waits for it to be RUNNING. */
  required?: boolean;
  /** Runs once and exits; the seal waits for its clean exit. */
  oneshot?: boolean;
}

/** A programme a feature adds. */
export interface FeatureProgramFact {
  name: string;
  argv: readonly string[];
  priority: number;
  /** Fixed TCP port (0: none): a feature's port is not a manifest key, so it cannot move. */
  port: number;
  environment: Readonly<Record<string, string>>;
}

/** One optional feature, keyed by its `[security.exceptions.<name>]` name. */
export interface FeatureFact extends Availability {
  setting: FactSetting;
  programs: readonly FeatureProgramFact[];
  /** nixpkgs attribute paths the image gains. */
  packages: ReadonlyArray<readonly string[]>;
}

/** One thing the image carries: a package (nixpkgs attribute path) and the commands it puts in /bin. */
export interface ImageContentFact {
  name: string;
  /** nixpkgs attribute path; absent for `nodejs`, which lib/image.nix chooses by version. */
  nixpkgs?: readonly string[];
  /** Commands the image has in /bin from it (the test image builder checks each one). */
  commands: readonly string[];
}

/** The image layout: where things live, who runs them, the environment, what goes in. */
export interface ImageFact {
  /** Where the application lives (dist/, node_modules/, …) and the box's commands (its bin). */
  appDir: string;
  binDir: string;
  /** The entrypoint command in binDir; `init` runs it as PID 1's child. */
  entrypoint: string;
  init: readonly string[];
  /** The box user: name, group, ids, home and login shell (/etc/passwd, the compose `user`). */
  homeDir: string;
  uid: number;
  gid: number;
  user: string;
  group: string;
  shell: string;
  /** The application's top-level entries copied into appDir (config/ is added, with bin -> config/bin). */
  app: readonly string[];
  /** The CA bundle's path (SSL_CERT_FILE, NODE_EXTRA_CA_CERTS). */
  caBundle: string;
  /** The agent sandbox launcher: its C source and the compiled binary, both relative to the application (appDir or a checkout). */
  /** Where the test image puts the npm agent CLIs of [agents] npm (node_modules/ under it; their commands link into /usr/bin). */
  agentNpmDir: string;
  sandboxLauncher: { source: string; binary: string };
  /** Fixed environment of the image; `@binDir@` is replaced. The manifest-derived variables come from lib/image-config.nix. */
  env: Readonly<Record<string, string>>;
  contents: readonly ImageContentFact[];
}

/** The shape of schema/box-facts.json (checked at compile time against the file). */
export interface BoxFactsShape {
  /** The image layout, shared by lib/image.nix and the test image builder (scripts/cli/image/). */
  image: ImageFact;
  runtime: { dirs: Readonly<Record<string, string>>; files: Readonly<Record<string, string>> };
  baseline: { protectedPaths: readonly string[]; tmpfs: Readonly<Record<string, string>> };
  programs: {
    firstOperatorPriority: number;
    startFailedExit: number;
    parentDeathCommand: string;
    alsoReserved: readonly string[];
    box: Readonly<Record<string, BoxProgramFact>>;
  };
  features: Readonly<Record<string, FeatureFact>>;
  /**
   * The one exception that belongs to a setting rather than a feature: `exception` (its
   * `[security.exceptions.<name>]` key), Docker's default seccomp profile vendored in the
   * repository (`dockerDefaultProfile`), and the profile file `agentbox render` writes beside
   * docker-compose.yml (`profileFile`).
   */
  sandboxNamespaces: { exception: string; dockerDefaultProfile: string; profileFile: string };
  /** Each slot's implementation names, and how its external one is configured: `http` (url + token), `pg` or `stdio`. */
  slots: Readonly<Record<string, { local: string; external: string; off: string; integration: string }>>;
}

/** Deep-freeze a parsed JSON value so no importer can change a fact for the others. */
function frozen<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) frozen(v);
    Object.freeze(value);
  }
  return value;
}

/** The facts, frozen. The JSON's own key types are kept (slot and feature names are literal). */
export const boxFacts = frozen(factsJson satisfies BoxFactsShape) as typeof factsJson & BoxFactsShape;

/** An adapter slot name (beads, pods, memory, events, orchestrator), in schema order. */
export type Slot = keyof typeof factsJson.slots;

/** The five slots, in the order of the facts file (the schema's order; a test ties them). */
export const SLOTS = Object.keys(boxFacts.slots) as Slot[];

/** A directory or file of the runtime layout. */
export type RuntimeDirName = keyof typeof factsJson.runtime.dirs;
/** A file of the runtime layout. */
export type RuntimeFileName = keyof typeof factsJson.runtime.files;

/** How a setting reads in TOML, e.g. `features.gpu = "cuda"` (lib/facts.nix settingText says the same). */
export function settingText(setting: FactSetting): string {
  return `${setting.key.join('.')} = ${JSON.stringify(setting.value)}`;
}

/** The value at `key` of a nested object (a manifest), or undefined. */
export function valueAt(root: unknown, key: readonly string[]): unknown {
  let at: unknown = root;
  for (const k of key) at = at && typeof at === 'object' ? (at as Record<string, unknown>)[k] : undefined;
  return at;
}

/** True when `manifest` has `setting` on. */
export function settingOn(manifest: unknown, setting: FactSetting): boolean {
  return valueAt(manifest, setting.key) === setting.value;
}

/**
 * Names the box's own programmes, its features' programmes and supervisord itself use; an
 * operator programme with one of them would collide with them in the generated configuration.
 */
export const reservedProgramNames: readonly string[] = Object.freeze([
  ...Object.keys(boxFacts.programs.box),
  ...Object.values(boxFacts.features as BoxFactsShape['features']).flatMap((f) => f.programs.map((p) => p.name)),
  ...boxFacts.programs.alsoReserved,
]);
