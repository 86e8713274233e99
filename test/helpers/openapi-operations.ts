import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

/**
 * GitHub's REST API as @octokit/openapi describes it, for checking what our
 * mocks see. The dereferenced description (~70 MB) is read once per test
 * file, on first use; validators are compiled per operation when first needed.
 */

type JsonObject = Record<string, unknown>;

export interface Operation {
  method: string;
  /** The documented path template, e.g. `/repos/{owner}/{repo}/issues/{issue_number}/comments`. */
  template: string;
  definition: JsonObject;
}

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  names: string[];
  literalSegments: number;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head'] as const;

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

let description: { paths: Record<string, JsonObject> } | undefined;
let routes: Route[] | undefined;
let bodyAjv: Ajv | undefined;
let parameterAjv: Ajv | undefined;
const validators = new Map<string, ValidateFunction>();

function paths(): Record<string, JsonObject> {
  if (description === undefined) {
    const require = createRequire(import.meta.url);
    const file = require.resolve('@octokit/openapi/generated/api.github.com.deref.json');
    description = JSON.parse(readFileSync(file, 'utf8')) as { paths: Record<string, JsonObject> };
  }
  return description.paths;
}

function routeTable(): Route[] {
  if (routes !== undefined) return routes;
  const table: Route[] = [];
  for (const [template, item] of Object.entries(paths())) {
    const names: string[] = [];
    const segments = template.split('/');
    const pattern = segments
      .map((segment) =>
        segment.replace(/\{([^}]+)\}|[^{}]+/g, (part, name: string | undefined) => {
          if (name === undefined) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
          names.push(name);
          return '([^/]+)';
        }),
      )
      .join('/');
    const literalSegments = segments.filter((segment) => segment !== '' && !segment.includes('{')).length;
    for (const method of METHODS) {
      if (typeof item[method] === 'object') {
        table.push({ method, template, pattern: new RegExp(`^${pattern}$`), names, literalSegments });
      }
    }
  }
  // `/repos/{owner}/{repo}/issues/comments` must win over `/repos/{owner}/{repo}/issues/{issue_number}`.
  table.sort((left, right) => right.literalSegments - left.literalSegments);
  routes = table;
  return table;
}

/** The documented operation for a request, with its path parameters, or undefined when GitHub has none. */
export function findOperation(
  method: string,
  pathname: string,
): { operation: Operation; pathParameters: Record<string, string> } | undefined {
  const lowered = method.toLowerCase();
  for (const route of routeTable()) {
    if (route.method !== lowered) continue;
    const match = route.pattern.exec(pathname);
    if (match === null) continue;
    const pathParameters = Object.fromEntries(
      route.names.map((name, index) => [name, decodeURIComponent(match[index + 1] ?? '')]),
    );
    const definition = paths()[route.template]?.[lowered] as JsonObject;
    return { operation: { method: lowered, template: route.template, definition }, pathParameters };
  }
  return undefined;
}

/** An operation by `METHOD /template`, as written in GitHub's docs. */
export function operationNamed(name: string): Operation {
  const [method = '', template = ''] = name.split(' ');
  const definition = paths()[template]?.[method.toLowerCase()];
  if (typeof definition !== 'object' || definition === null) throw new Error(`GitHub documents no "${name}"`);
  return { method: method.toLowerCase(), template, definition: definition as JsonObject };
}

export function requestBodyProblems(operation: Operation, rawBody: string): string[] {
  const requestBody = operation.definition.requestBody as JsonObject | undefined;
  const schema = jsonSchemaOf(requestBody?.content);
  if (rawBody === '') {
    return requestBody?.required === true ? ['the request has no body, but GitHub requires one'] : [];
  }
  if (requestBody === undefined) return ['the request has a body, but the operation takes none'];
  if (schema === undefined) return [];
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return ['the request body is not JSON'];
  }
  return validate(`${operation.method} ${operation.template} request`, schema, body, bodyValidator());
}

export function responseBodyProblems(operation: Operation, status: number, body: unknown): string[] {
  const responses = operation.definition.responses as Record<string, JsonObject | undefined>;
  const response = responses[String(status)];
  if (response === undefined) return [`GitHub documents no ${status} response for this operation`];
  const schema = jsonSchemaOf(response.content);
  if (schema === undefined) return [];
  return validate(`${operation.method} ${operation.template} ${status}`, schema, body, bodyValidator());
}

/** Query and path parameters: the name must be documented and the value fit its schema. */
export function parameterProblems(
  operation: Operation,
  where: 'query' | 'path',
  values: Record<string, string | string[]>,
): string[] {
  const documented = ((operation.definition.parameters as JsonObject[] | undefined) ?? []).filter(
    (parameter) => parameter.in === where,
  );
  const problems = Object.keys(values)
    .filter((name) => !documented.some((parameter) => parameter.name === name))
    .map((name) => `${where} parameter "${name}" is not documented`);
  const schema = {
    type: 'object',
    properties: Object.fromEntries(documented.map((parameter) => [parameter.name, parameter.schema ?? {}])),
    required: documented
      .filter((parameter) => parameter.required === true)
      .map((parameter) => parameter.name),
  };
  const key = `${operation.method} ${operation.template} ${where}`;
  // Coercion turns "100" into 100 the way GitHub's own parsing would.
  return [...problems, ...validate(key, schema, { ...values }, parameterValidator(), where)];
}

/** The documented example of a response, to build realistic mock bodies from. */
export function documentedExample(name: string, status: number): unknown {
  const responses = operationNamed(name).definition.responses as Record<string, JsonObject | undefined>;
  const content = responses[String(status)]?.content as Record<string, JsonObject> | undefined;
  const media = content === undefined ? undefined : Object.values(content)[0];
  const examples = media?.examples as Record<string, { value?: unknown }> | undefined;
  const example = media?.example ?? Object.values(examples ?? {})[0]?.value;
  if (example === undefined) throw new Error(`GitHub documents no example for ${name} ${status}`);
  return structuredClone(example);
}

function jsonSchemaOf(content: unknown): JsonObject | undefined {
  if (typeof content !== 'object' || content === null) return undefined;
  const entries = Object.entries(content as Record<string, JsonObject>);
  const json =
    entries.find(([type]) => type === 'application/json') ?? entries.find(([type]) => type.includes('json'));
  const schema = json?.[1].schema;
  return typeof schema === 'object' && schema !== null ? (schema as JsonObject) : undefined;
}

function validate(key: string, schema: JsonObject, data: unknown, ajv: Ajv, prefix = 'body'): string[] {
  let validator = validators.get(key);
  if (validator === undefined) {
    validator = ajv.compile(toJsonSchema(schema) as JsonObject);
    validators.set(key, validator);
  }
  if (validator(data)) return [];
  return (validator.errors ?? []).map(
    (error) => `${prefix}${error.instancePath} ${error.message ?? 'is invalid'}`,
  );
}

function bodyValidator(): Ajv {
  bodyAjv ??= withFormats(new Ajv({ strict: false, allErrors: true, logger: false }));
  return bodyAjv;
}

function parameterValidator(): Ajv {
  parameterAjv ??= withFormats(
    new Ajv({ strict: false, allErrors: true, logger: false, coerceTypes: 'array' }),
  );
  return parameterAjv;
}

function withFormats(ajv: Ajv): Ajv {
  addFormats(ajv);
  return ajv;
}

/**
 * OpenAPI 3.0's `nullable` is not JSON Schema. Ajv understands it beside a
 * `type` but refuses it alone, which GitHub's description has in places; and
 * a nullable `enum` (a check run's `conclusion`) must list null itself, as
 * GitHub does send null there.
 */
function toJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toJsonSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const converted = Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, key === 'example' ? value : toJsonSchema(value)]),
  );
  if (converted.nullable === true && Array.isArray(converted.enum) && !converted.enum.includes(null)) {
    converted.enum = [...converted.enum, null];
  }
  if (converted.nullable === true && converted.type === undefined) {
    const { nullable: _nullable, ...rest } = converted;
    return { anyOf: [rest, { type: 'null' }] };
  }
  return converted;
}
