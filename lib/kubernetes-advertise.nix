# The URL a pod's box advertises to its mesh (client registration, host replica announcement):
# AGENTBOX_ADVERTISE_URL, which the API reads when mesh.advertise_url is empty, built by Kubernetes
# from the pod's own fields (fieldRef, then $(VAR) expansion): a StatefulSet pod's stable DNS name,
# the Service a Sandbox gets, or the pod's IP where pods have no stable name.
let
  inherit (builtins) replaceStrings;
  strings = import ./strings.nix;
in
rec {
  /**
    The variables that tell a pod's box the URL it advertises to its mesh
    (AGENTBOX_ADVERTISE_URL, read by the API when mesh.advertise_url is empty), built by
    Kubernetes from the pod's own fields: none for a standalone box or when the manifest sets
    mesh.advertise_url itself.
    - manifest: a normalized manifest
    - address: how other pods reach this one:
      { dns = "<pod>.<service>"; } a StatefulSet pod under its headless Service,
      { dns = "<service>"; } the one pod behind a headless Service of its own (a Sandbox),
      { podIp = true; } the pod's IP (Deployment replicas, pooled sandboxes: no stable name)
  */
  advertiseEnv =
    { manifest, address }:
    let
      m = manifest;
      field = name: path: {
        inherit name;
        valueFrom.fieldRef.fieldPath = path;
      };
      port = toString m.api.port;
      host =
        if address ? podIp then
          "$(AGENTBOX_POD_IP)"
        else
          "${replaceStrings [ "<pod>" ] [ "$(AGENTBOX_POD_NAME)" ] address.dns}.$(AGENTBOX_POD_NAMESPACE).svc";
      fields =
        if address ? podIp then
          [ (field "AGENTBOX_POD_IP" "status.podIP") ]
        else
          (if strings.hasPrefix { prefix = "<pod>."; string = address.dns; } then [ (field "AGENTBOX_POD_NAME" "metadata.name") ] else [ ])
          ++ [ (field "AGENTBOX_POD_NAMESPACE" "metadata.namespace") ];
    in
    if m.mesh.mode == "standalone" || m.mesh.advertise_url != "" then
      [ ]
    else
      # Kubernetes expands $(VAR) from variables listed earlier in the same container.
      fields ++ [ { name = advertiseUrlEnv; value = "http://${host}:${port}"; } ];

  /** The variable the API reads the advertised URL from (management-api/src/server-config.ts ADVERTISE_URL_ENV). */
  advertiseUrlEnv = "AGENTBOX_ADVERTISE_URL";

}
