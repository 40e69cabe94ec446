# Unit tests of lib/run-tests.nix: the runner itself reports a failing pair.
{ lib, ... }:
{
  runTestsReportsFailures = {
    expr = lib.runTests {
      tests = {
        good = { expr = 1; expected = 1; };
        bad = { expr = 1; expected = 2; };
      };
    };
    expected = [ { name = "bad"; expected = 2; result = 1; } ];
  };
}
