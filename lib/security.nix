# The hardened baseline of the box's container and the audited exceptions that add to it.
# Exceptions are additive only: they can add tmpfs mounts (merged by path), devices and
# capabilities (merged as sets), volumes, and at most one runtime — never remove or weaken a
# baseline item. Merge rules are documented in docs/developer/architecture.md.
let
  inherit (builtins)
    all
    any
    attrNames
    concatLists
    concatStringsSep
    elem
    filter
    head
    isString
    length
    listToAttrs
    mapAttrs
    ;
  strings = import ./strings.nix;
  facts = import ./facts.nix;
  featuresLib = import ./features.nix;
  seccompLib = import ./seccomp.nix;
  img = (import ./paths.nix).image;
  owner = "uid=${toString img.uid},gid=${toString img.gid}";

  # What an exception may set (the schema's $defs/exception); anything else is refused.
  exceptionKeys = [
    "reason"
    "tmpfs"
    "devices"
    "cap_add"
    "runtime"
    "volumes"
  ];

  # "path[:options]" → { path; options; } (options null when absent).
  parseTmpfs =
    spec:
    let
      parts = strings.splitString {
        sep = ":";
        string = spec;
      };
    in
    {
      path = head parts;
      options =
        if length parts == 1 then
          null
        else
          concatStringsSep ":" (builtins.tail parts);
    };

  # "host:container[:mode]" → { host; container; mode; }.
  parseVolume =
    where: spec:
    let
      parts = strings.splitString {
        sep = ":";
        string = spec;
      };
    in
    if length parts < 2 || length parts > 3 then
      throw "security.mergeExceptions: ${where} volume \"${spec}\" is not host:container[:ro|rw]"
    else
      {
        host = head parts;
        container = builtins.elemAt parts 1;
        mode = if length parts == 3 then builtins.elemAt parts 2 else null;
      };

  # Drop trailing slashes (but keep "/").
  normalizePath =
    p:
    let
      m = builtins.match "(/.*[^/])/+" p;
    in
    if m != null then head m else if builtins.match "/+" p != null then "/" else p;

  # The protected path that a mount at `p` would hide (the path itself, or one below it).
  shadowed =
    protected: p:
    let
      n = normalizePath p;
      hits = filter (
        b:
        b == n
        || n == "/"
        || strings.hasPrefix {
          prefix = n + "/";
          string = b;
        }
      ) protected;
    in
    if hits == [ ] then null else head hits;
in
rec {
  /**
    The baseline every box gets, whatever its manifest says. `protectedPaths` are the image root
    and the box's own mounts: no exception may mount on or above them (the facts file's list,
    which the manifest rule E029 reads too).
  */
  baseline = {
    user = "${toString img.uid}:${toString img.gid}";
    read_only = true;
    cap_drop = [ "ALL" ];
    security_opt = [ "no-new-privileges:true" ];
    init = true;
    # Owned by the box's user: supervisord and every programme run as it.
    tmpfs = mapAttrs (_: options: "${owner},${options}") facts.baseline.tmpfs;
    cap_add = [ ];
    devices = [ ];
    runtime = null;
    volumes = [ ];
    inherit (facts.baseline) protectedPaths;
  };

  /** tmpfs options of an exception mount that names none. */
  exceptionTmpfsOptions = "${owner},size=256m";

  /**
    True when `merged` still holds every baseline item: same user, read-only root, init and
    runtime-or-added-one; every dropped capability, security option, device and capability;
    every baseline tmpfs path with its baseline options.
    - merged: the result of mergeExceptions
    - base: the baseline (default: baseline)
  */
  coversBaseline =
    {
      merged,
      base ? baseline,
    }:
    merged.user == base.user
    && merged.read_only == base.read_only
    && merged.init == base.init
    && all (x: elem x merged.cap_drop) base.cap_drop
    && all (x: elem x merged.security_opt) base.security_opt
    && all (x: elem x merged.cap_add) base.cap_add
    && all (x: elem x merged.devices) base.devices
    && all (x: elem x merged.volumes) base.volumes
    && all (p: (merged.tmpfs.${p} or null) == base.tmpfs.${p}) (attrNames base.tmpfs)
    && (base.runtime == null || merged.runtime == base.runtime)
    && all (p: elem p merged.protectedPaths) base.protectedPaths;

  /**
    The baseline with `exceptions` added.
    Rules: tmpfs merge by path — a baseline path keeps its baseline options; a new path gets the
    exception's options (or exceptionTmpfsOptions); two exceptions giving one path different
    options is an error. devices, cap_add and volumes are unions (first occurrence order).
    At most one runtime may be named across all exceptions. A tmpfs or volume on or above a
    protected path (other than a baseline tmpfs path) is an error. Any other key is an error.
    The result also carries `exceptions` (name → reason) for the audit trail.
    - exceptions: attrset of name → exception (as in [security.exceptions], defaults applied)
    - base: the baseline to add to (default: baseline)
  */
  mergeExceptions =
    {
      exceptions,
      base ? baseline,
    }:
    let
      names = attrNames exceptions;
      checked = mapAttrs (
        name: e:
        let
          extra = filter (k: !(elem k exceptionKeys)) (attrNames e);
        in
        if extra != [ ] then
          throw "security.mergeExceptions: exception \"${name}\" sets \"${head extra}\"; an exception can only add ${concatStringsSep ", " (builtins.tail exceptionKeys)}"
        else if !(isString (e.reason or null)) || e.reason == "" then
          throw "security.mergeExceptions: exception \"${name}\" needs a non-empty reason"
        else
          {
            inherit (e) reason;
            tmpfs = e.tmpfs or [ ];
            devices = e.devices or [ ];
            cap_add = e.cap_add or [ ];
            runtime = e.runtime or "";
            volumes = e.volumes or [ ];
          }
      ) exceptions;
      each = f: concatLists (map (n: f n checked.${n}) names);

      tmpfsEntries = each (
        name: e:
        map (
          spec:
          let
            t = parseTmpfs spec;
            path = normalizePath t.path;
            hidden = shadowed base.protectedPaths path;
          in
          if !(strings.hasPrefix {
            prefix = "/";
            string = path;
          }) then
            throw "security.mergeExceptions: exception \"${name}\" tmpfs \"${spec}\" is not an absolute path"
          else if base.tmpfs ? ${path} then
            null # merge by path: the baseline mount stays as it is
          else if hidden != null then
            throw "security.mergeExceptions: exception \"${name}\" tmpfs \"${spec}\" would hide the baseline path ${hidden}"
          else
            {
              inherit name path;
              options = if t.options == null then exceptionTmpfsOptions else t.options;
            }
        ) e.tmpfs
      );
      newTmpfs = builtins.foldl' (
        acc: t:
        if t == null then
          acc
        else if acc ? ${t.path} && acc.${t.path} != t.options then
          throw "security.mergeExceptions: exceptions give tmpfs ${t.path} different options (\"${acc.${t.path}}\" and \"${t.options}\")"
        else
          acc // { ${t.path} = t.options; }
      ) { } tmpfsEntries;

      volumes = each (
        name: e:
        map (
          spec:
          let
            v = parseVolume "exception \"${name}\"" spec;
            hidden = shadowed (base.protectedPaths ++ attrNames base.tmpfs) v.container;
          in
          if hidden != null then
            throw "security.mergeExceptions: exception \"${name}\" volume \"${spec}\" would hide the baseline path ${hidden}"
          else
            spec
        ) e.volumes
      );

      runtimes = strings.unique (filter (r: r != "") (each (name: e: [ e.runtime ])));
      runtime =
        if length runtimes > 1 then
          throw "security.mergeExceptions: exceptions name different runtimes (${concatStringsSep ", " runtimes}); only one runtime can be used"
        else if runtimes == [ ] then
          base.runtime
        else if base.runtime != null && base.runtime != head runtimes then
          throw "security.mergeExceptions: the baseline runtime ${base.runtime} cannot be replaced by ${head runtimes}"
        else
          head runtimes;

      merged = base // {
        tmpfs = newTmpfs // base.tmpfs;
        cap_add = strings.unique (base.cap_add ++ each (n: e: e.cap_add));
        devices = strings.unique (base.devices ++ each (n: e: e.devices));
        volumes = strings.unique (base.volumes ++ volumes);
        inherit runtime;
        exceptions = mapAttrs (n: e: e.reason) checked;
      };
    in
    if coversBaseline { inherit merged base; } then
      merged
    else
      throw "security.mergeExceptions: internal error, the merge lost a baseline item";

  /**
    True when the manifest declares [security.exceptions.sandbox-namespaces] and agents use
    namespaces (sandbox.enabled, sandbox.namespaces not "off"); otherwise the exception would widen
    the seccomp profile for nothing (rule E008 rejects it, and it is not applied).
    - manifest: a normalized manifest
  */
  namespacesExceptionApplies =
    { manifest }:
    manifest.security.exceptions ? ${seccompLib.exceptionName}
    && manifest.sandbox.enabled
    && manifest.sandbox.namespaces != "off";

  /**
    The security settings of a box: the baseline plus the exception of every enabled feature.
    Exceptions of features that are off are not applied (least privilege; rule E008 rejects them).
    With [security.exceptions.sandbox-namespaces] (see namespacesExceptionApplies) the result also
    names the seccomp profile bubblewrap needs: `security_opt` gains lib/seccomp.nix securityOpt
    and `seccompProfile` is { file; text; } (null otherwise); a Kubernetes pod has no form of it
    (rule W019), so `kubernetes = true` leaves it out.
    - manifest: a normalized manifest
    - kubernetes: render for a Kubernetes target (default false)
  */
  securityFor =
    {
      manifest,
      kubernetes ? false,
    }:
    let
      enabled = featuresLib.enabledFeatures { inherit manifest; };
      declared = manifest.security.exceptions;
      merged = mergeExceptions {
        exceptions = listToAttrs (
          map (f: {
            inherit (f) name;
            value =
              declared.${f.name}
                or (throw "security.securityFor: ${f.setting} needs [security.exceptions.${f.name}] with a reason (rule E007)");
          }) enabled
        );
      };
      ns = declared.${seccompLib.exceptionName};
    in
    if kubernetes || !(namespacesExceptionApplies { inherit manifest; }) then
      merged // { seccompProfile = null; }
    else if !(isString (ns.reason or null)) || ns.reason == "" then
      throw "security.securityFor: [security.exceptions.${seccompLib.exceptionName}] needs a non-empty reason"
    else
      merged
      // {
        security_opt = merged.security_opt ++ [ seccompLib.securityOpt ];
        seccompProfile = {
          file = seccompLib.profileFile;
          text = seccompLib.profileText;
        };
        exceptions = merged.exceptions // {
          ${seccompLib.exceptionName} = ns.reason;
        };
      };
}
