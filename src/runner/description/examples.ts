import { readValidatedYaml } from './yaml-file.ts';

export interface SetupStep {
  as: string;
  operation: string;
  body?: unknown;
  query?: Record<string, unknown>;
}

export interface Expectation {
  pointer: string;
  equals?: unknown;
  /** The value must differ from this (semantic cases). */
  notEquals?: unknown;
}

export interface RequestExample {
  setup?: SetupStep[];
  body?: unknown;
  query?: Record<string, unknown>;
  pathParams?: Record<string, string>;
  expect?: Expectation[];
}

export interface OperationExamples extends RequestExample {
  note?: string;
  cases?: Array<RequestExample & { name: string; kind: 'positive' | 'negative' | 'semantic' }>;
}

export interface Examples {
  operations: Record<string, OperationExamples>;
}

export { EXAMPLES_SCHEMA } from '../schemas/index.ts';
import { EXAMPLES_SCHEMA } from '../schemas/index.ts';

export function loadExamples(file: string | undefined): Promise<Examples> {
  // No examples file: every request is generated from the contract.
  if (file === undefined) return Promise.resolve({ operations: {} });
  return readValidatedYaml<Examples>(file, EXAMPLES_SCHEMA);
}
