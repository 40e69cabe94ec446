# The artifact list: everything the box will run or read, for stage A's probes (nothing is
# installed at start, so a missing artifact is fatal and named). Shape of each entry, as
# management-api/src/boot/artifact-probes.ts reads it:
#   { capability; path; probe = "executable" | "file" | "directory"; required; }
let
  inherit (builtins) concatLists filter map;
  pathsLib = import ./paths.nix;
  programsLib = import ./programs.nix;
  securityLib = import ./security.nix;
  strings = import ./strings.nix;
in
{
  /**
    The probes of a box, in a stable order: supervisord and node, the generated configuration,
    every programme's command (required for the box's and features' programmes and for
    readiness-required ones; optional for other manifest programmes, which may live in the
    workspace), and the container side of every exception volume.
    - manifest: a normalized manifest
    - bin: directory of the box's own commands (default /opt/agentbox/bin)
    - root: runtime root prefix ("" = the image layout)
  */
  artifactsFor =
    {
      manifest,
      bin ? pathsLib.image.bin,
      root ? "",
    }:
    let
      runtime = pathsLib.runtimePaths { inherit root; };
      programmes = programsLib.programsFor { inherit manifest bin runtime; };
      sec = securityLib.securityFor { inherit manifest; };
      volumeTarget =
        spec:
        builtins.elemAt (strings.splitString {
          sep = ":";
          string = spec;
        }) 1;
    in
    [
      {
        capability = "supervisord";
        path = "supervisord";
        probe = "executable";
        required = true;
      }
      {
        capability = "node";
        path = "node";
        probe = "executable";
        required = true;
      }
      {
        capability = "config:supervisord";
        path = runtime.supervisordConf;
        probe = "file";
        required = true;
      }
    ]
    ++ map (p: {
      capability = "${p.kind}:${p.name}";
      path = builtins.head p.argv;
      probe = "executable";
      required = p.origin != "manifest" || p.required;
    }) programmes
    ++ map (v: {
      capability = "volume:${volumeTarget v}";
      path = "${root}${volumeTarget v}";
      probe = "directory";
      required = true;
    }) sec.volumes;
}
