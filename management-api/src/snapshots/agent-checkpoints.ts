// Checkpoints: an agent's working directory snapshotted on a timer while it runs, the newest few kept, so a wrong path can be undone without a snapshot taken beforehand.
import { ApiError } from '../errors.js';

/** What a spawn asks for: a checkpoint every `everySec` seconds, the `keep` newest kept. */
export interface CheckpointPlan {
  everySec: number;
  keep: number;
}

/** A followed agent's plan and the checkpoints kept so far, oldest first (its record's `checkpoints`). */
export type FollowedPlan = CheckpointPlan & { made: string[] };

/** How many checkpoints are kept when a plan does not say. */
export const DEFAULT_CHECKPOINTS_KEPT = 10;

/** A manifest profile's checkpoints (agents.profiles.<name>.checkpoints) as a plan; undefined without any. */
export function profilePlan(checkpoints: { every_sec: number; keep?: number } | undefined): CheckpointPlan | undefined {
  return checkpoints && { everySec: checkpoints.every_sec, keep: checkpoints.keep ?? DEFAULT_CHECKPOINTS_KEPT };
}

/** The label of every checkpoint: `agentbox snapshot ls` shows it, and `snapshot prune` treats it as any other label. */
export const CHECKPOINT_LABEL = 'checkpoint';

/** What the checkpoints do through the box. */
export interface CheckpointActions {
  /** Snapshot the agent's working directory now (label {@link CHECKPOINT_LABEL}); undefined when the agent no longer runs. */
  take(agentId: string): Promise<string | undefined>;
  /** Delete a checkpoint made here, once newer ones have replaced it. */
  remove(snapshotId: string): Promise<void>;
  /** Where a checkpoint not made is said (pino's, or fastify's). */
  logger: { warn(fields: object, message: string): void };
}

interface Followed {
  plan: CheckpointPlan;
  timer: NodeJS.Timeout;
  /** The checkpoints made here, oldest first: only these are ever deleted. */
  made: string[];
  /** The tick under way, if any: a tick that comes meanwhile is skipped, and close() waits for it. */
  running: Promise<void> | undefined;
}

/**
 * One timer per followed agent. A tick while the last checkpoint is still being made is skipped
 * (a large tree never piles captures up behind each other); a tick that finds the agent ended
 * stops its timer. What an API restart leaves is kept: its agents end with it, and the
 * checkpoints they had stay as any snapshot does.
 */
export class AgentCheckpoints {
  readonly #followed = new Map<string, Followed>();

  constructor(private readonly actions: CheckpointActions) {}

  /** Checkpoint `agentId` by `plan` from now on, the first after `plan.everySec`. */
  follow(agentId: string, plan: CheckpointPlan): void {
    this.stop(agentId);
    const timer = setInterval(() => this.#start(agentId), plan.everySec * 1000);
    // Never what keeps the process alive: closing the app stops every timer anyway.
    timer.unref();
    this.#followed.set(agentId, { plan, timer, made: [], running: undefined });
  }

  /** What `agentId` is checkpointed by and the checkpoints kept so far, oldest first; undefined when it is not followed. */
  planOf(agentId: string): FollowedPlan | undefined {
    const followed = this.#followed.get(agentId);
    return followed && { ...followed.plan, made: [...followed.made] };
  }

  /** The agents followed now (their ids). */
  followed(): string[] {
    return [...this.#followed.keys()];
  }

  stop(agentId: string): void {
    const followed = this.#followed.get(agentId);
    if (!followed) return;
    clearInterval(followed.timer);
    this.#followed.delete(agentId);
  }

  /** Stop every timer, then wait for the checkpoints under way, so none is made in a store being closed. */
  async close(): Promise<void> {
    const running = [...this.#followed.values()].flatMap((f) => (f.running ? [f.running] : []));
    for (const id of this.followed()) this.stop(id);
    await Promise.all(running);
  }

  #start(agentId: string): void {
    const followed = this.#followed.get(agentId);
    if (!followed || followed.running) return;
    followed.running = this.#tick(agentId, followed).finally(() => {
      followed.running = undefined;
    });
  }

  /** Never rejects: whatever fails is logged, and the timer decides whether there is a next one. */
  async #tick(agentId: string, followed: Followed): Promise<void> {
    const { logger } = this.actions;
    try {
      const made = await this.actions.take(agentId);
      if (made === undefined) return this.stop(agentId);
      followed.made.push(made);
      while (followed.made.length > followed.plan.keep) {
        const oldest = followed.made.shift()!;
        await this.actions.remove(oldest).catch((err: unknown) => {
          // Deleted by hand meanwhile, or a store that refuses: the next checkpoint tries no more for it.
          if (!(err instanceof ApiError && err.code === 'ABX_ERR_NOT_FOUND'))
            logger.warn(
              { event: 'AgentCheckpointNotDeleted', agent: agentId, snapshot: oldest, err },
              `could not delete checkpoint ${oldest} of agent ${agentId}`,
            );
        });
      }
    } catch (err) {
      // A disk below resources.min_free_disk, a tree over a bound: this checkpoint is not made, the next one is tried.
      // An agent this box cannot snapshot at all (gone, no directory it can reach) is followed no more.
      const gone = err instanceof ApiError && (err.code === 'ABX_ERR_NOT_FOUND' || err.code === 'ABX_ERR_CONFLICT');
      logger.warn(
        { event: 'AgentCheckpointFailed', agent: agentId, err, followed: !gone },
        `checkpoint of agent ${agentId} not made${gone ? '; no more are tried' : ''}: ${err instanceof Error ? err.message : String(err)}`,
      );
      if (gone) this.stop(agentId);
    }
  }
}
