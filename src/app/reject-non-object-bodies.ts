/**
 * Probot hands a delivery's parsed body to its auth and context code, which
 * read `payload.installation`: a body that is valid JSON but not an object
 * (`null`, `"x"`, `[]`, `1`) throws a TypeError there, answered 500 — a
 * server fault GitHub retries, for what is the sender's fault. This answers
 * it 400, as Probot already does for a body that is not JSON at all.
 *
 * Probot mounts its webhook middleware ahead of anything an app function can
 * add, so the check wraps the two entry points of the app's own `Webhooks`
 * instance (the middleware calls `verifyAndReceive`; `Probot.receive` and
 * the webhook proxy call `receive`). Nothing in node_modules is changed.
 */
interface WebhookEntryPoints {
  verifyAndReceive(event: { id: string; name: string; payload: string; signature: string }): Promise<void>;
  receive(event: { id: string; name: string; payload: unknown }): Promise<void>;
}

export function rejectNonObjectBodies(webhooks: object): void {
  const entry = webhooks as WebhookEntryPoints;
  const verifyAndReceive = entry.verifyAndReceive.bind(webhooks);
  const receive = entry.receive.bind(webhooks);
  entry.verifyAndReceive = async (event) => {
    // A JSON text is an object exactly when it starts with `{`; anything else invalid is Probot's 400 already.
    if (typeof event.payload === 'string' && !/^\s*\{/.test(event.payload)) throw notAnObject();
    return verifyAndReceive(event);
  };
  entry.receive = async (event) => {
    const { payload } = event;
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw notAnObject();
    return receive(event);
  };
}

/** Shaped as @octokit/webhooks' own errors, so its middleware answers with the status. */
function notAnObject(): AggregateError {
  const error = Object.assign(new Error('the body must be a JSON object'), { status: 400 });
  return Object.assign(new AggregateError([error], error.message), { status: 400 });
}
