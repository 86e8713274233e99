import { UnknownTriggerError } from '../errors/index.js';
import type { TriggerModule } from './trigger-module.js';

/** A trigger module of any kind, as a registry holds it (its methods take their own kind's data). */
type AnyTriggerModule = TriggerModule<{ kind: string }>;

/** The trigger data a module handles. */
export type TriggerOf<M> = M extends TriggerModule<infer T> ? T : never;

/** Kind → module: the one place that says which trigger kinds exist. */
export interface TriggerRegistry {
  /** The module for this trigger's kind; an unknown kind (a job queued by a newer version) is refused. */
  moduleOf<T extends { kind: string }>(trigger: T): TriggerModule<T>;
}

export function createTriggerRegistry(modules: readonly AnyTriggerModule[]): TriggerRegistry {
  const byKind = new Map<string, AnyTriggerModule>();
  for (const module of modules) {
    if (byKind.has(module.kind)) throw new Error(`Two trigger modules share the kind "${module.kind}".`);
    byKind.set(module.kind, module);
  }
  return {
    moduleOf<T extends { kind: string }>(trigger: T): TriggerModule<T> {
      const module = byKind.get(trigger.kind);
      if (module === undefined) throw new UnknownTriggerError(trigger.kind);
      // The map is keyed by kind: the module found handles this trigger's data.
      return module as unknown as TriggerModule<T>;
    },
  };
}
