# The rules about what has no Kubernetes form (E048, E049, W019, W020) as data: the checks of
# management-api/src/manifest/rules/{e048,e049,w019,w020}-*.ts, from the same facts file, so that
# the Nix library (and the flake's k8s output, evaluated without the TypeScript validator) refuses
# what `agentbox config validate --target kubernetes` refuses. tests/nix/kubernetes-rules.test.ts
# runs both sides on every fixture and compares the findings.
let
  inherit (builtins)
    attrNames
    concatMap
    concatStringsSep
    elemAt
    filter
    genList
    head
    length
    ;
  facts = import ./facts.nix;
  strings = import ./strings.nix;

  namespacesException = facts.sandboxNamespaces.exception;
  # Exceptions of the features features.gpu turns on: their devices come from a device plugin.
  gpuExceptions = filter (n: facts.features.${n}.setting.key == [ "features" "gpu" ]) (attrNames facts.features);
  onKubernetes = target: target == "kubernetes" || target == "agent-sandbox";

  # The declared feature exceptions (not sandbox-namespaces), by name.
  featureExceptions =
    manifest:
    filter (n: n != namespacesException && manifest.security.exceptions.${n} != null) (
      attrNames manifest.security.exceptions
    );
  indexed = list: genList (i: { index = i; value = elemAt list i; }) (length list);
  pointer = segments: "/" + concatStringsSep "/" (map toString segments);

  # Well-formed volumes "<host>:<container>[:<mode>]" (malformed entries are E034's).
  volumes =
    manifest:
    concatMap (
      name:
      concatMap (
        v:
        let
          parts = strings.splitString { sep = ":"; string = v.value; };
        in
        if length parts < 2 || length parts > 3 then
          [ ]
        else
          [ { exception = name; inherit (v) index; spec = v.value; host = head parts; } ]
      ) (indexed (manifest.security.exceptions.${name}.volumes or [ ]))
    ) (featureExceptions manifest);

  finding = id: alias: severity: segments: message: {
    inherit id alias severity message;
    pointer = pointer segments;
  };

  rules = {
    E048 =
      { manifest, target }:
      concatMap (
        name:
        map (
          d:
          finding "E048" "exception-devices-without-kubernetes-form" "error" [ "security" "exceptions" name "devices" d.index ]
            "security.exceptions.${name}.devices entry \"${d.value}\" has no Kubernetes form: a pod gets devices only from a device plugin (target ${target})"
        ) (indexed (manifest.security.exceptions.${name}.devices or [ ]))
      ) (filter (n: !(builtins.elem n gpuExceptions)) (featureExceptions manifest));

    E049 =
      { manifest, target }:
      map (
        v:
        finding "E049" "exception-volume-without-kubernetes-form" "error" [ "security" "exceptions" v.exception "volumes" v.index ]
          "security.exceptions.${v.exception}.volumes entry \"${v.spec}\" mounts the compose volume \"${v.host}\", which has no Kubernetes form (target ${target})"
      ) (filter (v: v.host != "" && !(strings.hasPrefix { prefix = "/"; string = v.host; })) (volumes manifest));

    W019 =
      { manifest, target }:
      if
        (manifest.security.exceptions.${namespacesException} or null) != null
        && manifest.sandbox.enabled
        && manifest.sandbox.namespaces != "off"
      then
        [
          (finding "W019" "namespaces-exception-without-kubernetes-form" "warning" [ "security" "exceptions" namespacesException ]
            "[security.exceptions.${namespacesException}] has no Kubernetes form (target ${target}): the pod keeps the RuntimeDefault seccomp profile"
          )
        ]
      else
        [ ];

    W020 =
      { manifest, target }:
      map (
        v:
        finding "W020" "exception-volume-is-host-path" "warning" [ "security" "exceptions" v.exception "volumes" v.index ]
          "security.exceptions.${v.exception}.volumes entry \"${v.spec}\" becomes a hostPath volume (target ${target})"
      ) (filter (v: strings.hasPrefix { prefix = "/"; string = v.host; }) (volumes manifest));
  };
in
rec {
  /** The ids of the rules mirrored here. */
  ids = attrNames rules;

  /**
    Every finding of the target rules, in id order: { id; alias; severity; pointer; message; }.
    None for compose.
    - manifest: a normalized manifest
    - target: "compose", "kubernetes" or "agent-sandbox"
  */
  findings =
    { manifest, target }:
    if onKubernetes target then concatMap (id: rules.${id} { inherit manifest target; }) ids else [ ];

  /**
    `value` when no target rule reports an error for the manifest; otherwise a throw naming each
    error (id, alias, key) and the command that explains them.
    - manifest: a normalized manifest
    - target: "kubernetes" or "agent-sandbox"
    - value: what to return (the objects)
  */
  refuseErrors =
    { manifest, target, value }:
    let
      errors = filter (f: f.severity == "error") (findings { inherit manifest target; });
    in
    if errors == [ ] then
      value
    else
      throw (
        "kubernetes-rules.refuseErrors: the manifest has no ${target} form: "
        + concatStringsSep "; " (map (f: "${f.id} ${f.alias} at ${f.pointer}: ${f.message}") errors)
        + " (agentbox config validate --target ${target} says how to fix it)"
      );
}
