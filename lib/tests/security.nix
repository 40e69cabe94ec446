# Unit tests of lib/security.nix: the security baseline and the exceptions that may only add to it.
{
  lib,
  helpers,
}:
let
  inherit (builtins) map;
  inherit (helpers) load throws adversarial;
in
{
  noExceptionsIsTheBaseline = {
    expr = removeAttrs (lib.mergeExceptions { exceptions = { }; }) [ "exceptions" ];
    expected = lib.baseline;
  };
  exceptionsAddAsSets = {
    expr =
      let
        m = lib.mergeExceptions {
          exceptions = adversarial // {
            c = {
              reason = "same capability again";
              cap_add = [ "NET_ADMIN" ];
              tmpfs = [ "/dev/shm" ];
            };
          };
        };
      in
      {
        inherit (m) cap_add devices cap_drop;
        tmp = m.tmpfs."/tmp";
        shm = m.tmpfs."/dev/shm";
      };
    expected = {
      cap_add = [ "NET_ADMIN" ];
      devices = [ "/dev/fuse" ];
      cap_drop = [ "ALL" ];
      tmp = lib.baseline.tmpfs."/tmp";
      shm = lib.security.exceptionTmpfsOptions;
    };
  };
  anExceptionCannotRemoveABaselineItem = {
    expr = lib.coversBaseline { merged = lib.mergeExceptions { exceptions = adversarial; }; };
    expected = true;
  };
  coversBaselineNoticesALostItem = {
    expr = lib.coversBaseline {
      merged = lib.baseline // {
        cap_drop = [ ];
      };
    };
    expected = false;
  };
  anExceptionCannotSetBaselineKeys = {
    expr = map (
      k:
      throws (
        lib.mergeExceptions {
          exceptions.x = {
            reason = "tries to switch off a baseline item";
            ${k} = (lib.baseline.${k} or null);
          };
        }
      )
    ) [ "cap_drop" "read_only" "user" "security_opt" "init" "protectedPaths" ];
    expected = [ true true true true true true ];
  };
  anExceptionCannotMountOverTheBaseline = {
    expr = map throws [
      (lib.mergeExceptions { exceptions.x = { reason = "r"; tmpfs = [ "/etc" ]; }; })
      (lib.mergeExceptions { exceptions.x = { reason = "r"; tmpfs = [ "/var" ]; }; })
      (lib.mergeExceptions { exceptions.x = { reason = "r"; tmpfs = [ "/" ]; }; })
      (lib.mergeExceptions { exceptions.x = { reason = "r"; volumes = [ "/h:/workspace" ]; }; })
      (lib.mergeExceptions { exceptions.x = { reason = "r"; volumes = [ "/h:/var/lib/agentbox/" ]; }; })
    ];
    expected = [ true true true true true ];
  };
  onlyOneRuntime = {
    expr = {
      two = throws (
        lib.mergeExceptions {
          exceptions = {
            a = { reason = "r"; runtime = "nvidia"; };
            b = { reason = "r"; runtime = "runsc"; };
          };
        }
      );
      same =
        (lib.mergeExceptions {
          exceptions = {
            a = { reason = "r"; runtime = "nvidia"; };
            b = { reason = "r"; runtime = "nvidia"; };
          };
        }).runtime;
    };
    expected = {
      two = true;
      same = "nvidia";
    };
  };
  conflictingTmpfsOptionsAreRefused = {
    expr = throws (
      lib.mergeExceptions {
        exceptions = {
          a = { reason = "r"; tmpfs = [ "/dev/shm:size=1g" ]; };
          b = { reason = "r"; tmpfs = [ "/dev/shm:size=2g" ]; };
        };
      }
    );
    expected = true;
  };
  anEnabledFeatureWithoutItsExceptionIsRefused = {
    expr = throws (lib.securityFor { manifest = load "[features]\ndesktop = true\n"; });
    expected = true;
  };
  exceptionsOfDisabledFeaturesAreNotApplied = {
    expr = (lib.securityFor { manifest = load "[security.exceptions.desktop]\nreason = \"r\"\ncap_add = [\"SYS_ADMIN\"]\n"; }).cap_add;
    expected = [ ];
  };
}
