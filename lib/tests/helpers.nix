# What several topics of lib/tests share: loading a manifest, the throw check, the views of a
# rendered box the assertions compare, and manifests with one feature enabled.
{ lib }:
let
  inherit (builtins)
    elem
    filter
    map
    tryEval
    ;
in
rec {
  load = text: lib.loadManifest { inherit text; };
  empty = load "";

  # True when evaluating `x` deeply throws.
  throws = x: !(tryEval (builtins.deepSeq x x)).success;

  programmeNames = m: map (p: p.name) (lib.programsFor { manifest = m; });
  composeOf =
    m:
    (lib.composeConfig {
      manifest = m;
      image = "agentbox/test:1";
    }).services.agentbox;
  imageOf = m: (lib.imageConfig { manifest = m; }).config;

  # A manifest with feature `name` enabled (and its exception declared).
  featureSettings = {
    desktop = "[features]\ndesktop = true";
    code-server = "[features]\ncode_server = true";
    playwright = "[features]\nplaywright = true";
    gaussian-splatting = "[features]\ngaussian_splatting = true\ngpu = \"cuda\"";
    telegram-mirror = "[features]\ntelegram_mirror = true";
    gpu-rocm = "[features]\ngpu = \"rocm\"";
    gpu-cuda = "[features]\ngpu = \"cuda\"";
  };
  withFeature =
    name:
    load ''
      ${featureSettings.${name}}
      [security.exceptions.${name}]
      reason = "test"
      tmpfs = ["/scratch-${name}"]
      cap_add = ["CAP_${builtins.replaceStrings [ "-" ] [ "_" ] name}"]
    '';
  # gaussian-splatting also turns gpu-cuda on; its exception then comes too.
  withFeatureComplete =
    name:
    if name == "gaussian-splatting" then
      load ''
        ${featureSettings.${name}}
        [security.exceptions.gaussian-splatting]
        reason = "test"
        tmpfs = ["/scratch-gaussian-splatting"]
        [security.exceptions.gpu-cuda]
        reason = "test"
      ''
    else
      withFeature name;
  table = lib.features.featureTable { };
  newOf = before: after: filter (x: !(elem x before)) after;

  # Exceptions that try to weaken the baseline or add to it.
  adversarial = {
    a = {
      reason = "tries to reuse /tmp with other options";
      tmpfs = [ "/tmp:size=10g,mode=0777" ];
    };
    b = {
      reason = "adds a capability";
      cap_add = [ "NET_ADMIN" ];
      devices = [ "/dev/fuse" ];
    };
  };
}
