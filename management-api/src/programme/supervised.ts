// The two questions a programme asks about supervisord, each answered here once and from one signal.
//
// "Is my parent supervisord?" (`startedBySupervisord`): supervisord sets SUPERVISOR_ENABLED=1 in
// the environment of every programme it spawns, whatever its configuration, so the answer holds
// under the box's generated config and under any other. It decides what only makes sense with
// supervisord as the parent: watching the parent and stopping when it is gone, writing the
// process-communication markers on stdout (elsewhere stdout is a person's terminal), pacing
// restarts, and recording a start failure for the seal listener.
//
// "Does this box have a supervisord I can talk to?" (`boxSupervisorUrl`): the generated
// supervisord.conf gives every programme AGENTBOX_SUPERVISOR_URL (lib/supervisord.nix), the
// box's own control socket. Only a programme of the generated config has it, so it also says that
// the box's other programmes (the egress proxy) run beside this one; an API under another
// supervisord, or started by hand, has none. Tests point it at a supervisord of their own.

type Env = Readonly<Record<string, string | undefined>>;

/** The variable supervisord sets to 1 in every child's environment. */
export const SUPERVISOR_ENABLED_VARIABLE = 'SUPERVISOR_ENABLED';
/** The variable the generated supervisord.conf sets to the box's supervisord socket (`unix://…`). */
export const BOX_SUPERVISOR_URL_VARIABLE = 'AGENTBOX_SUPERVISOR_URL';

/** True when this process was spawned by supervisord (any supervisord: its parent is one). */
export function startedBySupervisord(env: Env): boolean {
  return env[SUPERVISOR_ENABLED_VARIABLE] === '1';
}

/** The URL of the box's own supervisord (from the generated config), or undefined when this process is not one of the box's programmes. */
export function boxSupervisorUrl(env: Env): string | undefined {
  return env[BOX_SUPERVISOR_URL_VARIABLE] || undefined;
}
