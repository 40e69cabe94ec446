# INI as data → text: a list of sections, each an attrset of keys. Refuses what an INI parser
# (Python's configparser, which supervisord uses) would read back differently.
let
  inherit (builtins)
    attrNames
    concatLists
    concatStringsSep
    isBool
    isInt
    isString
    match
    ;

  render =
    where: value:
    let
      text =
        if isBool value then
          (if value then "true" else "false")
        else if isInt value then
          toString value
        else if isString value then
          value
        else
          throw "ini.toINI: ${where} must be a string, an integer or a boolean";
    in
    if match ".*[\n\r].*" text != null then
      throw "ini.toINI: ${where} contains a line break, which INI cannot carry"
    else if match "[ \t].*|.*[ \t]" text != null then
      throw "ini.toINI: ${where} has leading or trailing blanks, which an INI parser strips"
    else if match ".*[ \t][;#].*" text != null then
      throw "ini.toINI: ${where} contains a blank followed by ; or #, which an INI parser reads as a comment"
    else
      text;

  renderSection =
    section:
    let
      name = section.name or (throw "ini.toINI: a section has no name");
      values = section.values or { };
    in
    if match "[^]\n\r]+" name == null then
      throw "ini.toINI: invalid section name \"${name}\""
    else
      [ "[${name}]" ]
      ++ map (
        key:
        if match "[A-Za-z0-9_.-]+" key == null then
          throw "ini.toINI: [${name}] has an invalid key \"${key}\""
        else
          "${key}=${render "[${name}] ${key}" values.${key}}"
      ) (attrNames values)
      ++ [ "" ];
in
{
  /**
    INI text: the header lines as comments, then each section (keys in sorted order).
    - sections: list of { name = "program:web"; values = { command = "..."; priority = 500; }; }
    - header: lines written first, each prefixed with `comment` (default: none)
    - comment: the comment prefix (default ";")
  */
  toINI =
    {
      sections,
      header ? [ ],
      comment ? ";",
    }:
    concatStringsSep "\n" (
      map (line: "${comment} ${line}") header
      ++ (if header == [ ] then [ ] else [ "" ])
      ++ concatLists (map renderSection sections)
    );
}
