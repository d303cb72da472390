import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiResponse } from './api-client';

/** The committed API document, which the served one must equal. */
export const OPENAPI_FILE = join(__dirname, '..', '..', 'openapi.json');

type Json = { [key: string]: any };

const DOCUMENT_ID = 'openapi.json';
const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'];

/** `~` and `/` escaped for a JSON pointer segment (RFC 6901). */
const segment = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Checks real responses against the API document: the status must be documented
 * for the operation, the body must match the declared schema, every required
 * header must be present and every declared header that is present must match its
 * schema. It records what it checked, so a spec can tell which documented
 * responses it never exercised.
 */
export class OpenApiContract {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  /** `operationId status` pairs checked so far. */
  readonly checked = new Set<string>();

  constructor(readonly document: Json) {
    addFormats(this.ajv);
    // OpenAPI's integer formats; JSON numbers beyond 2^53 never reach here intact anyway.
    this.ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && Math.abs(n) <= 2 ** 31 });
    this.ajv.addFormat('int64', { type: 'number', validate: Number.isInteger });
    this.ajv.addSchema(document, DOCUMENT_ID);
  }

  static fromFile(file = OPENAPI_FILE): OpenApiContract {
    return new OpenApiContract(JSON.parse(readFileSync(file, 'utf8')));
  }

  /** Every `operationId status` the document declares. */
  documentedResponses(): string[] {
    return this.operationEntries().flatMap(({ operation }) =>
      Object.keys(operation.responses ?? {}).map((status) => `${operation.operationId} ${status}`),
    );
  }

  /** What is wrong with a response to the operation; empty when it matches the document. */
  problems(operationId: string, response: ApiResponse): string[] {
    const found = this.operationEntries().find(({ operation }) => operation.operationId === operationId);
    if (!found) return [`operation ${operationId} is not in the document`];
    const statusKey = [String(response.status), `${String(response.status)[0]}XX`, 'default'].find(
      (key) => found.operation.responses?.[key],
    );
    if (!statusKey) return [`${operationId} does not document status ${response.status}`];
    this.checked.add(`${operationId} ${statusKey}`);
    const pointer = `${found.pointer}/responses/${segment(statusKey)}`;
    const declared = this.resolve(pointer);
    return [...this.bodyProblems(pointer, declared, response), ...this.headerProblems(pointer, declared, response)];
  }

  /** Fails the test, listing the problems, unless the response matches the document. */
  expectResponse(operationId: string, response: ApiResponse): void {
    expect({ operationId, status: response.status, problems: this.problems(operationId, response) }).toEqual({
      operationId,
      status: response.status,
      problems: [],
    });
  }

  private operationEntries(): Array<{ pointer: string; operation: Json }> {
    return Object.entries(this.document.paths ?? {}).flatMap(([path, item]) =>
      METHODS.filter((method) => (item as Json)[method]).map((method) => ({
        pointer: `#/paths/${segment(path)}/${method}`,
        operation: (item as Json)[method],
      })),
    );
  }

  private bodyProblems(pointer: string, declared: Json, response: ApiResponse): string[] {
    const content: Json = declared.content ?? {};
    if (Object.keys(content).length === 0) {
      return response.text ? [`status ${response.status} declares no body but one was sent`] : [];
    }
    const mediaType = String(response.headers['content-type'] ?? '').split(';')[0].trim();
    if (!content[mediaType]) return [`content type "${mediaType}" is not one of ${Object.keys(content).join(', ')}`];
    if (!content[mediaType].schema) return [];
    if (response.body === undefined) return [`body is not ${mediaType}: ${response.text.slice(0, 80)}`];
    return this.validate(`${pointer}/content/${segment(mediaType)}/schema`, response.body, 'body');
  }

  private headerProblems(pointer: string, declared: Json, response: ApiResponse): string[] {
    return Object.entries(declared.headers ?? {}).flatMap(([name, header]) => {
      const headerPointer = (header as Json).$ref ?? `${pointer}/headers/${segment(name)}`;
      const definition = this.resolve(headerPointer);
      const raw = response.headers[name.toLowerCase()];
      if (raw === undefined) return definition.required ? [`header ${name} is required but missing`] : [];
      if (Array.isArray(raw)) return [`header ${name} is sent ${raw.length} times`];
      if (!definition.schema) return [];
      return this.validate(`${headerPointer}/schema`, headerValue(String(raw), this.resolve(`${headerPointer}/schema`)), `header ${name}`);
    });
  }

  private validate(pointer: string, value: unknown, what: string): string[] {
    let validator = this.validators.get(pointer);
    if (!validator) {
      validator = this.ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
      this.validators.set(pointer, validator);
    }
    if (validator(value)) return [];
    return (validator.errors ?? []).map((error) => `${what}${error.instancePath} ${error.message} (${JSON.stringify(value)})`);
  }

  private resolve(pointer: string): Json {
    return pointer
      .replace(/^#\//, '')
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((node: Json, key) => node?.[key], this.document);
  }
}

/** Header values are text; a header declared as a number is read as one (a simple-style parameter). */
function headerValue(raw: string, schema: Json): unknown {
  const numeric = schema.type === 'integer' || schema.type === 'number';
  return numeric && /^-?\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : raw;
}
