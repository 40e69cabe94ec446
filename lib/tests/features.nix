# Unit tests of lib/features.nix: enabling a feature adds exactly its exception and programme.
{
  lib,
  helpers,
}:
let
  inherit (builtins) attrNames filter map;
  inherit (helpers) empty programmeNames composeOf withFeature withFeatureComplete table newOf;
in
{
  eachFeatureAddsExactlyItsProgrammes = {
    expr = map (name: newOf (programmeNames empty) (programmeNames (withFeatureComplete name))) (attrNames table);
    expected = map (
      name:
      map (p: p.name) (
        table.${name}.programs ++ (if name == "gaussian-splatting" then table.gpu-cuda.programs else [ ])
      )
    ) (attrNames table);
  };
  eachFeatureAddsExactlyItsException = {
    expr = map (
      name:
      let
        before = composeOf empty;
        after = composeOf (withFeature name);
      in
      {
        tmpfs = newOf before.tmpfs after.tmpfs;
        cap_add = after.cap_add or [ ];
        labels = newOf (attrNames before.labels) (attrNames after.labels);
        inherit (after) cap_drop read_only user security_opt;
      }
    ) (filter (n: n != "gaussian-splatting") (attrNames table));
    expected = map (name: {
      tmpfs = [ "/scratch-${name}:${lib.security.exceptionTmpfsOptions}" ];
      cap_add = [ "CAP_${builtins.replaceStrings [ "-" ] [ "_" ] name}" ];
      labels = [ "dev.agentbox.exception.${name}" ];
      inherit (composeOf empty) cap_drop read_only user security_opt;
    }) (filter (n: n != "gaussian-splatting") (attrNames table));
  };
}
