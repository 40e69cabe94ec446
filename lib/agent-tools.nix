# What [agents] packages and [agents] npm ask the image for, as data (builtins only, so it evaluates
# offline): nixpkgs attribute paths, and the npm lock of the agent CLIs reduced to one system's
# packages. lib/image.nix turns both into derivations; the TypeScript side
# (management-api/src/grammar/agent-packages.ts, scripts/cli/image/agent-npm.ts) reads entries alike.
let
  inherit (builtins)
    attrNames
    concatStringsSep
    elem
    filter
    head
    length
    listToAttrs
    map
    match
    split
    ;
  # The attributes of `attrs` for which `pred name value` holds (builtins has no filterAttrs).
  keep =
    pred: attrs:
    listToAttrs (
      map (name: {
        inherit name;
        value = attrs.${name};
      }) (filter (name: pred name attrs.${name}) (attrNames attrs))
    );
  # "@scope/name@1.2.3" → { name = "@scope/name"; version = "1.2.3"; } (the version after the last @).
  splitSpec =
    spec:
    let
      m = match "(@?[^@]+)@([^@]+)" spec;
    in
    if m == null then
      throw "agent-tools.nix: [agents] npm entry \"${spec}\" is not name@version (rule E058)"
    else
      {
        name = head m;
        version = builtins.elemAt m 1;
      };
  # npm's names for a Nix system's CPU (package.json "cpu").
  npmCpu = {
    "x86_64-linux" = "x64";
    "aarch64-linux" = "arm64";
  };
  # An os/cpu/libc list of package.json allows `value` when absent, when it names it, or when it
  # only excludes others ("!darwin").
  allows =
    list: value:
    list == null || elem value list || (filter (x: match "!.*" x == null) list == [ ] && !(elem "!${value}" list));
in
rec {
  /**
    The attribute paths of [agents] packages, each as the list of names Nix walks
    ("python3Packages.pytest" → [ "python3Packages" "pytest" ]).
    - manifest: the normalized manifest
  */
  packagePaths =
    { manifest }:
    map (entry: filter (s: builtins.isString s) (split "\\." entry)) (manifest.agents.packages or [ ]);

  /**
    The synthetic project whose dependencies are the npm specs: the package.json `agentbox agents
    lock` resolves and the lock's root entry mirrors (scripts/cli/image/agent-npm.ts lockProject).
    - manifest: the normalized manifest
  */
  lockProject =
    { manifest }:
    {
      name = "agentbox-agent-clis";
      version = "1.0.0";
      private = true;
      dependencies = listToAttrs (
        map (
          spec:
          let
            s = splitSpec spec;
          in
          {
            inherit (s) name;
            value = s.version;
          }
        ) (manifest.agents.npm or [ ])
      );
    };

  /**
    `lock` (a parsed agents.lock.json) when its root dependencies are exactly the manifest's npm
    specs; otherwise an error naming the difference and the command that rewrites it.
    - manifest: the normalized manifest
    - lock: the parsed lock file, or null when there is none
    - file: how to name the lock file in errors
  */
  checkedLock =
    {
      manifest,
      lock,
      file ? "agents.lock.json",
    }:
    let
      want = lockProject { inherit manifest; };
      have = if lock == null then { } else lock.packages."".dependencies or { };
      names = attrNames (want.dependencies // have);
      differ = filter (n: (want.dependencies.${n} or null) != (have.${n} or null)) names;
    in
    if lock == null then
      throw "agent-tools.nix: [agents] npm lists ${toString (length names)} CLI(s) but ${file} is missing: run `agentbox agents lock` beside the manifest"
    else if differ != [ ] then
      throw "agent-tools.nix: ${file} does not match [agents] npm (${concatStringsSep ", " differ}): run `agentbox agents lock`"
    else
      lock;

  /**
    The lock with only the packages that install on `system`: npm records every platform's optional
    binary package (os/cpu/libc in the entry); fetching them all would download each platform's
    agent binaries. Entries without those fields are kept.
    - lock: the parsed lock
    - system: the Nix system ("x86_64-linux" or "aarch64-linux")
  */
  forSystem =
    { lock, system }:
    let
      cpu = npmCpu.${system} or (throw "agent-tools.nix: no npm cpu name for ${system}");
    in
    lock
    // {
      packages = keep (
        key: e: key == "" || (allows (e.os or null) "linux" && allows (e.cpu or null) cpu && allows (e.libc or null) "glibc")
      ) lock.packages;
    };
}
