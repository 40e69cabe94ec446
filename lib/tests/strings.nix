# Unit tests of lib/strings.nix: shell quoting, unique, literal split.
{ lib, ... }:
let
  inherit (builtins) map;
in
{
  shellQuoteKeepsSafeWords = {
    expr = map lib.strings.shellQuote [ "/usr/bin/env" "--port=8080" "a b" "it's" "" ];
    expected = [ "/usr/bin/env" "--port=8080" "'a b'" "'it'\"'\"'s'" "''" ];
  };
  uniqueKeepsFirstOccurrence = {
    expr = lib.strings.unique [ "b" "a" "b" "c" "a" ];
    expected = [ "b" "a" "c" ];
  };
  splitStringIsLiteral = {
    expr = lib.strings.splitString { sep = "."; string = "a.b.c"; };
    expected = [ "a" "b" "c" ];
  };
}
