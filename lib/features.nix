# The optional features as data: which manifest setting turns each on, the security exception it
# needs (same names as the manifest rules), the programme it adds, its port and the packages the
# image gains. Enabling a feature adds exactly this entry — nothing else in lib/ names features.
let
  pathsLib = import ./paths.nix;
in
rec {
  /**
    Every feature, keyed by the name of its [security.exceptions.<name>] entry.
    - bin: directory of the box's own commands (see lib/paths.nix)
    - runtime: the runtime paths (lib/paths.nix runtimePaths; default: the image layout)
    Each entry: setting (how it reads in TOML), enabled (manifest → bool), programs (programme
    records, see lib/programs.nix), packages (nixpkgs attribute paths, resolved by lib/image.nix).
  */
  featureTable =
    {
      bin ? pathsLib.image.bin,
      runtime ? pathsLib.runtimePaths { },
    }:
    let
      paths = runtime;
    in
    {
      desktop = {
        setting = "features.desktop = true";
        enabled = m: m.features.desktop;
        programs = [
          {
            name = "desktop";
            # A virtual X display and a VNC server on it (display :99, VNC on 5900).
            argv = [ "${bin}/agentbox-desktop" ];
            priority = 40;
            port = 5900;
            environment = {
              DISPLAY = ":99";
            };
          }
        ];
        packages = [
          [
            "xorg"
            "xorgserver"
          ]
          [ "x11vnc" ]
        ];
      };
      code-server = {
        setting = "features.code_server = true";
        enabled = m: m.features.code_server;
        programs = [
          {
            name = "code-server";
            argv = [
              "code-server"
              "--bind-addr"
              "0.0.0.0:8443"
              "--auth"
              "password"
              "--disable-telemetry"
              "--user-data-dir"
              "${paths.stateDir}/code-server"
              paths.workspaceDir
            ];
            priority = 50;
            port = 8443;
          }
        ];
        packages = [ [ "code-server" ] ];
      };
      playwright = {
        setting = "features.playwright = true";
        enabled = m: m.features.playwright;
        programs = [
          {
            name = "playwright";
            # A Playwright browser server agents connect to (chromium, headless).
            argv = [
              "playwright"
              "run-server"
              "--host"
              "0.0.0.0"
              "--port"
              "3100"
            ];
            priority = 50;
            port = 3100;
          }
        ];
        packages = [
          [ "playwright-test" ]
          [
            "playwright-driver"
            "browsers"
          ]
        ];
      };
      gaussian-splatting = {
        setting = "features.gaussian_splatting = true";
        enabled = m: m.features.gaussian_splatting;
        programs = [ ];
        packages = [ [ "colmap" ] ];
      };
      telegram-mirror = {
        setting = "features.telegram_mirror = true";
        enabled = m: m.features.telegram_mirror;
        programs = [
          {
            name = "telegram-mirror";
            argv = [ "${bin}/agentbox-telegram-mirror" ];
            priority = 60;
          }
        ];
        packages = [ ];
      };
      gpu-rocm = {
        setting = "features.gpu = \"rocm\"";
        enabled = m: m.features.gpu == "rocm";
        programs = [ ];
        packages = [ ];
      };
      gpu-cuda = {
        setting = "features.gpu = \"cuda\"";
        enabled = m: m.features.gpu == "cuda";
        programs = [ ];
        packages = [ ];
      };
    };

  /**
    The enabled features of a manifest, as a list of { name; ...entry } in name order.
    - manifest: a normalized manifest
    - bin, runtime: as for featureTable
  */
  enabledFeatures =
    {
      manifest,
      bin ? pathsLib.image.bin,
      runtime ? pathsLib.runtimePaths { },
    }:
    let
      table = featureTable { inherit bin runtime; };
    in
    builtins.filter (f: f.enabled manifest) (
      map (name: table.${name} // { inherit name; }) (builtins.attrNames table)
    );
}
