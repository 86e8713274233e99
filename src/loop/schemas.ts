import { z } from 'zod';

/**
 * What the model must answer, as zod schemas (validation) from which the
 * JSON Schemas sent as structured output are generated. Shapes are kept
 * flat (no unions) because not every OpenAI-compatible server handles them.
 */
const editSchema = z.object({
  path: z.string().min(1).describe('File path relative to the repository root'),
  search: z
    .string()
    .describe(
      'Exact text to find, copied from the file with enough surrounding lines to be unique. ' +
        'Empty string: create the file, or replace its whole content, with `replace`.',
    ),
  replace: z.string().describe('Text that replaces `search` (or the whole file when `search` is empty)'),
});

export const fixProposalSchema = z.object({
  analysis: z.string().min(1).describe('What is wrong and how the edits fix it'),
  edits: z.array(editSchema).max(50).describe('Search/replace edits, applied in order'),
});

export const retryDecisionSchema = z.object({
  retry: z.boolean().describe('Whether another attempt can plausibly fix the failure'),
  reason: z.string().min(1).describe('Why, and what the next attempt would change'),
});

export const reflectionSchema = z.object({
  summary: z.string().min(1).describe('One or two sentences for a pull request title and status line'),
  rootCause: z.string().min(1).describe('The root cause of the failure, or the best explanation found'),
  changes: z.string().describe('What was changed and why it works; or why it could not be fixed'),
  confidence: z.enum(['low', 'medium', 'high']),
  risks: z.array(z.string()).describe('What a reviewer should check'),
});

export type Edit = z.infer<typeof editSchema>;
export type FixProposal = z.infer<typeof fixProposalSchema>;
export type RetryDecision = z.infer<typeof retryDecisionSchema>;
export type Reflection = z.infer<typeof reflectionSchema>;

export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>;
  return rest;
}
