// The CLI's rule context: --target-arch wins, the default is this machine's architecture (hostArch), and a machine no box is built for asks for the option.
import t from 'tap';
import { ruleContextFrom } from '../../../scripts/cli/rule-context.js';
import { hostArch } from '../../../management-api/src/manifest/host-arch.js';

/** Run `fn` as if on a machine whose Node reports `arch`; process.arch is configurable, and put back after. */
function onMachine<T>(arch: string, fn: () => T): T {
  const real = Object.getOwnPropertyDescriptor(process, 'arch')!;
  Object.defineProperty(process, 'arch', { ...real, value: arch });
  try {
    return fn();
  } finally {
    Object.defineProperty(process, 'arch', real);
  }
}

t.test('the default target is the machine the command runs on', async (t) => {
  t.equal(ruleContextFrom(undefined).targetArch, hostArch());
  t.equal(
    onMachine('arm64', () => ruleContextFrom(undefined).targetArch),
    'aarch64',
  );
  t.equal(
    onMachine('x64', () => ruleContextFrom(undefined).targetArch),
    'x86_64',
  );
  t.equal(
    onMachine('arm64', () => ruleContextFrom('x86_64').targetArch),
    'x86_64',
    '--target-arch wins',
  );
});

t.test('on a machine no box is built for, the default is refused with a request for --target-arch, not guessed', async (t) => {
  t.throws(() => onMachine('ppc64', () => ruleContextFrom(undefined)), { name: 'UsageError', message: /"ppc64".*; pass --target-arch x86_64 or aarch64$/ });
  t.equal(
    onMachine('ppc64', () => ruleContextFrom('aarch64').targetArch),
    'aarch64',
    'an explicit target needs no host architecture',
  );
});
