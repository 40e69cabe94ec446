# Unit tests of lib/box-service.nix and lib/kubernetes.nix: sizes, the shared service facts, what has no Kubernetes form.
{
  lib,
  helpers,
}:
let
  inherit (builtins) map;
  inherit (helpers) load empty throws;
in
{
  kubernetesQuantities = {
    expr = map lib.boxService.quantity [ "512m" "4g" "1024k" "65536" ];
    expected = [ "512Mi" "4Gi" "1024Ki" "65536" ];
  };
  kubernetesQuantityRefusesText = {
    expr = throws (lib.boxService.quantity "lots");
    expected = true;
  };
  meshHostOnPostgresPassesItsConnectionVariable = {
    expr = lib.boxService.passThroughEnv {
      manifest = load "[mesh]\nmode = \"host\"\nregistry = \"postgres\"\nregistry_connection_env = \"PG_URL\"\n";
    };
    expected = [ "PG_URL" ];
  };
  kubernetesRefusesANamedVolume = {
    expr = throws (
      lib.kubernetesObjects {
        manifest = load "[features]\ncode_server = true\n[security.exceptions.code-server]\nreason = \"ide\"\nvolumes = [\"data:/data\"]\n";
        manifestText = "";
        image = "x:y";
      }
    );
    expected = true;
  };
  kubernetesBoxIsOneStatefulSet = {
    expr = map (o: o.kind) (lib.kubernetesObjects { manifest = empty; manifestText = ""; image = "x:y"; });
    expected = [ "ConfigMap" "Service" "Service" "StatefulSet" "NetworkPolicy" ];
  };
}
