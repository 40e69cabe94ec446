// E048: a pod has no device mapping of its own; a cluster hands devices to pods only through device plugins (the GPU features map to theirs).
import type { Rule, RuleFinding } from './rule.js';
import { exceptionEntries } from './helpers/exceptions.js';
import { finding } from './helpers/findings.js';
import { gpuExceptionNames, onKubernetes, targetName } from './helpers/kubernetes.js';

/** On the Kubernetes targets, exception devices are allowed only for the GPU features. */
export const exceptionDevicesWithoutKubernetesForm: Rule = {
  id: 'E048',
  alias: 'exception-devices-without-kubernetes-form',
  severity: 'error',
  summary: "exception devices other than a GPU feature's have no Kubernetes form (--target kubernetes or agent-sandbox)",
  check(m, ctx) {
    if (!onKubernetes(ctx)) return [];
    const gpu = gpuExceptionNames();
    const out: RuleFinding[] = [];
    for (const [name, ex] of exceptionEntries(m)) {
      if (gpu.includes(name)) continue;
      ex.devices.forEach((device, i) => {
        out.push(
          finding(
            ['security', 'exceptions', name, 'devices', i],
            `security.exceptions.${name}.devices entry "${device}" has no Kubernetes form: a pod gets devices only from a device plugin (target ${targetName(ctx)})`,
            `remove the device for this target and request the resource its device plugin offers in a patch of the generated pod, or render for compose (--target compose), where devices are passed as they are`,
          ),
        );
      });
    }
    return out;
  },
};
