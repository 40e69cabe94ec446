# Unit tests of lib/ini.nix and lib/yaml.nix: the INI and YAML serializers.
{
  lib,
  helpers,
}:
let
  inherit (helpers) throws;
in
{
  iniRendersSectionsInOrderWithSortedKeys = {
    expr = lib.ini.toINI {
      header = [ "h" ];
      sections = [
        {
          name = "b";
          values = {
            z = 1;
            a = true;
          };
        }
        {
          name = "a";
          values.k = "v";
        }
      ];
    };
    expected = "; h\n\n[b]\na=true\nz=1\n\n[a]\nk=v\n";
  };
  iniRefusesLineBreaks = {
    expr = throws (lib.ini.toINI { sections = [ { name = "s"; values.k = "a\nb"; } ]; });
    expected = true;
  };
  iniRefusesInlineCommentMarkers = {
    expr = throws (lib.ini.toINI { sections = [ { name = "s"; values.k = "a ;b"; } ]; });
    expected = true;
  };
  yamlQuotesEveryStringAsJson = {
    expr = lib.yaml.toYAML {
      header = [ "x" ];
      value = {
        a = [
          "q\"uote"
          1
          { b = [ ]; }
        ];
        "8080/tcp" = { };
        c = null;
      };
    };
    expected = "# x\n\"8080/tcp\": {}\na:\n  - \"q\\\"uote\"\n  - 1\n  - b: []\nc: null\n";
  };
}
