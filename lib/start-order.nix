# The start order of the manifest's programmes: supervisord knows only priorities, so each
# programme's `depends_on` becomes a priority past those of its dependencies. The validator
# computes the same numbers (management-api/src/manifest/rules/helpers/graph.ts; a test ties them).
let
  inherit (builtins)
    all
    attrNames
    elem
    filter
    foldl'
    length
    listToAttrs
    ;
in
{
  /**
    name → start priority: the declared priority, raised to one more than the highest start
    priority among the programme's dependencies when that is not already lower. Unknown names
    and a programme's dependency on itself are ignored here (rule E017 refuses them); a
    dependency cycle cannot be ordered and is an error (rule E018).
    - programs: the manifest's `programs` attrset (defaults applied)
  */
  startPriorities =
    { programs }:
    let
      names = attrNames programs;
      deps = name: filter (d: d != name && programs ? ${d}) programs.${name}.depends_on;
      # One round places every programme whose dependencies are all placed; a round that places
      # none while some remain means a cycle. At most one round per programme.
      step =
        placed:
        let
          ready = filter (n: !(placed ? ${n}) && all (d: placed ? ${d}) (deps n)) names;
        in
        placed
        // listToAttrs (
          map (n: {
            name = n;
            value = foldl' (acc: d: if placed.${d} >= acc then placed.${d} + 1 else acc) programs.${n}.priority (deps n);
          }) ready
        );
      go =
        placed:
        if length (attrNames placed) == length names then
          placed
        else
          let
            next = step placed;
          in
          if length (attrNames next) == length (attrNames placed) then
            throw "start-order.startPriorities: programmes ${
              builtins.concatStringsSep ", " (filter (n: !(placed ? ${n})) names)
            } depend on each other in a cycle (rule E018); remove one depends_on entry"
          else
            go next;
    in
    go { };
}
