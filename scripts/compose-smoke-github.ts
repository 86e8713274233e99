/**
 * The GitHub that scripts/compose-smoke.sh's App talks to: the end-to-end
 * tests' stand-in (test/fakes/github-standin) on 127.0.0.1, and a TCP
 * forwarder to it on the compose network's gateway address, the one address
 * of this host the containers reach. It writes what the smoke needs to a JSON
 * file (the App's id and key, GHE_HOST, an `issue_comment` payload mentioning
 * the App from someone with write access), then prints each API request the
 * stand-in answers, one line each (method, path, status), and the first line
 * of each comment the App writes or edits on the issue, until SIGTERM.
 *
 *   tsx scripts/compose-smoke-github.ts <gateway-address> <out.json>
 */
import { writeFileSync } from 'node:fs';
import { type AddressInfo, connect, createServer } from 'node:net';
import { mentionInNewIssue } from '../test/e2e/support/mention.js';
import { GitHubStandin } from '../test/fakes/github-standin/standin.js';

const [listenAddress, out] = process.argv.slice(2);
if (!listenAddress || !out) {
  process.stderr.write('usage: compose-smoke-github.ts <gateway-address> <out.json>\n');
  process.exit(2);
}

const standin = await GitHubStandin.start();
const [standinHost, standinPort] = standin.host.split(':') as [string, string];
const forwarder = createServer((socket) => {
  const upstream = connect(Number(standinPort), standinHost);
  socket.pipe(upstream).pipe(socket);
  socket.on('error', () => upstream.destroy());
  upstream.on('error', () => socket.destroy());
});
await new Promise<void>((resolve) => forwarder.listen(0, listenAddress, resolve));
const { port } = forwarder.address() as AddressInfo;

const repo = await standin.createRepository('octo-org', 'smoke', [
  { 'main.py': 'print(undefined_name)\n', 'README.md': '# smoke\n' },
]);
standin.setPermission(repo.fullName, 'alice', 'write');
const { issue, payload } = mentionInNewIssue(standin, repo, {
  login: 'alice',
  body: '@selfdebug fix',
  issueText: '`python main.py` fails with a NameError',
});

writeFileSync(
  out,
  JSON.stringify({
    appId: standin.appId,
    privateKey: standin.privateKey,
    gheHost: `${listenAddress}:${port}`,
    repository: repo.fullName,
    issue: issue.number,
    payload,
  }),
  { mode: 0o600 },
);

let printed = 0;
const seen = new Map<number, string>();
const report = setInterval(() => {
  for (const request of standin.requests.slice(printed)) {
    process.stdout.write(`${request.method} ${request.path} ${request.status}\n`);
  }
  printed = standin.requests.length;
  // The App's comments on the issue as they are written or edited: their first line of text.
  for (const { id, body, user } of standin.comments(repo.fullName, issue.number)) {
    if (user === 'alice' || seen.get(id) === body) continue;
    seen.set(id, body);
    process.stdout.write(
      `comment ${id} by ${user}: ${body.split('\n').find((line) => line.trim() && !line.startsWith('<!--')) ?? ''}\n`,
    );
  }
}, 200);

const stop = async () => {
  clearInterval(report);
  forwarder.close();
  await standin.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
