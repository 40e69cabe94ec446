# Unit tests of lib/, one file per topic beside this one: an attrset of name → { expr; expected; },
# checked by runTests:
#   nix-instantiate --eval --strict --json -E 'let l = import ./lib; in l.runTests { tests = import ./lib/tests { }; }'
# prints [] when every test passes, else the failing ones with what they returned.
# Every .nix file of this folder but this one and helpers.nix is a topic: a new file is picked up
# by being here, and a test name two topics share is an error naming both files.
{
  lib ? import ../default.nix,
}:
let
  inherit (builtins)
    attrNames
    filter
    foldl'
    readDir
    ;

  helpers = import ./helpers.nix { inherit lib; };

  topicFiles = filter (
    name: builtins.match ".*\\.nix" name != null && name != "default.nix" && name != "helpers.nix"
  ) (attrNames (readDir ./.));

  addTopic =
    acc: file:
    let
      tests = import (./. + "/${file}") { inherit lib helpers; };
      clashes = filter (name: acc.tests ? ${name}) (attrNames tests);
      clash = builtins.head clashes;
    in
    if clashes != [ ] then
      throw "lib/tests/${file}: test ${clash} is already defined in lib/tests/${acc.from.${clash}}; rename one of them"
    else
      {
        tests = acc.tests // tests;
        from = acc.from // builtins.mapAttrs (_: _: file) tests;
      };
in
(foldl' addTopic {
  tests = { };
  from = { };
} topicFiles).tests
