/** Workflow commands (`::error::`, `::warning::`) end at a newline and treat `%` as an escape. */
export function commandText(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
