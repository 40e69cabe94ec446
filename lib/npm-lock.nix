# package-lock.json as data: fills in the `resolved` URL that npm omits when configured with
# omit-lockfile-registry-resolved, so nixpkgs' importNpmLock can fetch every package by its
# `integrity` hash without computing any hash online.
let
  inherit (builtins) mapAttrs match elemAt;
in
{
  /**
    `packageLock` with a registry tarball URL as `resolved` for every package that has a version
    and an integrity hash but no `resolved` (links, the root entry and entries that already name
    their source are left alone).
    - packageLock: the parsed package-lock.json (lockfileVersion 2 or 3)
    - registry: the npm registry base URL (default https://registry.npmjs.org)
  */
  withRegistryResolved =
    {
      packageLock,
      registry ? "https://registry.npmjs.org",
    }:
    packageLock
    // {
      packages = mapAttrs (
        key: entry:
        let
          # "node_modules/a/node_modules/@s/b" → "@s/b"; an alias entry names its package in `name`.
          fromKey = match "(.*/)?node_modules/((@[^/]+/)?[^/]+)" key;
          name = entry.name or (if fromKey == null then null else elemAt fromKey 1);
          unscoped = let m = match "@[^/]+/(.*)" name; in if m == null then name else elemAt m 0;
        in
        if key == "" || entry ? resolved || (entry.link or false) || !(entry ? version) || !(entry ? integrity) || name == null then
          entry
        else
          entry // { resolved = "${registry}/${name}/-/${unscoped}-${entry.version}.tgz"; }
      ) packageLock.packages;
    };
}
