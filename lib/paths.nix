# Every path the generated configs name, from schema/box-facts.json (the file
# management-api/src/runtime-paths.ts reads too). Runtime paths take a `root` prefix so the local
# embedded mode runs the same configuration under a directory.
let
  strings = import ./strings.nix;
  facts = import ./facts.nix;
in
{
  /**
    The runtime directories and files of a box, under `root`: every entry of the facts file's
    runtime.dirs and runtime.files, prefixed, plus `root` itself.
    - root: "" in the image (paths start at /), or an absolute directory without a trailing
      slash for the local mode (e.g. "/home/me/box/.agentbox/root"); the serializers refuse
      characters their formats cannot carry
  */
  runtimePaths =
    {
      root ? "",
    }:
    let
      ok =
        root == ""
        || (
          strings.hasPrefix {
            prefix = "/";
            string = root;
          }
          && builtins.match ".*/" root == null
        );
      r =
        if ok then
          root
        else
          throw "paths.runtimePaths: root must be \"\" or an absolute path without a trailing slash (got \"${root}\")";
    in
    builtins.mapAttrs (_: p: r + p) (facts.runtime.dirs // facts.runtime.files)
    // {
      root = if r == "" then "/" else r;
    };

  /**
    Where the box's own commands live in the image (not re-rooted: code, not state), and the
    box user's ids. The management-api package installs the commands there; see
    docs/developer/architecture.md.
  */
  image = {
    inherit (facts.image)
      appDir
      homeDir
      uid
      gid
      ;
    bin = facts.image.binDir;
  };
}
