# Test double of numtide/flake-utils: eachSystem with the same result shape.
{
  description = "stub flake-utils for tests/nix";
  outputs =
    { self }:
    {
      lib.eachSystem =
        systems: f:
        builtins.foldl' (
          acc: system:
          let
            out = f system;
          in
          builtins.foldl' (a: name: a // { ${name} = (a.${name} or { }) // { ${system} = out.${name}; }; }) acc (
            builtins.attrNames out
          )
        ) { } systems;
    };
}
