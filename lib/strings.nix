# String helpers on builtins only, so every lib/ file evaluates offline without nixpkgs.
let
  inherit (builtins) concatStringsSep filter genList isString length match replaceStrings split stringLength substring;
in
rec {
  /**
    Join `list` (strings) with `sep`.
    - sep: the separator
    - list: the strings
  */
  join = { sep, list }: concatStringsSep sep list;

  /**
    True when `string` starts with `prefix`.
    - prefix: the expected start
    - string: the text tested
  */
  hasPrefix = { prefix, string }: substring 0 (stringLength prefix) string == prefix;

  /**
    `string` without `prefix` (unchanged when it does not start with it).
    - prefix: the start to remove
    - string: the text
  */
  removePrefix =
    { prefix, string }:
    if hasPrefix { inherit prefix string; } then substring (stringLength prefix) (stringLength string) string else string;

  /**
    True when `string` contains `infix`.
    - infix: the text looked for
    - string: the text searched
  */
  hasInfix = { infix, string }: length (split (escapeRegex infix) string) > 1;

  /**
    `string` with every regular-expression metacharacter escaped.
  */
  escapeRegex =
    string:
    replaceStrings
      [ "\\" "[" "]" "(" ")" "{" "}" "." "*" "+" "?" "^" "$" "|" ]
      [ "\\\\" "\\[" "\\]" "\\(" "\\)" "\\{" "\\}" "\\." "\\*" "\\+" "\\?" "\\^" "\\$" "\\|" ]
      string;

  /**
    Split `string` on a literal `sep` (no regular expression).
    - sep: the separator
    - string: the text to split
  */
  splitString = { sep, string }: filter isString (split (escapeRegex sep) string);

  /**
    Quote one word for a POSIX shell (and Python's shlex.split, which supervisord uses): words made
    only of safe characters stay bare, anything else is single-quoted with `'` written as `'"'"'`.
  */
  shellQuote =
    word:
    if word != "" && match "[A-Za-z0-9_@%+=:,./-]+" word != null then
      word
    else
      "'" + replaceStrings [ "'" ] [ "'\"'\"'" ] word + "'";

  /**
    An argv list as one command line for a POSIX shell or shlex.split.
  */
  shellJoin = argv: concatStringsSep " " (map shellQuote argv);

  /**
    `list` without repeated elements, keeping the first occurrence of each (a set with a stable order).
  */
  unique =
    list:
    builtins.foldl' (acc: x: if builtins.elem x acc then acc else acc ++ [ x ]) [ ] list;

  /**
    Integers `from`..`to` inclusive (empty when `to < from`).
    - from: the first integer
    - to: the last integer
  */
  range = { from, to }: if to < from then [ ] else genList (i: from + i) (to - from + 1);
}
