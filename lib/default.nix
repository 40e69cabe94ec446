# The Agentbox Nix library: pure functions (builtins only, so they evaluate offline) from an
# agentbox.toml to its normalized manifest, supervisord.conf, docker-compose.yml and image
# config. lib/image.nix (which needs nixpkgs) is separate and imported by flake.nix.
let
  manifest = import ./manifest.nix;
  schemaDefaults = import ./schema-defaults.nix;
  facts = import ./facts.nix;
  paths = import ./paths.nix;
  startOrder = import ./start-order.nix;
  features = import ./features.nix;
  security = import ./security.nix;
  programs = import ./programs.nix;
  supervisord = import ./supervisord.nix;
  compose = import ./compose.nix;
  imageConfig = import ./image-config.nix;
  ini = import ./ini.nix;
  yaml = import ./yaml.nix;
  strings = import ./strings.nix;
  testing = import ./run-tests.nix;
  box = import ./box.nix;
  artifacts = import ./artifacts.nix;
  boxService = import ./box-service.nix;
  kubernetes = import ./kubernetes.nix;
  agentSandbox = import ./agent-sandbox.nix;
  kubernetesRules = import ./kubernetes-rules.nix;
in
{
  inherit
    strings
    ini
    yaml
    facts
    paths
    features
    security
    programs
    supervisord
    compose
    boxService
    kubernetes
    agentSandbox
    kubernetesRules
    ;
  inherit (manifest)
    schema
    loadManifest
    manifestSha256
    canonicalJson
    ;
  inherit (schemaDefaults) applyDefaults resolveRef;
  inherit (security) baseline mergeExceptions securityFor coversBaseline;
  inherit (programs) programsFor readinessFor;
  inherit (startOrder) startPriorities;
  inherit (supervisord) supervisordConfig renderSupervisord;
  inherit (compose) composeConfig renderCompose;
  inherit (imageConfig) imageIdentity imageConfig listeningPorts;
  inherit (testing) runTests;
  inherit (box) renderBox;
  inherit (artifacts) artifactsFor;
  inherit (kubernetes) kubernetesObjects;
  inherit (agentSandbox) agentSandboxObjects;
}
