import { rules as recommendedRules } from '@secretlint/secretlint-rule-preset-recommend';
import type {
  SecretLintRuleContext,
  SecretLintRuleCreator,
  SecretLintRuleReportHandler,
  SecretLintSourceCode,
} from '@secretlint/types';

/** A half-open span `[start, end)` of text to hide. */
export type Range = readonly [start: number, end: number];

/**
 * Rules of secretlint's recommended preset we leave out:
 * - filter-comments: a `secretlint-disable` comment would let the very output we are
 *   cleaning (written by a model or a hostile script) switch redaction off.
 * - gcp: it only reads `.json`/`.p12` files from disk; private keys are caught by our PEM scan.
 */
const LEFT_OUT = new Set(['@secretlint/secretlint-rule-filter-comments', '@secretlint/secretlint-rule-gcp']);

/**
 * Options that turn on checks the preset keeps off for source files, where ids are
 * often examples: an access key id in posted output is worth hiding all the same.
 */
const RULE_OPTIONS: Record<string, object> = {
  '@secretlint/secretlint-rule-aws': { enableIDScanRule: true },
};

const RULES = (recommendedRules as readonly SecretLintRuleCreator<object>[]).filter(
  (rule) => !LEFT_OUT.has(rule.meta.id) && rule.meta.supportedContentTypes.some((type) => type !== 'binary'),
);

/**
 * Runs the preset's rules over `text` synchronously and returns the ranges
 * they report. secretlint's `lintSource` is async only because a rule *may*
 * be (the gcp rule reads files); every text rule we keep reports from a
 * plain `file()` call, so we drive them ourselves with the rule context the
 * rule API documents and keep `Redactor.redact` synchronous for its many
 * callers. A rule that turns async in a later version fails loudly here
 * rather than silently reporting nothing (and the conformance test compares
 * these ranges with `lintSource`'s).
 */
export function secretlintRanges(text: string, options: { narrow?: boolean } = {}): Range[] {
  const narrow = options.narrow ?? true;
  const ranges: Range[] = [];
  const context: SecretLintRuleContext = {
    sharedOptions: {},
    createTranslator: (() => (messageId: string, data?: unknown) => ({
      message: messageId,
      messageId,
      data,
    })) as unknown as SecretLintRuleContext['createTranslator'],
    report: (descriptor) => {
      const range: Range = [descriptor.range[0], descriptor.range[1]];
      ranges.push(narrow ? narrowed(text, range) : range);
    },
    ignore: () => {},
  };
  const source = sourceCode(text);
  for (const rule of RULES) {
    const handler: SecretLintRuleReportHandler = rule.create(context, RULE_OPTIONS[rule.meta.id] ?? {});
    const result = handler.file?.(source);
    if (result instanceof Promise) throw new Error(`secretlint rule ${rule.meta.id} is asynchronous`);
  }
  return ranges;
}

const URL_USERINFO = /^[a-z][a-z0-9+.-]{0,30}:\/\/([^\s/?#@]{1,1024})@/i;

/**
 * The basic-auth and database rules report a whole URL; only its userinfo is
 * secret, and the scheme and host tell the reader what failed to connect.
 */
function narrowed(text: string, range: Range): Range {
  const found = URL_USERINFO.exec(text.slice(range[0], Math.min(range[1], range[0] + 1100)));
  if (!found?.[1]) return range;
  const start = range[0] + found[0].length - found[1].length - 1;
  return [start, start + found[1].length];
}

/** The rules in use with their options, for the conformance test against `lintSource`. */
export const secretlintRules = (): { id: string; rule: SecretLintRuleCreator<object>; options: object }[] =>
  RULES.map((rule) => ({ id: rule.meta.id, rule, options: RULE_OPTIONS[rule.meta.id] ?? {} }));

function sourceCode(content: string): SecretLintSourceCode {
  const unused = (): never => {
    throw new Error('position lookups are not provided to secretlint rules here');
  };
  return {
    hasBOM: false,
    content,
    filePath: undefined,
    physicalFilePath: undefined,
    contentType: 'text',
    ext: '',
    getFilePath: () => undefined,
    getPhysicalFilePath: () => undefined,
    locationToRange: unused,
    rangeToLocation: unused,
    positionToIndex: unused,
    indexToPosition: unused,
  };
}
