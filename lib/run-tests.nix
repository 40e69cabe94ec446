# A tiny test runner for { expr; expected; } pairs, evaluated with nix-instantiate --eval --strict
# (the pairs of lib/ itself: lib/tests/, one file per topic).
{
  /**
    The failing tests of `tests` (an attrset of name → { expr; expected; }), as a list of
    { name; expected; result; } in name order. An empty list means every test passed.
    - tests: the pairs to check
  */
  runTests =
    { tests }:
    builtins.concatMap (
      name:
      let
        t = tests.${name};
      in
      if t.expr == t.expected then
        [ ]
      else
        [
          {
            inherit name;
            inherit (t) expected;
            result = t.expr;
          }
        ]
    ) (builtins.attrNames tests);
}
