/**
 * A gate the test opens once it has seen what it tests (three jobs running
 * at once, a slot refused): work that waits on it lasts exactly as long as
 * the test needs, where a sleep would guess a length and hope.
 */
export interface Gate {
  /** Resolves once the gate is open (at once, ever after). */
  readonly opened: Promise<void>;
  open(): void;
}

export function gate(): Gate {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open: () => open() };
}
