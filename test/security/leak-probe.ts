/** Every way a container or an output could carry `secret`: as it is, in base64 (alone and as a header), reversed. */
export function leakForms(secret: string): string[] {
  const base64 = (text: string) => Buffer.from(text).toString('base64');
  return [secret, base64(secret), base64(`x-access-token:${secret}`), [...secret].reverse().join('')];
}

/**
 * A shell command that fails, printing where, when any of `forms` is in a file under the workspace
 * (and `places`: a container's /tmp and home; the local sandbox's are the host's own), and also when `control` (text the workspace holds) is not found, so a
 * probe that searched nothing cannot pass. The forms are written with `~` between characters and
 * put together in the shell, so the command itself (stored in the workspace config) holds none.
 */
export function leakProbe(forms: readonly string[], control: string, places = '/tmp "$HOME"'): string {
  const spread = forms.map((form) => `'${[...form].join('~')}'`).join(' ');
  return [
    `grep -rqF -e '${control}' . || { echo "probe found no ${control}"; exit 3; }`,
    `for p in ${spread}; do f=$(printf %s "$p" | tr -d '~'); ` +
      `if grep -rlF -e "$f" . ${places} 2>/dev/null; then echo LEAK; exit 4; fi; done`,
    'echo probe-clean',
  ].join('; ');
}
