# Unit tests of lib/agent-tools.nix: [agents] packages as attribute paths, the npm lock checked
# against the manifest and reduced to one system's packages.
{
  lib,
  helpers,
}:
let
  tools = import ../agent-tools.nix;
  manifest = {
    agents = {
      packages = [
        "ripgrep"
        "python3Packages.pytest"
      ];
      npm = [
        "@anthropic-ai/claude-code@2.1.332"
        "@openai/codex@0.171.0"
      ];
    };
  };
  lock = {
    lockfileVersion = 3;
    packages = {
      "" = {
        name = "agentbox-agent-clis";
        dependencies = {
          "@anthropic-ai/claude-code" = "2.1.332";
          "@openai/codex" = "0.171.0";
        };
      };
      "node_modules/@anthropic-ai/claude-code" = {
        version = "2.1.332";
      };
      "node_modules/@anthropic-ai/claude-code-linux-x64" = {
        os = [ "linux" ];
        cpu = [ "x64" ];
      };
      "node_modules/@anthropic-ai/claude-code-linux-x64-musl" = {
        os = [ "linux" ];
        cpu = [ "x64" ];
        libc = [ "musl" ];
      };
      "node_modules/@anthropic-ai/claude-code-linux-arm64" = {
        os = [ "linux" ];
        cpu = [ "arm64" ];
      };
      "node_modules/@anthropic-ai/claude-code-darwin-arm64" = {
        os = [ "darwin" ];
        cpu = [ "arm64" ];
      };
      "node_modules/@openai/codex" = {
        version = "0.171.0";
        os = [ "!win32" ];
      };
    };
  };
  throws = e: !(builtins.tryEval e).success;
in
{
  agentPackagesAreAttributePaths = {
    expr = tools.packagePaths { inherit manifest; };
    expected = [
      [ "ripgrep" ]
      [
        "python3Packages"
        "pytest"
      ]
    ];
  };
  agentPackagesDefaultEmpty = {
    expr = tools.packagePaths { manifest = { }; };
    expected = [ ];
  };
  agentLockProjectMirrorsTheSpecs = {
    expr = (tools.lockProject { inherit manifest; }).dependencies;
    expected = lock.packages."".dependencies;
  };
  agentLockMatchingIsReturned = {
    expr = tools.checkedLock { inherit manifest lock; } == lock;
    expected = true;
  };
  agentLockMissingOrStaleThrows = {
    expr = [
      (throws (tools.checkedLock { inherit manifest; lock = null; }))
      (throws (
        tools.checkedLock {
          manifest = manifest // {
            agents = manifest.agents // {
              npm = [ "@openai/codex@0.172.0" ];
            };
          };
          inherit lock;
        }
      ))
    ];
    expected = [
      true
      true
    ];
  };
  agentLockForOneSystem = {
    expr = map (system: builtins.attrNames (tools.forSystem { inherit lock system; }).packages) [
      "x86_64-linux"
      "aarch64-linux"
    ];
    expected = [
      [
        ""
        "node_modules/@anthropic-ai/claude-code"
        "node_modules/@anthropic-ai/claude-code-linux-x64"
        "node_modules/@openai/codex"
      ]
      [
        ""
        "node_modules/@anthropic-ai/claude-code"
        "node_modules/@anthropic-ai/claude-code-linux-arm64"
        "node_modules/@openai/codex"
      ]
    ];
  };
}
