# The seccomp profile of the audited exception [security.exceptions.sandbox-namespaces]: Docker's
# default profile (vendored, lib/seccomp/README.md) plus exactly the two rules bubblewrap needs to
# give each agent its own user, network and PID namespaces inside the container. Nothing else of
# the default profile changes; compose reads the file and sends it to the engine.
let
  facts = import ./facts.nix;
  ns = facts.sandboxNamespaces;
in
rec {
  /** The exception's [security.exceptions.<name>] key. */
  exceptionName = ns.exception;

  /** CLONE_NEWUSER (0x10000000): the flag the first addition requires. */
  cloneNewUser = 268435456;

  /**
    The rules appended to the default profile's `syscalls`, in order:
    1. clone and unshare when the flags include CLONE_NEWUSER. The default profile allows clone
       only without any namespace flag and unshare only with CAP_SYS_ADMIN (which the box never
       has). A new user namespace gives its creator capabilities inside it only, which is what
       lets bwrap make the other namespaces; outside it the box stays without any.
    2. mount, umount2 and pivot_root, which bwrap needs to build the agent's root. The kernel
       still refuses them outside a user namespace the caller owns, so they add nothing for the
       box's other processes (which hold no capability).
    The first argument is the flags on the architectures the box is built for (x86_64, aarch64).
  */
  additions = [
    {
      names = [
        "clone"
        "unshare"
      ];
      action = "SCMP_ACT_ALLOW";
      args = [
        {
          index = 0;
          value = cloneNewUser;
          valueTwo = cloneNewUser;
          op = "SCMP_CMP_MASKED_EQ";
        }
      ];
    }
    {
      names = [
        "mount"
        "umount2"
        "pivot_root"
      ];
      action = "SCMP_ACT_ALLOW";
      args = [ ];
    }
  ];

  /** Docker Engine 20.10.24's default profile, as vendored. */
  dockerDefault = builtins.fromJSON (builtins.readFile (../. + "/${ns.dockerDefaultProfile}"));

  /** The exception's profile: the default profile with `additions` appended to its syscalls. */
  namespacesProfile = dockerDefault // {
    syscalls = dockerDefault.syscalls ++ additions;
  };

  /** The profile's file name, written beside docker-compose.yml by `agentbox render`. */
  profileFile = ns.profileFile;

  /**
    The compose security option naming the profile: relative to the directory docker-compose runs
    in (compose 1.29 opens the path as given; compose v2 resolves it against the project
    directory), so the rendered directory is where docker-compose is run.
  */
  securityOpt = "seccomp:./${ns.profileFile}";

  /** The profile file's text: JSON with a trailing newline (the engine ignores key order). */
  profileText = builtins.toJSON namespacesProfile + "\n";
}
