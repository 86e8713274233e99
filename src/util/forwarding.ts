/** The names of `T`'s members that are methods. */
export type MethodNames<T> = {
  [K in keyof T]-?: T[K] extends (...args: never[]) => unknown ? K : never;
}[keyof T];

/**
 * `target` seen through `overrides`: a member `overrides` holds is taken
 * from there, every other member from `target` (methods bound to it, so a
 * wrapper never changes what `this` is inside them). A port wrapped this way
 * keeps its type, and a method added to the port later is forwarded without
 * anyone writing it out.
 */
export function forwarding<T extends object>(target: T, overrides: Partial<T>): T {
  return new Proxy(target, {
    get(inner, key) {
      if (Object.hasOwn(overrides, key)) return (overrides as Record<PropertyKey, unknown>)[key];
      const value: unknown = Reflect.get(inner, key, inner);
      return typeof value === 'function' ? value.bind(inner) : value;
    },
  });
}

/**
 * Wraps the methods `names` of `target` so that `before` runs first, inside
 * the async call: a `before` that throws makes the call reject, as a failed
 * request would, rather than throw at the caller's feet.
 */
export function before<T extends object, K extends MethodNames<T>>(
  target: T,
  names: readonly K[],
  check: () => void,
): Pick<T, K> {
  const wrapped: Partial<Record<K, unknown>> = {};
  for (const name of names) {
    wrapped[name] = async (...args: unknown[]) => {
      check();
      // Looked up at each call, like every forwarded member.
      return (target[name] as (...args: unknown[]) => unknown).apply(target, args);
    };
  }
  return wrapped as Pick<T, K>;
}
