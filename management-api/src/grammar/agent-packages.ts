// The grammar of [agents] packages (nixpkgs attribute paths) and [agents] npm (name@exact-version):
// rules E058–E060, the test image builder, `agentbox agents lock` and lib/agent-tools.nix read entries alike.

/**
 * One segment of a nixpkgs attribute path as the Nix builds look it up (`pkgs.${segment}`):
 * a Nix identifier (letters, digits, _, ' and -, not starting with a digit, - or ').
 */
const ATTRIBUTE = /^[A-Za-z_][A-Za-z0-9_'-]*$/;
/** A package name as the npm registry accepts new ones: lower case, optional @scope/. */
const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;
/** An exact semantic version: no range, tag, URL or path (those resolve differently on every build). */
const EXACT_VERSION = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

/** What is wrong with one `packages` entry, or undefined when it is a dotted attribute path. */
export function attributePathProblem(entry: string): string | undefined {
  if (entry.startsWith('pkgs.')) return 'name the attribute under nixpkgs without the pkgs. prefix';
  const bad = entry.split('.').find((segment) => !ATTRIBUTE.test(segment));
  if (bad === undefined) return undefined;
  if (bad === '') return 'an attribute path has no empty segment (no leading, trailing or doubled dot)';
  return `segment ${JSON.stringify(bad)} is not a Nix attribute name (letters, digits, _, ' and -, not starting with a digit)`;
}

/** An attribute path as the list of names Nix walks. */
export function attributePath(entry: string): string[] {
  return entry.split('.');
}

/** An npm spec split into the package name and what follows its last @ (the version asked for). */
export interface NpmSpec {
  name: string;
  version: string;
}

/** `@scope/name@1.2.3` → {name, version}; the version is '' when the spec names none. */
export function splitNpmSpec(spec: string): NpmSpec {
  const at = spec.lastIndexOf('@');
  return at > 0 ? { name: spec.slice(0, at), version: spec.slice(at + 1) } : { name: spec, version: '' };
}

/** What is wrong with one `npm` entry, or undefined when it names a package at one exact version. */
export function npmSpecProblem(spec: string): string | undefined {
  const { name, version } = splitNpmSpec(spec);
  if (!NPM_NAME.test(name) || name.length > 214) return `${JSON.stringify(name)} is not an npm package name (lower case, optionally @scope/name)`;
  if (version === '') return 'no version: the build would take whatever is latest that day';
  if (!EXACT_VERSION.test(version)) return `${JSON.stringify(version)} is not an exact version (a range or tag resolves differently on each build)`;
  return undefined;
}
